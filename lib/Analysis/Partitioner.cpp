//===- Partitioner.cpp - region graph and backend assignment --------------===//

#include "hwagent/Analysis/Partitioner.h"

#include "hwagent/Analysis/FeatureModels.h"
#include "hwagent/CostModel/CostModel.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

const char *hwagent::stringifyPartitionStrategy(PartitionStrategy strategy) {
  switch (strategy) {
  case PartitionStrategy::Optimal:
    return "optimal";
  case PartitionStrategy::Greedy:
    return "greedy";
  case PartitionStrategy::Local:
    return "local";
  case PartitionStrategy::Cpu:
    return "cpu";
  case PartitionStrategy::Ane:
    return "ane";
  }
  return "optimal";
}

std::string hwagent::formatSeconds(double seconds) {
  if (std::isinf(seconds))
    return "illegal";
  if (seconds < 1e-3)
    return llvm::formatv("{0:f1} us", seconds * 1e6).str();
  if (seconds < 1.0)
    return llvm::formatv("{0:f2} ms", seconds * 1e3).str();
  return llvm::formatv("{0:f2} s", seconds).str();
}

FailureOr<FunctionPartition>
FunctionPartition::build(FunctionOpInterface function,
                         const cm::TargetDescription &target) {
  FunctionPartition partition;
  partition.function = function;
  partition.target = &target;
  for (unsigned kind = 0; kind < cm::kNumBackendKinds; ++kind)
    if (target.lookup(static_cast<cm::BackendKind>(kind)))
      partition.labels.push_back(static_cast<cm::BackendKind>(kind));
  unsigned L = partition.labels.size();

  llvm::DenseMap<Operation *, unsigned> nodeOf;
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block)
      if (auto region = dyn_cast<RegionOp>(op)) {
        nodeOf[region] = partition.regions.size();
        partition.regions.push_back(region);
      }
  unsigned host = partition.regions.size();

  cm::PartitionProblem &problem = partition.problem;
  problem.numLabels = L;
  for (RegionOp region : partition.regions) {
    CostsAttr costs = region.getCostsAttr();
    if (!costs)
      return region.emitOpError()
             << "has no costs; run hwagent-estimate-costs first";
    std::vector<double> unary(L, cm::kIllegal);
    bool anyLegal = false;
    for (unsigned label = 0; label < L; ++label) {
      BackendCostAttr entry =
          costs.lookup(static_cast<Backend>(partition.labels[label]));
      if (!entry)
        return region.emitOpError()
               << "has no cost for backend '"
               << cm::backendName(partition.labels[label]) << "' of target '"
               << target.name
               << "'; run hwagent-estimate-costs with the same target";
      if (entry.getLegal()) {
        unary[label] = entry.getSeconds().convertToDouble();
        anyLegal = true;
      }
    }
    if (!anyLegal)
      return region.emitOpError()
             << "cannot run on any backend of target '" << target.name << "'";
    problem.addNode(std::move(unary));
  }
  // The host (function arguments and results, ops between regions) stays on
  // the CPU.
  std::vector<double> hostCosts(L, cm::kIllegal);
  for (unsigned label = 0; label < L; ++label)
    if (partition.labels[label] == cm::BackendKind::cpu)
      hostCosts[label] = 0;
  if (std::all_of(hostCosts.begin(), hostCosts.end(),
                  [](double c) { return std::isinf(c); }))
    return function.emitError() << "target '" << target.name
                                << "' has no cpu backend for the host";
  problem.addNode(hostCosts);

  auto addFlow = [&](unsigned from, unsigned to, Value value) {
    if (from == to)
      return;
    RegionFlow flow;
    flow.from = from;
    flow.to = to;
    flow.value = value;
    flow.bytes = countBytes(value.getType());
    Type element = getElementTypeOrSelf(value.getType());
    flow.floatData = isa<ShapedType>(value.getType()) &&
                     isa<FloatType>(element) && !element.isF16();
    partition.flows.push_back(flow);
  };
  auto nodeOfValue = [&](Value value) {
    if (Operation *def = value.getDefiningOp())
      if (auto it = nodeOf.find(def); it != nodeOf.end())
        return it->second;
    return host;
  };
  for (auto [index, region] : llvm::enumerate(partition.regions)) {
    llvm::SmallPtrSet<Value, 8> seen;
    for (Value input : region.getInputs())
      if (seen.insert(input).second)
        addFlow(nodeOfValue(input), index, input);
    // Results read outside regions (returned, or used by host ops).
    for (Value result : region.getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !isa<RegionOp>(user);
          }))
        addFlow(index, host, result);
  }

  // One edge per ordered pair of nodes, summing its flows.
  std::map<std::pair<unsigned, unsigned>, std::vector<double>> edges;
  for (const RegionFlow &flow : partition.flows) {
    std::vector<double> &cost = edges[{flow.from, flow.to}];
    cost.resize(L * L, 0.0);
    for (unsigned a = 0; a < L; ++a)
      for (unsigned b = 0; b < L; ++b)
        cost[a * L + b] += partition.flowCost(flow, a, b);
  }
  for (auto &[ends, cost] : edges)
    problem.addEdge(ends.first, ends.second, std::move(cost));
  return partition;
}

double FunctionPartition::flowCost(const RegionFlow &flow, unsigned a,
                                   unsigned b) const {
  if (a == b)
    return 0;
  cm::BackendKind from = labels[a], to = labels[b];
  bool converts = flow.floatData &&
                  ((from == cm::BackendKind::ane) != (to == cm::BackendKind::ane));
  return cm::boundaryCost(target->link(from, to), flow.bytes, converts);
}

