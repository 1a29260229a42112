//===- AssignBackends.cpp - hwagent-assign-backends -----------------------===//
//
// Places every region under each strategy with the program-aware
// partitioner (HwAgent/Core/Programs.h), applies the chosen one (each
// region's backend and program, the function's programs), explains it and
// writes the report, the DOT graph and the summary.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/Partitioner.h"
#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/Config/HtmlReport.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>
#include <map>

namespace mlir::hwagent {
#define GEN_PASS_DEF_ASSIGNBACKENDS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

/// Version of the partition report schema (docs/partitioning.md).
static constexpr int64_t kPartitionSchemaVersion = 4;

/// Beyond this many regions explanations do not price each region's move.
static constexpr size_t kExactMarginRegions = 3000;

/// JSON has no infinity: an illegal step time is written as null.
static llvm::json::Value seconds(double value) {
  if (!std::isfinite(value))
    return nullptr;
  return value;
}

namespace {
struct Solved {
  FunctionPartition partition;
  std::map<cm::Strategy, cm::StepSolution> results;
  cm::Strategy chosen;

  const cm::StepSolution &solution() const { return results.at(chosen); }
  const cm::StepPlan &plan() const { return solution().plan; }
};

struct AssignBackendsPass
    : public hwagent::impl::AssignBackendsBase<AssignBackendsPass> {
  using AssignBackendsBase::AssignBackendsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto *dialect = ctx->getLoadedDialect<HwAgentDialect>();
    TargetAttr target = dialect->getTargetAttrHelper().getAttr(module);
    BoolAttr training = dialect->getTrainingAttrHelper().getAttr(module);
    IntegerAttr updateEvery =
        dialect->getUpdateEveryAttrHelper().getAttr(module);

    if (!std::isfinite(static_cast<double>(powerCap)) || powerCap < 0) {
      mlir::emitError(module.getLoc())
          << "hwagent-assign-backends: power-cap must be a finite "
             "non-negative number of watts (0 = no cap), got "
          << static_cast<double>(powerCap);
      return signalPassFailure();
    }
    std::vector<Solved> solved;
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
      FailureOr<FunctionPartition> partition = FunctionPartition::build(
          function, target, !training || training.getValue(),
          updateEvery ? updateEvery.getInt() : 1, objective, powerCap);
      if (failed(partition))
        return signalPassFailure();
      Solved entry{std::move(*partition), {}, strategy};
      // Every strategy when the summary or the report compares them; else
      // only the one asked for (on 100k ops the others cost a second).
      bool compare = summary || !report.empty() || !html.empty();
      for (cm::Strategy each : cm::kAllStrategies) {
        if (!compare && each != strategy)
          continue;
        FailureOr<cm::StepSolution> result = entry.partition.solve(each);
        if (failed(result))
          return signalPassFailure();
        entry.results[each] = std::move(*result);
      }
      if (!entry.plan().legal()) {
        function.emitError() << "hwagent-assign-backends: strategy '"
                             << cm::strategyName(strategy)
                             << "' found no placement the target can run";
        return signalPassFailure();
      }
      if (powerCap > 0 && entry.plan().objective >= cm::kOverCap) {
        const cm::StepPlan &plan = entry.plan();
        InFlightDiagnostic diag = strategy == cm::Strategy::optimal
                                      ? function.emitError()
                                      : function.emitWarning();
        diag << "hwagent-assign-backends: no placement "
             << (strategy == cm::Strategy::optimal
                     ? "found"
                     : "of strategy '" +
                           std::string(cm::strategyName(strategy)) + "'")
             << " fits power-cap="
             << llvm::formatv(powerCap >= 0.01 ? "{0:f2}" : "{0:e2}",
                              static_cast<double>(powerCap))
             << " W: the lowest average power "
             << (strategy == cm::Strategy::optimal ? "found " : "") << "is "
             << llvm::formatv("{0:f2}", plan.averagePower())
             << " W (modelled) at " << formatSeconds(plan.total) << " per step";
        if (strategy == cm::Strategy::optimal)
          return signalPassFailure();
      }
      solved.push_back(std::move(entry));
    }

