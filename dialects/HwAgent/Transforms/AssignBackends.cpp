//===- AssignBackends.cpp - hwagent-assign-backends -----------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "hwagent/Analysis/Partitioner.h"
#include "hwagent/Analysis/StructuralHash.h"
#include "hwagent/CostModel/Target.h"
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
static constexpr int64_t kPartitionSchemaVersion = 1;

namespace {
struct Solved {
  FunctionPartition partition;
  std::map<PartitionStrategy, cm::PartitionResult> results;
  PartitionStrategy chosen;

  const std::vector<unsigned> &labels() const {
    return results.at(chosen).labels;
  }
};

struct AssignBackendsPass
    : public hwagent::impl::AssignBackendsBase<AssignBackendsPass> {
  using AssignBackendsBase::AssignBackendsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    std::optional<cm::TargetDescription> targetDesc =
        cm::resolveTarget(target, error);
    if (!targetDesc) {
      module.emitError() << "hwagent-assign-backends: " << error;
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
      FailureOr<FunctionPartition> partition =
          FunctionPartition::build(function, *targetDesc);
      if (failed(partition))
        return signalPassFailure();
      Solved entry{std::move(*partition), {}, strategy};
      for (PartitionStrategy each : kAllStrategies) {
        FailureOr<cm::PartitionResult> result = entry.partition.solve(each);
        if (failed(result))
          return signalPassFailure();
        entry.results[each] = std::move(*result);
      }
      solved.push_back(std::move(entry));
    }

    MLIRContext *ctx = &getContext();
    for (Solved &entry : solved) {
      MutableArrayRef<RegionOp> regions = entry.partition.getRegions();
      for (auto [node, region] : llvm::enumerate(regions)) {
        unsigned label = entry.labels()[node];
        region.setBackendAttr(BackendAttr::get(
            ctx, static_cast<Backend>(entry.partition.getLabels()[label])));
        if (explain)
          mlir::emitRemark(region.getLoc())
              << entry.partition.explain(node, entry.labels());
      }
    }

    if (summary)
      printSummary(*targetDesc, solved);
    if (!report.empty() && failed(writeReport(module, *targetDesc, solved)))
      return signalPassFailure();
    if (!dot.empty() && failed(writeDot(module, solved)))
      return signalPassFailure();
  }

  void printSummary(const cm::TargetDescription &targetDesc,
                    ArrayRef<Solved> solved) {
    llvm::raw_ostream &os = llvm::errs();
    for (const Solved &entry : solved) {
      const FunctionPartition &p = entry.partition;
      os << llvm::formatv("hwagent partition of @{0} for {1} (strategy {2}",
                          p.getFunction().getName(), targetDesc.name,
                          stringifyPartitionStrategy(entry.chosen));
      for (cm::BackendKind kind : p.getLabels())
        if (targetDesc.lookup(kind)->simulated)
          os << "; " << cm::backendName(kind)
             << " times are simulated predictions";
      os << ")\n";
      os << llvm::formatv("  {0,-7} {1,-8}", "region", "backend");
      for (cm::BackendKind kind : p.getLabels())
        os << llvm::formatv(" {0,12}", cm::backendName(kind));
      os << llvm::formatv(" {0,12}\n", "boundaries");
      for (auto [node, region] : llvm::enumerate(p.getRegions())) {
        unsigned label = entry.labels()[node];
        os << llvm::formatv("  {0,-7} {1,-8}", region.getIdAttr().getInt(),
                            cm::backendName(p.getLabels()[label]));
        for (unsigned l = 0; l < p.getLabels().size(); ++l)
          os << llvm::formatv(" {0,12}", formatSeconds(p.unaryCost(node, l)));
        os << llvm::formatv(" {0,12}\n",
                            formatSeconds(p.boundaryCost(node, entry.labels())));
      }
      os << "  predicted step time:";
      for (PartitionStrategy each : kAllStrategies)
        os << " " << stringifyPartitionStrategy(each) << " "
           << formatSeconds(entry.results.at(each).objective)
           << (each == PartitionStrategy::Ane ? "\n" : ",");
      os << "  boundaries (" << stringifyPartitionStrategy(entry.chosen)
         << "): " << formatSeconds(p.totalBoundaryCost(entry.labels())) << "\n";
    }
  }