double FunctionPartition::boundaryCost(unsigned node,
                                       const std::vector<unsigned> &assigned) const {
  double total = 0;
  for (const RegionFlow &flow : flows)
    if (flow.from == node || flow.to == node)
      total += flowCost(flow, assigned[flow.from], assigned[flow.to]);
  return total;
}

double FunctionPartition::totalBoundaryCost(
    const std::vector<unsigned> &assigned) const {
  double total = 0;
  for (const RegionFlow &flow : flows)
    total += flowCost(flow, assigned[flow.from], assigned[flow.to]);
  return total;
}

FailureOr<cm::PartitionResult>
FunctionPartition::solve(PartitionStrategy strategy) const {
  cm::SolveOptions options;
  auto labelOf = [&](cm::BackendKind kind) -> std::optional<unsigned> {
    for (unsigned label = 0; label < labels.size(); ++label)
      if (labels[label] == kind)
        return label;
    return std::nullopt;
  };
  switch (strategy) {
  case PartitionStrategy::Optimal:
    options.strategy = cm::Strategy::Optimal;
    break;
  case PartitionStrategy::Local:
    options.strategy = cm::Strategy::Local;
    break;
  case PartitionStrategy::Greedy:
    options.strategy = cm::Strategy::Greedy;
    for (cm::BackendKind kind :
         {cm::BackendKind::ane, cm::BackendKind::gpu, cm::BackendKind::cpu})
      if (std::optional<unsigned> label = labelOf(kind))
        options.preference.push_back(*label);
    break;
  case PartitionStrategy::Cpu:
  case PartitionStrategy::Ane:
    options.strategy = cm::Strategy::Fixed;
    options.fixedLabel =
        labelOf(strategy == PartitionStrategy::Ane ? cm::BackendKind::ane
                                                   : cm::BackendKind::cpu)
            .value_or(0);
    break;
  }
  std::string error;
  std::optional<cm::PartitionResult> result =
      cm::solve(problem, options, error);
  if (!result)
    return function.emitError() << "hwagent-assign-backends: " << error;
  return *result;
}

std::string FunctionPartition::explain(unsigned node,
                                       const std::vector<unsigned> &assigned) const {
  RegionOp region = regions[node];
  unsigned chosen = assigned[node];
  auto name = [&](unsigned label) {
    std::string text = cm::backendName(labels[label]);
    if (target->lookup(labels[label])->simulated)
      text += " (simulated)";
    return text;
  };
  CostsAttr costs = region.getCostsAttr();
  std::string text = llvm::formatv("region {0} -> {1}: ",
                                   region.getIdAttr().getInt(), name(chosen));
  unsigned legal = 0;
  std::string illegal;
  for (unsigned label = 0; label < labels.size(); ++label) {
    if (label)
      text += ", ";
    text += cm::backendName(labels[label]);
    BackendCostAttr entry = costs.lookup(static_cast<Backend>(labels[label]));
    if (std::isinf(unaryCost(node, label))) {
      text += " illegal";
      illegal += (illegal.empty() ? "" : "; ") +
                 std::string(cm::backendName(labels[label])) + ": " +
                 entry.getReason().str();
    } else {
      text += " " + formatSeconds(unaryCost(node, label));
      ++legal;
    }
  }
  if (legal == 1)
    return text + "; decided by legality (" + illegal + ")";

  // Runner-up: the legal label this region alone would cost least to move to.
  double chosenBoundary = boundaryCost(node, assigned);
  double bestDelta = cm::kIllegal, bestBoundary = 0;
  unsigned runnerUp = chosen;
  for (unsigned label = 0; label < labels.size(); ++label) {
    if (label == chosen || std::isinf(unaryCost(node, label)))
      continue;
    std::vector<unsigned> moved = assigned;
    moved[node] = label;
    double boundary = boundaryCost(node, moved);
    double delta = unaryCost(node, label) - unaryCost(node, chosen) + boundary -
                   chosenBoundary;
    if (delta < bestDelta) {
      bestDelta = delta;
      runnerUp = label;
      bestBoundary = boundary;
    }
  }
  text += llvm::formatv("; margin {0} over {1}", formatSeconds(bestDelta),
                        cm::backendName(labels[runnerUp]))
              .str();
  double alone = unaryCost(node, runnerUp) - unaryCost(node, chosen);
  auto term = [&](unsigned label) {
    StringRef note =
        costs.lookup(static_cast<Backend>(labels[label])).getReason();
    return note.split('-').first.str();
  };
  if (alone < 0) {
    text += llvm::formatv("; decided by boundary cost: {0} alone would be {1} "
                          "faster, but its transfers would add {2}",
                          cm::backendName(labels[runnerUp]),
                          formatSeconds(-alone),
                          formatSeconds(bestBoundary - chosenBoundary))
                .str();
  } else if (term(runnerUp) == "dispatch" && term(chosen) != "dispatch") {
    text += llvm::formatv("; decided by dispatch overhead ({0} is "
                          "dispatch-bound at this size)",
                          cm::backendName(labels[runnerUp]))
                .str();
  } else if (term(runnerUp) == "dispatch" && term(chosen) == "dispatch") {
    text += llvm::formatv("; decided by dispatch overhead (both are "
                          "dispatch-bound; {0} launches cheaper)",
                          cm::backendName(labels[chosen]))
                .str();
  } else {
    text += llvm::formatv("; decided by {0} ({1} is {0}-bound)", term(chosen),
                          cm::backendName(labels[chosen]))
                .str();
  }
  if (!illegal.empty())
    text += "; illegal elsewhere: " + illegal;
  return text;
}
