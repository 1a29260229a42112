//===- AssignBackends.cpp - hwagent-assign-backends -----------------------===//
//
// Places every region with the program-aware partitioner
// (HwAgent/Core/Programs.h) and applies the placement: each region's
// backend and program, the function's programs, the module's objective and
// power cap, the explanations. It only places: the report model of what it
// decided (HwAgent/Analysis/ReportModel.h) goes to the report writer the
// tool registered, which writes the JSON, DOT, summary and HTML outputs.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/Partitioner.h"
#include "HwAgent/Analysis/ReportModel.h"
#include "HwAgent/Core/Limits.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::hwagent {
#define GEN_PASS_DEF_ASSIGNBACKENDS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

namespace {
struct AssignBackendsPass
    : public hwagent::impl::AssignBackendsBase<AssignBackendsPass> {
  using AssignBackendsBase::AssignBackendsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto *dialect = getContext().getLoadedDialect<HwAgentDialect>();
    TargetAttr target = dialect->getTargetAttrHelper().getAttr(module);
    // The runtime's range, in its words (hwcore's Limits.h): a cap
    // hwagent-opt accepts is one a session accepts.
    if (std::string error = cm::checkPowerCap(powerCap); !error.empty()) {
      mlir::emitError(module.getLoc()) << "hwagent-assign-backends: " << error;
      return signalPassFailure();
    }
    std::vector<SolvedPartition> solved;
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      bool hasRegions = false;
      function->walk([&](RegionOp) { hasRegions = true; });
      if (!hasRegions)
        continue;
      if (!target) {
        mlir::emitError(module.getLoc())
            << "hwagent-assign-backends: the module has no "
               "'hwagent.target'; run hwagent-estimate-costs "
               "first";
        return signalPassFailure();
      }
      FailureOr<SolvedPartition> entry = place(module, function, target);
      if (failed(entry))
        return signalPassFailure();
      solved.push_back(std::move(*entry));
    }
    for (SolvedPartition &entry : solved)
      apply(entry);
    recordGoal(module);
    if (failed(writeOutputs(module, target, solved)))
      return signalPassFailure();
  }

  /// Solves `function` under the strategy asked for (and every other one
  /// when a report compares them); fails when nothing the target can run
  /// was found, or, for optimal, nothing under the power cap.
  FailureOr<SolvedPartition>
  place(ModuleOp module, FunctionOpInterface function, TargetAttr target) {
    auto *dialect = getContext().getLoadedDialect<HwAgentDialect>();
    BoolAttr training = dialect->getTrainingAttrHelper().getAttr(module);
    IntegerAttr updateEvery =
        dialect->getUpdateEveryAttrHelper().getAttr(module);
    FailureOr<FunctionPartition> partition = FunctionPartition::build(
        function, target, !training || training.getValue(),
        updateEvery ? updateEvery.getInt() : 1, objective, powerCap);
    if (failed(partition))
      return failure();
    SolvedPartition entry{std::move(*partition), {}, strategy};
    // Every strategy when the summary or the report compares them; else
    // only the one asked for (on 100k ops the others cost a second).
    bool compare = summary || !report.empty() || !html.empty();
    for (cm::Strategy each : cm::kAllStrategies) {
      if (!compare && each != strategy)
        continue;
      FailureOr<cm::StepSolution> result = entry.partition.solve(each);
      if (failed(result))
        return failure();
      entry.results[each] = std::move(*result);
    }
    if (!entry.plan().legal())
      return function.emitError() << "hwagent-assign-backends: strategy '"
                                  << cm::strategyName(strategy)
                                  << "' found no placement the target can run";
    if (powerCap > 0 && entry.plan().objective >= cm::kOverCap) {
      const cm::StepPlan &plan = entry.plan();
      bool optimal = strategy == cm::Strategy::optimal;
      InFlightDiagnostic diag =
          optimal ? function.emitError() : function.emitWarning();
      diag << "hwagent-assign-backends: no placement "
           << (optimal ? "found"
                       : "of strategy '" +
                             std::string(cm::strategyName(strategy)) + "'")
           << " fits power-cap="
           << llvm::formatv(powerCap >= 0.01 ? "{0:f2}" : "{0:e2}",
                            static_cast<double>(powerCap))
           << " W: the lowest average power " << (optimal ? "found " : "")
           << "is " << llvm::formatv("{0:f2}", plan.averagePower())
           << " W (modelled) at " << formatSeconds(plan.total) << " per step";
      if (optimal)
        return failure();
    }
    return entry;
  }

  /// The runtime's sessions optimize what the placement was made for.
  void recordGoal(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    auto *dialect = ctx->getLoadedDialect<HwAgentDialect>();
    if (objective != cm::Objective::time)
      dialect->getObjectiveAttrHelper().setAttr(
          module, ObjectiveAttr::get(
                      ctx, static_cast<Objective>(objective.getValue())));
    else
      dialect->getObjectiveAttrHelper().removeAttr(module);
    if (powerCap > 0)
      dialect->getPowerCapAttrHelper().setAttr(
          module,
          FloatAttr::get(Float64Type::get(ctx), static_cast<double>(powerCap)));
    else
      dialect->getPowerCapAttrHelper().removeAttr(module);
  }

  /// Sets every region's backend and program, the function's programs, and
  /// emits the explanations.
  void apply(SolvedPartition &entry) {
    MLIRContext *ctx = &getContext();
    const FunctionPartition &p = entry.partition;
    const cm::StepPlan &plan = entry.plan();
    for (auto [node, region] : llvm::enumerate(p.getRegions())) {
      region.setBackendAttr(BackendAttr::get(
          ctx, static_cast<Backend>(p.getBackend(plan.labels[node]))));
      region.setProgramAttr(
          IntegerAttr::get(IntegerType::get(ctx, 64), plan.programOf[node]));
    }
    SmallVector<Attribute> programs;
    for (unsigned index = 0; index < plan.programs.size(); ++index)
      programs.push_back(programAttr(entry, index));
    ctx->getLoadedDialect<HwAgentDialect>()->getProgramsAttrHelper().setAttr(
        p.getFunction(), ArrayAttr::get(ctx, programs));
    numPrograms += plan.programs.size();
    numEvaluations += entry.solution().evaluations;
    numMoves += entry.solution().moves;
    if (!explain)
      return;
    bool margins = p.getRegions().size() <= kExactMarginRegions;
    for (unsigned index = 0; index < plan.programs.size(); ++index)
      mlir::emitRemark(
          p.getRegions()[plan.programs[index].regions.front()].getLoc())
          << p.describeProgram(plan, index);
    for (auto [node, region] : llvm::enumerate(p.getRegions()))
      mlir::emitRemark(region.getLoc()) << p.explain(node, plan, margins);
  }

  ProgramAttr programAttr(const SolvedPartition &entry, unsigned index) {
    MLIRContext *ctx = &getContext();
    const FunctionPartition &p = entry.partition;
    const cm::StepPlan &plan = entry.plan();
    const cm::Program &program = plan.programs[index];
    SmallVector<int64_t> ids;
    for (unsigned v : program.regions)
      ids.push_back(p.getRegions()[v].getIdAttr().getInt());
    // Every backend's cost at the peak clock (the runtime clocks them under
    // a cap itself: hwagent_clock_info_t); the plan's own cost is clocked.
    SmallVector<BackendCostAttr> costs;
    for (unsigned label = 0; label < p.getGraph().numLabels(); ++label) {
      auto backend = static_cast<Backend>(p.getBackend(label));
      cm::ProgramCost cost = label == program.label && plan.clock >= 1
                                 ? program.cost
                                 : p.programCostOn(plan, index, label);
      if (!cost.legal) {
        costs.push_back(BackendCostAttr::get(ctx, backend, APFloat(0.0), false,
                                             cost.reason));
        continue;
      }
      std::string note = std::string(cost.bindingTerm()) + "-bound";
      if (cost.mode != cm::WeightUpdate::none)
        note += std::string(", weights ") + cm::weightUpdateName(cost.mode);
      costs.push_back(BackendCostAttr::get(
          ctx, backend, APFloat(roundSeconds(cost.seconds)), true, note));
    }
    return ProgramAttr::get(
        ctx, index, static_cast<Backend>(p.getBackend(program.label)),
        DenseI64ArrayAttr::get(ctx, ids), CostsAttr::get(ctx, costs),
        static_cast<WeightUpdate>(program.cost.mode), program.cost.weightBytes);
  }

  /// Hands the report model to the writer the tool registered.
  LogicalResult writeOutputs(ModuleOp module, TargetAttr target,
                             ArrayRef<SolvedPartition> solved) {
    ReportOutputs outputs;
    outputs.json = report;
    outputs.dot = dot;
    outputs.html = html;
    outputs.summary = summary;
    if (!outputs.any())
      return success();
    auto *writer = getContext()
                       .getLoadedDialect<HwAgentDialect>()
                       ->getRegisteredInterface<PartitionReportWriter>();
    if (!writer)
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: this tool registers no report "
                "writer for report=, dot=, html= or summary=";
    // Explanations (priced exactly, the costliest part) only where a
    // report shows them: the JSON and the page.
    bool explanations = !outputs.json.empty() || !outputs.html.empty();
    std::string error = writer->write(
        describePartition(target, strategy, solved, explanations), outputs);
    if (!error.empty())
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: " << error;
    return success();
  }
};
} // namespace
