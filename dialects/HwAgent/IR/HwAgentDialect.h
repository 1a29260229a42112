//===- HwAgentDialect.h - hwagent dialect -----------------------*- C++ -*-===//

#ifndef HWAGENT_IR_HWAGENTDIALECT_H
#define HWAGENT_IR_HWAGENTDIALECT_H

#include "HwAgent/IR/HwAgentAttrs.h"
#include "mlir/IR/Dialect.h"

#include "HwAgent/IR/HwAgentOpsDialect.h.inc"

#endif // HWAGENT_IR_HWAGENTDIALECT_H
