//===- HwAgentAttrs.h - hwagent attributes ----------------------*- C++ -*-===//

#ifndef HWAGENT_IR_HWAGENTATTRS_H
#define HWAGENT_IR_HWAGENTATTRS_H

#include "HwAgent/Core/Target.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "HwAgent/IR/HwAgentEnums.h.inc"

namespace mlir {
/// Parses a double-precision floating-point literal (integers are accepted) for
/// `struct(...)` assembly formats of attributes with `APFloat` parameters.
template <> struct FieldParser<llvm::APFloat> {
  static FailureOr<llvm::APFloat> parse(AsmParser &parser) {
    double value;
    if (parser.parseFloat(value))
      return failure();
    return llvm::APFloat(value);
  }
};
} // namespace mlir

namespace mlir::hwagent {
/// Number of OpKind enumerators; the length of every features histogram.
constexpr unsigned kNumOpKinds =
    static_cast<unsigned>(getMaxEnumValForOpKind()) + 1;
} // namespace mlir::hwagent

#define GET_ATTRDEF_CLASSES
#include "HwAgent/IR/HwAgentAttrs.h.inc"

#endif // HWAGENT_IR_HWAGENTATTRS_H