  LogicalResult writeReport(ModuleOp module,
                            const cm::TargetDescription &targetDesc,
                            ArrayRef<Solved> solved) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(report, &error);
    if (!file)
      return module.emitError() << "hwagent-assign-backends: cannot write "
                                   "report '"
                                << report << "': " << error;
    {
      llvm::json::OStream json(file->os(), 2);
      json.object([&] {
        json.attribute("schema", "hwagent.partition");
        json.attribute("version", kPartitionSchemaVersion);
        json.attribute("target", targetDesc.name);
        json.attribute("strategy", stringifyPartitionStrategy(strategy));
        json.attributeArray("simulated_backends", [&] {
          for (const cm::BackendDescription &b : targetDesc.backends)
            if (b.simulated)
              json.value(cm::backendName(b.kind));
        });
        json.attributeArray("functions", [&] {
          for (const Solved &entry : solved)
            writeFunction(json, entry);
        });
      });
    }
    file->os() << "\n";
    file->keep();
    return success();
  }

  void writeFunction(llvm::json::OStream &json, const Solved &entry) {
    const FunctionPartition &p = entry.partition;
    json.object([&] {
      json.attribute("name", p.getFunction().getName());
      json.attributeObject("step_time", [&] {
        for (PartitionStrategy each : kAllStrategies)
          json.attribute(stringifyPartitionStrategy(each),
                         entry.results.at(each).objective);
      });
      json.attribute("boundary_time", p.totalBoundaryCost(entry.labels()));
      json.attributeArray("regions", [&] {
        for (auto [node, region] : llvm::enumerate(p.getRegions())) {
          json.object([&] {
            json.attribute("id", region.getIdAttr().getInt());
            json.attribute("key", getStructuralHash(region));
            json.attribute("backend",
                           cm::backendName(p.getLabels()[entry.labels()[node]]));
            json.attributeObject("costs", [&] {
              for (BackendCostAttr cost : region.getCostsAttr().getEntries())
                json.attributeObject(stringifyBackend(cost.getBackend()), [&] {
                  json.attribute("legal", cost.getLegal());
                  if (cost.getLegal()) {
                    json.attribute("seconds",
                                   cost.getSeconds().convertToDouble());
                    json.attribute("note", cost.getReason());
                  } else {
                    json.attribute("reason", cost.getReason());
                  }
                });
            });
            json.attribute("boundary_time",
                           p.boundaryCost(node, entry.labels()));
            json.attribute("explanation", p.explain(node, entry.labels()));
          });
        }
      });
      json.attributeArray("edges", [&] {
        for (const RegionFlow &flow : p.getFlows())
          json.object([&] {
            auto nodeName = [&](unsigned node) -> llvm::json::Value {
              if (node == p.getHostNode())
                return "host";
              return p.getRegions()[node].getIdAttr().getInt();
            };
            json.attribute("from", nodeName(flow.from));
            json.attribute("to", nodeName(flow.to));
            json.attribute("bytes", flow.bytes);
            json.attribute("seconds",
                           p.flowCost(flow, entry.labels()[flow.from],
                                      entry.labels()[flow.to]));
          });
      });
    });
  }

  LogicalResult writeDot(ModuleOp module, ArrayRef<Solved> solved) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(dot, &error);
    if (!file)
      return module.emitError() << "hwagent-assign-backends: cannot write "
                                   "dot file '"
                                << dot << "': " << error;
    static const char *const colors[] = {"#8ecae6", "#f4a261", "#90be6d"};
    llvm::raw_ostream &os = file->os();
    os << "digraph hwagent {\n  node [shape=box, style=filled];\n";
    for (auto [index, entry] : llvm::enumerate(solved)) {
      const FunctionPartition &p = entry.partition;
      os << llvm::formatv("  subgraph cluster_{0} {\n    label=\"@{1} ({2}: "
                          "{3})\";\n",
                          index, p.getFunction().getName(),
                          stringifyPartitionStrategy(entry.chosen),
                          formatSeconds(entry.results.at(entry.chosen).objective));
      for (auto [node, region] : llvm::enumerate(p.getRegions())) {
        unsigned label = entry.labels()[node];
        os << llvm::formatv(
            "    f{0}_r{1} [label=\"r{1}\\n{2} {3}\", fillcolor=\"{4}\"];\n",
            index, node, cm::backendName(p.getLabels()[label]),
            formatSeconds(p.unaryCost(node, label)),
            colors[static_cast<unsigned>(p.getLabels()[label])]);
      }
      os << llvm::formatv("    f{0}_r{1} [label=\"host (cpu)\", "
                          "fillcolor=\"#dddddd\"];\n",
                          index, p.getHostNode());
      for (const RegionFlow &flow : p.getFlows()) {
        double cost = p.flowCost(flow, entry.labels()[flow.from],
                                 entry.labels()[flow.to]);
        os << llvm::formatv(
            "    f{0}_r{1} -> f{0}_r{2} [label=\"{3} B{4}\"{5}];\n", index,
            flow.from, flow.to, flow.bytes,
            cost > 0 ? "\\n" + formatSeconds(cost) : std::string(),
            cost > 0 ? ", color=red" : "");
      }
      os << "  }\n";
    }
    os << "}\n";
    file->keep();
    return success();
  }
};
} // namespace
