//===- HwAgentInterfaces.h - feature extraction interface -------*- C++ -*-===//

#ifndef HWAGENT_IR_HWAGENTINTERFACES_H
#define HWAGENT_IR_HWAGENTINTERFACES_H

#include "HwAgent/IR/HwAgentAttrs.h"
#include "mlir/IR/OpDefinition.h"

#include "HwAgent/IR/HwAgentInterfaces.h.inc"

#endif // HWAGENT_IR_HWAGENTINTERFACES_H
