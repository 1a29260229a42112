//===- HwAgentDialect.h - hwagent dialect -----------------------*- C++ -*-===//

#ifndef HWAGENT_IR_HWAGENTDIALECT_H
#define HWAGENT_IR_HWAGENTDIALECT_H

#include "HwAgent/IR/HwAgentAttrs.h"
#include "mlir/IR/Dialect.h"

#include "HwAgent/IR/HwAgentOpsDialect.h.inc"

namespace mlir::hwagent {

/// Argument and result attributes of the public functions a trainer binds
/// (docs/training.md), each name written once: the step signature reads
/// them, the runner writes an explicit parameter mapping into them.
/// `{hwagent.param}` or `{hwagent.param = <result>}`: a trained parameter.
inline constexpr llvm::StringLiteral kParamArgAttr = "hwagent.param";
/// `{hwagent.name = "..."}`: the name a trainer binds the value by.
inline constexpr llvm::StringLiteral kNameArgAttr = "hwagent.name";
/// `{hwagent.role = "label"}`: an argument's role (input, label).
inline constexpr llvm::StringLiteral kRoleArgAttr = "hwagent.role";
/// `{hwagent.input = "one_hot"}`: f32 rows that are one-hot labels.
inline constexpr llvm::StringLiteral kInputArgAttr = "hwagent.input";

} // namespace mlir::hwagent

#endif // HWAGENT_IR_HWAGENTDIALECT_H
