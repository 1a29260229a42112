//===- HwAgentOps.td - hwagent operations ------------------*- tablegen -*-===//

#ifndef HWAGENT_IR_HWAGENTOPS_TD
#define HWAGENT_IR_HWAGENTOPS_TD

include "HwAgent/IR/HwAgentBase.td"
include "HwAgent/IR/HwAgentAttrs.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def HwAgent_RegionOp : HwAgent_Op<"region", [
    IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects
  ]> {
  let summary = "A region of a training graph placed as one unit";
  let description = [{
    A convex cluster of ops that the partitioner places on one backend. The
    body is isolated from above: every value it uses comes in through an
    operand, bound to the body argument of the same position, and leaves
    through `hwagent.yield`. `id` is stable and unique within the enclosing
    function; the optional `features`, `costs` and `backend` attributes are
    filled by `hwagent-profile`, `hwagent-estimate-costs` and
    `hwagent-assign-backends`, which also puts each region in a `program`
    (printed after the id): the regions of one program share a backend and
    are launched together (`#hwagent.program` on the function describes it).

    Example:
    ```mlir
    %r = hwagent.region 0 program 0 (%x = %arg0 : tensor<4x8xf32>, %w = %arg1 : tensor<8x16xf32>)
        -> (tensor<4x16xf32>) attributes {backend = #hwagent.backend<cpu>} {
      %e = tensor.empty() : tensor<4x16xf32>
      %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>)
                         outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
      hwagent.yield %m : tensor<4x16xf32>
    }
    ```
  }];
  let arguments = (ins
    I64Attr:$id,
    Variadic<AnyType>:$inputs,
    OptionalAttr<HwAgent_FeaturesAttr>:$features,
    OptionalAttr<HwAgent_CostsAttr>:$costs,
    OptionalAttr<HwAgent_BackendAttr>:$backend,
    OptionalAttr<I64Attr>:$program
  );
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    /// Creates a region with an entry block whose arguments mirror `inputs`.
    OpBuilder<(ins "int64_t":$id, "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    YieldOp getYield();
  }];
}

def HwAgent_YieldOp : HwAgent_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"RegionOp">
  ]> {
  let summary = "Returns the results of an hwagent.region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def HwAgent_TransferOp : HwAgent_Op<"transfer", [Pure]> {
  let summary = "Moves a tensor between backends, converting it on the way";
  let description = [{
    Marks a boundary between two backends. The result may change the element
    type between floating-point types (e.g. f32 to f16 for the ANE, which
    computes in f16 only) and the layout by a permutation of the dimensions;
    anything else (integer to float, a different shape) cannot happen on a
    boundary and is rejected.

    Example:
    ```mlir
    %h = hwagent.transfer %x from cpu to ane : tensor<1x64xf32> -> tensor<1x64xf16>
    %t = hwagent.transfer %y from ane to cpu permutation [1, 0]
           : tensor<8x4xf16> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$input,
    HwAgent_BackendAttr:$source,
    HwAgent_BackendAttr:$destination,
    OptionalAttr<DenseI64ArrayAttr>:$permutation
  );
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `from` custom<Backend>($source) `to` custom<Backend>($destination)
    (`permutation` $permutation^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes that cross the boundary (the input's size); -1 when dynamic.
    int64_t getTransferredBytes();
  }];
}

#endif // HWAGENT_IR_HWAGENTOPS_TD
