//===- HwAgentOps.h - hwagent operations ------------------------*- C++ -*-===//

#ifndef HWAGENT_IR_HWAGENTOPS_H
#define HWAGENT_IR_HWAGENTOPS_H

#include "HwAgent/IR/HwAgentAttrs.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/IR/HwAgentInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::hwagent {
class YieldOp;
} // namespace mlir::hwagent

#define GET_OP_CLASSES
#include "HwAgent/IR/HwAgentOps.h.inc"

#endif // HWAGENT_IR_HWAGENTOPS_H
