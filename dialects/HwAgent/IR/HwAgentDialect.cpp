//===- HwAgentDialect.cpp - hwagent dialect -------------------------------===//

#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

#include "HwAgent/Core/Vocabulary.h"

using namespace mlir;
using namespace mlir::hwagent;

#include "HwAgent/IR/HwAgentOpsDialect.cpp.inc"

// One vocabulary: the ODS enums have the values of the core's (where each
// word is declared; the runtime's C header is tied to it too), so that
// values cross floors by a cast.
#define HWAGENT_SAME_VALUE(ods, core)                                          \
  static_assert(static_cast<int64_t>(ods) == static_cast<int64_t>(core),       \
                #ods " and " #core " differ")
HWAGENT_SAME_VALUE(Backend::cpu, ::hwcore::BackendKind::cpu);
HWAGENT_SAME_VALUE(Backend::ane, ::hwcore::BackendKind::ane);
HWAGENT_SAME_VALUE(Backend::gpu, ::hwcore::BackendKind::gpu);
static_assert(static_cast<unsigned>(getMaxEnumValForBackend()) + 1 ==
                  ::hwcore::kNumBackendKinds,
              "a dialect Backend per hwcore::BackendKind");
HWAGENT_SAME_VALUE(WeightUpdate::none, ::hwcore::WeightUpdate::none);
HWAGENT_SAME_VALUE(WeightUpdate::input, ::hwcore::WeightUpdate::input);
HWAGENT_SAME_VALUE(WeightUpdate::recompile, ::hwcore::WeightUpdate::recompile);
HWAGENT_SAME_VALUE(WeightUpdate::reload, ::hwcore::WeightUpdate::reload);
static_assert(static_cast<unsigned>(getMaxEnumValForWeightUpdate()) + 1 ==
                  ::hwcore::kNumWeightUpdates,
              "a dialect WeightUpdate per hwcore::WeightUpdate");
HWAGENT_SAME_VALUE(Objective::time, ::hwcore::Objective::time);
HWAGENT_SAME_VALUE(Objective::energy, ::hwcore::Objective::energy);
HWAGENT_SAME_VALUE(Objective::edp, ::hwcore::Objective::edp);
static_assert(static_cast<unsigned>(getMaxEnumValForObjective()) + 1 ==
                  ::hwcore::kNumObjectives,
              "a dialect Objective per hwcore::Objective");
HWAGENT_SAME_VALUE(OpKind::conv, ::hwcore::WorkKind::conv);
HWAGENT_SAME_VALUE(OpKind::depthwise, ::hwcore::WorkKind::depthwise);
HWAGENT_SAME_VALUE(OpKind::matmul, ::hwcore::WorkKind::matmul);
HWAGENT_SAME_VALUE(OpKind::elementwise, ::hwcore::WorkKind::elementwise);
HWAGENT_SAME_VALUE(OpKind::reduction, ::hwcore::WorkKind::reduction);
HWAGENT_SAME_VALUE(OpKind::normalization, ::hwcore::WorkKind::normalization);
HWAGENT_SAME_VALUE(OpKind::pooling, ::hwcore::WorkKind::pooling);
HWAGENT_SAME_VALUE(OpKind::data_movement, ::hwcore::WorkKind::data_movement);
HWAGENT_SAME_VALUE(OpKind::control_flow, ::hwcore::WorkKind::control_flow);
HWAGENT_SAME_VALUE(OpKind::opaque, ::hwcore::WorkKind::opaque);
static_assert(kNumOpKinds == ::hwcore::kNumWorkKinds, "an OpKind per WorkKind");
HWAGENT_SAME_VALUE(Phase::unknown, ::hwcore::Phase::unknown);
HWAGENT_SAME_VALUE(Phase::forward, ::hwcore::Phase::forward);
HWAGENT_SAME_VALUE(Phase::backward, ::hwcore::Phase::backward);
HWAGENT_SAME_VALUE(Phase::optimizer, ::hwcore::Phase::optimizer);
HWAGENT_SAME_VALUE(Phase::mixed, ::hwcore::Phase::mixed);
#undef HWAGENT_SAME_VALUE

void HwAgentDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "HwAgent/IR/HwAgentOps.cpp.inc"
      >();
}

LogicalResult HwAgentDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what;
  };
  if (name == TargetAttrHelper::getNameStr())
    return expect(isa<TargetAttr>(attr.getValue()), "a #hwagent.target");
  if (name == FeaturesAttrHelper::getNameStr())
    return expect(isa<FeaturesAttr>(attr.getValue()), "a #hwagent.features");
  if (name == PhaseAttrHelper::getNameStr())
    return expect(isa<PhaseAttr>(attr.getValue()), "a #hwagent.phase");
  if (name == WeightsAsInputsAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(attr.getValue()) && isa<ModuleOp>(op),
                  "a unit attribute on a module");
  if (name == TrainingAttrHelper::getNameStr())
    return expect(isa<BoolAttr>(attr.getValue()), "a boolean");
  if (name == UpdateEveryAttrHelper::getNameStr()) {
    auto every = dyn_cast<IntegerAttr>(attr.getValue());
    return expect(every && every.getType().isSignlessInteger() &&
                      every.getValue().getSExtValue() >= 1,
                  "an integer >= 1");
  }
  if (name == ObjectiveAttrHelper::getNameStr())
    return expect(isa<ObjectiveAttr>(attr.getValue()) && isa<ModuleOp>(op),
                  "a #hwagent.objective (time, energy, edp) on a module");
  if (name == PowerCapAttrHelper::getNameStr()) {
    auto cap = dyn_cast<FloatAttr>(attr.getValue());
    return expect(cap && isa<ModuleOp>(op) &&
                      std::isfinite(cap.getValueAsDouble()) &&
                      cap.getValueAsDouble() >= 0,
                  "a finite number of watts >= 0 on a module");
  }
  if (name == KeyAttrHelper::getNameStr())
    return expect(isa<StringAttr>(attr.getValue()), "a string");
  if (name == BoundaryAttrHelper::getNameStr())
    return expect(isa<arith::ExtFOp, arith::TruncFOp>(op) &&
                      isa<UnitAttr>(attr.getValue()),
                  "a unit attribute on an arith.extf or arith.truncf");
  if (name == ProgramsAttrHelper::getNameStr()) {
    auto programs = dyn_cast<ArrayAttr>(attr.getValue());
    if (!programs || !llvm::all_of(programs, [](Attribute a) {
          return isa<ProgramAttr>(a);
        }))
      return expect(false, "an array of #hwagent.program");
    return success();
  }
  return success();
}
