//===- FormRegions.cpp - hwagent-form-regions -----------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Transforms/RegionFormation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_FORMREGIONS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

namespace {
struct FormRegionsPass
    : public hwagent::impl::FormRegionsBase<FormRegionsPass> {
  using FormRegionsBase::FormRegionsBase;

  /// Upstream's tensor.expand_shape verifier accepts a static output_shape
  /// that disagrees with the result type, which bufferization then rejects
  /// deep in the lowering: refuse it here, at the op.
  static LogicalResult checkReshapes(ModuleOp module) {
    WalkResult result = module.walk([](tensor::ExpandShapeOp op) {
      RankedTensorType type = op.getResultType();
      for (auto [index, size] : llvm::enumerate(op.getStaticOutputShape()))
        if (!ShapedType::isDynamic(size) && !type.isDynamicDim(index) &&
            size != type.getDimSize(index)) {
          op.emitOpError() << "output_shape[" << index << "] = " << size
                           << " disagrees with the result type's size "
                           << type.getDimSize(index)
                           << " (hwagent-form-regions)";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkReshapes(module)))
      return signalPassFailure();
    // Functions reached through calls are costed at their call sites.
    llvm::DenseSet<StringAttr> callees;
    if (!includeCallees)
      module.walk([&](CallOpInterface call) {
        if (auto symbol = dyn_cast_or_null<SymbolRefAttr>(
                call.getCallableForCallee().dyn_cast<SymbolRefAttr>()))
          callees.insert(symbol.getLeafReference());
      });

    // Constants computed from constants are folded first: they are cloned
    // into their users like any constant instead of becoming regions.
    for (auto function : module.getOps<FunctionOpInterface>())
      if (!function.isExternal() && !callees.contains(function.getNameAttr()))
        numConstantsFolded += foldConstantComputations(function);

    RegionFormationOptions options;
    options.granularity = granularity;
    options.maxOpsPerRegion = maxOps;
    WorkloadProfiler profiler(module);
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal() || callees.contains(function.getNameAttr()))
        continue;
      FailureOr<RegionFormationStats> stats =
          formRegions(function, profiler, options);
      if (failed(stats))
        return signalPassFailure();
      numRegions += stats->regionsFormed;
      numOpsClustered += stats->opsClustered;
    }
  }
};
} // namespace
