//===- HwAgentInterfaces.td - feature extraction hooks -----*- tablegen -*-===//

#ifndef HWAGENT_IR_HWAGENTINTERFACES_TD
#define HWAGENT_IR_HWAGENTINTERFACES_TD

include "mlir/IR/OpBase.td"

def HwAgent_FeatureOpInterface : OpInterface<"FeatureOpInterface"> {
  let cppNamespace = "::mlir::hwagent";
  let description = [{
    Per-op workload features (profile_workload). Ops of other dialects (linalg,
    tosa, tensor, arith, math, scf, func) get this interface as an external
    model (lib/Analysis/FeatureModels.cpp), so the profiler never switches on
    op names. Counting conventions are in docs/features.md.
  }];
  let methods = [
    InterfaceMethod<
      "The category of work the op does (histogram bucket).",
      "::mlir::hwagent::OpKind", "getOpKind">,
    InterfaceMethod<[{
        Arithmetic operations the op performs (multiply-add = 2). Dynamic
        extents count as 1, so the result is a lower bound for dynamic shapes.
      }],
      "int64_t", "getFlopCount">,
    InterfaceMethod<[{
        Operand positions that hold weights when the value comes from a
        function argument or a constant (the filter of a convolution, the
        right-hand side of a matmul). Empty for ops without weights.
      }],
      "::llvm::SmallVector<unsigned>", "getWeightOperandIndices", (ins), [{}],
      [{ return {}; }]>,
  ];
}

#endif // HWAGENT_IR_HWAGENTINTERFACES_TD