    for (Solved &entry : solved)
      apply(entry);
    // The runtime's sessions optimize what the placement was made for.
    if (objective != cm::Objective::time)
      dialect->getObjectiveAttrHelper().setAttr(
          module, StringAttr::get(ctx, cm::objectiveName(objective)));
    else
      dialect->getObjectiveAttrHelper().removeAttr(module);
    if (powerCap > 0)
      dialect->getPowerCapAttrHelper().setAttr(
          module,
          FloatAttr::get(Float64Type::get(ctx), static_cast<double>(powerCap)));
    else
      dialect->getPowerCapAttrHelper().removeAttr(module);
    if (summary)
      printSummary(target, solved);
    if (!report.empty() && failed(writeReport(module, target, solved)))
      return signalPassFailure();
    if (!dot.empty() && failed(writeDot(module, solved)))
      return signalPassFailure();
    if (!html.empty() && failed(writeHtml(module, target, solved)))
      return signalPassFailure();
  }

  /// Sets every region's backend and program, the function's programs, and
  /// emits the explanations.
  void apply(Solved &entry) {
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

  ProgramAttr programAttr(const Solved &entry, unsigned index) {
    MLIRContext *ctx = &getContext();
    const FunctionPartition &p = entry.partition;
    const cm::StepPlan &plan = entry.plan();
    const cm::Program &program = plan.programs[index];
    SmallVector<int64_t> ids;
    for (unsigned v : program.regions)
      ids.push_back(p.getRegions()[v].getIdAttr().getInt());
    SmallVector<BackendCostAttr> costs;
    for (unsigned label = 0; label < p.getGraph().numLabels(); ++label) {
      auto backend = static_cast<Backend>(p.getBackend(label));
      cm::ProgramCost cost = label == program.label
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

  void printSummary(TargetAttr target, ArrayRef<Solved> solved) {
    llvm::raw_ostream &os = llvm::errs();
    for (const Solved &entry : solved) {
      const FunctionPartition &p = entry.partition;
      const cm::StepGraph &graph = p.getGraph();
      const cm::StepPlan &plan = entry.plan();
      os << llvm::formatv("hwagent partition of @{0} for {1} (strategy {2}",
                          p.getFunction().getName(), target.getName(),
                          cm::strategyName(entry.chosen));
      if (graph.objective != cm::Objective::time)
        os << ", objective " << cm::objectiveName(graph.objective);
      if (graph.powerCap > 0)
        os << llvm::formatv(", power cap {0:f2} W", graph.powerCap);
      for (unsigned label = 0; label < graph.numLabels(); ++label)
        if (p.isSimulated(label))
          os << "; " << cm::backendName(p.getBackend(label))
             << " times are simulated predictions";
      os << ")\n";
      os << llvm::formatv("  {0,-7} {1,-8} {2,-8}", "region", "backend",
                          "program");
      for (unsigned label = 0; label < graph.numLabels(); ++label)
        os << llvm::formatv(" {0,12}", cm::backendName(p.getBackend(label)));
      os << "  (alone)\n";
      for (auto [node, region] : llvm::enumerate(p.getRegions())) {
        os << llvm::formatv("  {0,-7} {1,-8} {2,-8}",
                            region.getIdAttr().getInt(),
                            cm::backendName(p.getBackend(plan.labels[node])),
                            plan.programOf[node]);
        for (unsigned label = 0; label < graph.numLabels(); ++label)
          os << llvm::formatv(" {0,12}",
                              formatSeconds(p.standaloneCost(node, label)));
        os << "\n";
      }
      for (unsigned index = 0; index < plan.programs.size(); ++index)
        os << "  " << p.describeProgram(plan, index) << "\n";
      os << "  predicted step time:";
      for (auto [i, each] : llvm::enumerate(cm::kAllStrategies))
        os << (i ? ", " : " ") << cm::strategyName(each) << " "
           << formatSeconds(entry.results.at(each).plan.total);
      os << "\n";
      os << "  predicted step energy (modelled):";
      for (auto [i, each] : llvm::enumerate(cm::kAllStrategies))
        os << (i ? ", " : " ") << cm::strategyName(each) << " "
           << formatJoules(entry.results.at(each).plan.joules);
      os << llvm::formatv(
          "\n  {0}: programs {1}, boundaries {2}, static {3}, "
          "idle {4}; average power {5:f2} W\n",
          cm::strategyName(entry.chosen), formatJoules(plan.programJoules),
          formatJoules(plan.boundaryJoules), formatJoules(plan.staticJoules),
          formatJoules(plan.idleJoules),
          plan.total > 0 ? plan.joules / plan.total : 0.0);
      os << llvm::formatv("  {0}: {1} programs, programs {2}, boundaries {3}; "
                          "lower bound {4} (within {5:f1}%)\n",
                          cm::strategyName(entry.chosen), plan.programs.size(),
                          formatSeconds(plan.programSeconds),
                          formatSeconds(plan.boundarySeconds),
                          p.formatObjective(entry.solution().lowerBound),
                          gapPercent(entry.solution()));
    }
  }

  /// How far the plan's objective may be above the optimum (over a power
  /// cap: unknown, 0).
  static double gapPercent(const cm::StepSolution &s) {
    double value = s.plan.objective;
    if (!(value > 0) || !std::isfinite(value) || value >= cm::kOverCap)
      return 0;
    return 100.0 * (value - s.lowerBound) / value;
  }

  /// Writes `text` to `path`; the error names the output and the reason.
  LogicalResult writeOutput(ModuleOp module, StringRef what, StringRef path,
                            function_ref<void(raw_ostream &)> text) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
    if (!file)
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: cannot write " << what << " '" << path
             << "': " << error;
    text(file->os());
    file->os().flush();
    if (file->os().has_error()) {
      std::string message = file->os().error().message();
      file->os().clear_error();
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: cannot write " << what << " '" << path
             << "': " << message;
    }
    file->keep();
    return success();
  }

  LogicalResult writeReport(ModuleOp module, TargetAttr target,
                            ArrayRef<Solved> solved) {
    return writeOutput(module, "report", report, [&](raw_ostream &os) {
      renderReport(os, target, solved);
      os << "\n";
    });
  }

  /// The page of docs/report.md, from the report's JSON.
  LogicalResult writeHtml(ModuleOp module, TargetAttr target,
                          ArrayRef<Solved> solved) {
    std::string text;
    llvm::raw_string_ostream os(text);
    renderReport(os, target, solved);
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed)
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: "
             << llvm::toString(parsed.takeError());
    hwconfig::HtmlReportInput input;
    input.partition = std::move(*parsed);
    std::string failure;
    LogicalResult written =
        writeOutput(module, "HTML report", html, [&](raw_ostream &out) {
          if (llvm::Error error = hwconfig::writeHtmlReport(input, out))
            failure = llvm::toString(std::move(error));
        });
    if (!failure.empty())
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: " << failure;
    return written;
  }

  void renderReport(raw_ostream &os, TargetAttr target,
                    ArrayRef<Solved> solved) {
    {
      llvm::json::OStream json(os, 2);
      json.object([&] {
        json.attribute("schema", "hwagent.partition");
        json.attribute("version", kPartitionSchemaVersion);
        json.attribute("target", target ? target.getName() : "");
        json.attribute("strategy", cm::strategyName(strategy));
        json.attributeArray("simulated_backends", [&] {
          if (target)
            for (DeviceAttr device : target.getDevices())
              if (device.getSimulated() && device.getSimulated().getValue())
                json.value(stringifyBackend(device.getBackend()));
        });
        json.attributeArray("functions", [&] {
          for (const Solved &entry : solved)
            writeFunction(json, entry);
        });
      });
    }
  }

  void writeFunction(llvm::json::OStream &json, const Solved &entry) {
    const FunctionPartition &p = entry.partition;
    const cm::StepPlan &plan = entry.plan();
    auto nodeName = [&](int program) -> llvm::json::Value {
      if (program < 0)
        return "host";
      return program;
    };
    json.object([&] {
      json.attribute("name", p.getFunction().getName());
      json.attributeObject("step_time", [&] {
        for (cm::Strategy each : cm::kAllStrategies)
          json.attribute(cm::strategyName(each),
                         seconds(entry.results.at(each).plan.total));
      });
      // Joules per step under every strategy and the chosen plan's split:
      // modelled from the target's power values, never measured.
      json.attributeObject("step_energy", [&] {
        for (cm::Strategy each : cm::kAllStrategies)
          json.attribute(cm::strategyName(each),
                         seconds(entry.results.at(each).plan.joules));
      });
      json.attributeObject("energy", [&] {
        json.attribute("programs", plan.programJoules);
        json.attribute("boundaries", plan.boundaryJoules);
        json.attribute("static", plan.staticJoules);
        json.attribute("idle", plan.idleJoules);
        json.attribute("average_power",
                       plan.total > 0 ? plan.joules / plan.total : 0.0);
      });
      json.attribute("program_time", seconds(plan.programSeconds));
      json.attribute("boundary_time", seconds(plan.boundarySeconds));
      // The objective and its lower bound: seconds, joules or joule-seconds.
      json.attribute("objective", cm::objectiveName(p.getGraph().objective));
      json.attribute("power_cap", p.getGraph().powerCap);
      json.attribute("lower_bound", entry.solution().lowerBound);
      json.attribute("gap_to_lower_bound",
                     gapPercent(entry.solution()) / 100.0);
      json.attribute("evaluations", entry.solution().evaluations);
      json.attributeArray("programs", [&] {
        for (unsigned index = 0; index < plan.programs.size(); ++index) {
          const cm::Program &program = plan.programs[index];
          json.object([&] {
            json.attribute("id", index);
            json.attribute("backend",
                           cm::backendName(p.getBackend(program.label)));
            json.attributeArray("regions", [&] {
              for (unsigned v : program.regions)
                json.value(p.getRegions()[v].getIdAttr().getInt());
            });
            json.attribute("seconds", seconds(program.cost.seconds));
            json.attribute("launch", program.cost.launch);
            json.attribute("compute", program.cost.compute);
            json.attribute("memory", program.cost.memory);
            json.attribute("weights", program.cost.weights);
            json.attribute("weight_update",
                           cm::weightUpdateName(program.cost.mode));
            json.attribute("weight_bytes", program.cost.weightBytes);
            json.attribute("utilization", program.cost.utilization);
            json.attribute("joules", program.cost.joules);
            json.attribute("host_joules", program.cost.hostJoules);
            json.attribute("binding", program.cost.bindingTerm());
            json.attribute("description", p.describeProgram(plan, index));
            // Version 4: the same program on every backend.
            json.attributeObject("on_backends", [&] {
              for (unsigned label = 0; label < p.getGraph().numLabels();
                   ++label) {
                cm::ProgramCost cost =
                    label == program.label
                        ? program.cost
                        : p.programCostOn(plan, index, label);
                json.attributeObject(cm::backendName(p.getBackend(label)), [&] {
                  json.attribute("legal", cost.legal);
                  if (!cost.legal) {
                    json.attribute("reason", cost.reason);
                    return;
                  }
                  json.attribute("seconds", seconds(cost.seconds));
                  json.attribute("joules", cost.joules + cost.hostJoules);
                  json.attribute("weight_update",
                                 cm::weightUpdateName(cost.mode));
                });
              }
            });
          });
        }
      });
      bool margins = p.getRegions().size() <= kExactMarginRegions;
      json.attributeArray("regions", [&] {
        StructuralHasher hasher;
        for (auto [node, region] : llvm::enumerate(p.getRegions())) {
          json.object([&] {
            json.attribute("id", region.getIdAttr().getInt());
            json.attribute("key", hasher(region));
            json.attribute("backend",
                           cm::backendName(p.getBackend(plan.labels[node])));
            json.attribute("program", plan.programOf[node]);
            json.attributeObject("costs", [&] {
              for (BackendCostAttr cost : region.getCostsAttr().getEntries())
                json.attributeObject(stringifyBackend(cost.getBackend()), [&] {
                  json.attribute("legal", cost.getLegal());
                  if (cost.getLegal()) {
                    json.attribute(
                        "seconds",
                        seconds(cost.getSeconds().convertToDouble()));
                    json.attribute("note", cost.getReason());
                  } else {
                    json.attribute("reason", cost.getReason());
                  }
                });
            });
            json.attribute("explanation", p.explain(node, plan, margins));
            // Version 4: where the region is, its phase and features.
            std::string location;
            llvm::raw_string_ostream(location) << region.getLoc();
            json.attribute("location", location);
            if (FeaturesAttr features = region.getFeaturesAttr()) {
              json.attribute("phase", stringifyPhase(features.getPhase()));
              json.attributeObject("features", [&] {
                json.attribute("flops", features.getFlops());
                json.attribute("bytes_read", features.getBytesRead());
                json.attribute("bytes_written", features.getBytesWritten());
                json.attribute("params", features.getParams());
                json.attribute("param_bytes", features.getParamBytes());
                json.attribute("rows", features.getRows());
                json.attribute("max_dim", features.getMaxDim());
                json.attribute("dynamic_dims", features.getDynamicDims());
                json.attribute("has_loops", features.getHasLoops());
              });
            }
          });
        }
      });
      json.attributeArray("boundaries", [&] {
        for (const cm::StepPlan::Boundary &b : plan.boundaries)
          json.object([&] {
            json.attribute("from", nodeName(b.from));
            json.attribute("to", nodeName(b.to));
            json.attribute("bytes", b.bytes);
            json.attribute("converted_bytes", b.convertBytes);
            json.attribute("seconds", seconds(b.seconds));
          });
      });
    });
  }

  LogicalResult writeDot(ModuleOp module, ArrayRef<Solved> solved) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(dot, &error);
    if (!file)
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: cannot write "
                "dot file '"
             << dot << "': " << error;
    static const char *const colors[] = {"#8ecae6", "#f4a261", "#90be6d"};
    llvm::raw_fd_ostream &os = file->os();
    os << "digraph hwagent {\n  node [shape=box, style=filled];\n";
    for (auto [index, entry] : llvm::enumerate(solved)) {
      const FunctionPartition &p = entry.partition;
      const cm::StepPlan &plan = entry.plan();
      // A name comes from the input: escaped so that it cannot end the
      // label or add attributes.
      std::string name;
      for (char c : p.getFunction().getName()) {
        if (c == '"' || c == '\\')
          name += '\\';
        name += c == '\n' ? ' ' : c;
      }
      os << llvm::formatv("  subgraph cluster_{0} {\n    label=\"@{1} ({2}: "
                          "{3})\";\n",
                          index, name, cm::strategyName(entry.chosen),
                          formatSeconds(plan.total));
      // One cluster per program.
      for (auto [pi, program] : llvm::enumerate(plan.programs)) {
        unsigned kind = static_cast<unsigned>(p.getBackend(program.label));
        os << llvm::formatv(
            "    subgraph cluster_{0}_p{1} {\n      label=\"program "
            "{1}: {2} {3}\";\n      style=dashed;\n",
            index, pi, cm::backendName(p.getBackend(program.label)),
            formatSeconds(program.cost.seconds));
        for (unsigned node : program.regions)
          os << llvm::formatv(
              "      f{0}_r{1} [label=\"r{2}\\n{3}\", fillcolor=\"{4}\"];\n",
              index, node, p.getRegions()[node].getIdAttr().getInt(),
              formatSeconds(p.standaloneCost(node, program.label)),
              colors[kind]);
        os << "    }\n";
      }
      os << llvm::formatv("    f{0}_r{1} [label=\"host (cpu)\", "
                          "fillcolor=\"#dddddd\"];\n",
                          index, p.getHostNode());
      for (const RegionFlow &flow : p.getFlows()) {
        unsigned a = flow.from == p.getHostNode() ? p.getGraph().hostLabel
                                                  : plan.labels[flow.from];
        unsigned b = flow.to == p.getHostNode() ? p.getGraph().hostLabel
                                                : plan.labels[flow.to];
        double cost = p.flowCost(flow, a, b);
        os << llvm::formatv(
            "    f{0}_r{1} -> f{0}_r{2} [label=\"{3} B{4}\"{5}];\n", index,
            flow.from, flow.to, flow.bytes,
            cost > 0 ? "\\n" + formatSeconds(cost) : std::string(),
            cost > 0 ? ", color=red" : "");
      }
      os << "  }\n";
    }
    os << "}\n";
    os.flush();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      return mlir::emitError(module.getLoc())
             << "hwagent-assign-backends: cannot write "
                "dot file '"
             << dot << "': " << message;
    }
    file->keep();
    return success();
  }
};
} // namespace
