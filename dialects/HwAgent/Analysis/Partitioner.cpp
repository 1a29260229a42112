//===- Partitioner.cpp - the step graph of a function ---------------------===//

#include "HwAgent/Analysis/Partitioner.h"

#include "HwAgent/Analysis/FeatureModels.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

static constexpr double kInf = std::numeric_limits<double>::infinity();

double hwagent::roundSeconds(double seconds) {
  if (!std::isfinite(seconds) || seconds == 0)
    return seconds;
  double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(seconds))));
  // Below about 1e-305 s the scale overflows (inf / inf = NaN): such a value
  // is kept as it is, there is nothing to round for printing.
  if (!std::isfinite(scale))
    return seconds;
  return std::round(seconds * scale) / scale;
}

cm::RegionCost hwagent::regionCost(BackendCostAttr entry,
                                   const cm::BackendDescription &backend) {
  cm::RegionCost cost;
  cost.backend = backend.kind;
  cost.serial = backend.serialMemory;
  cost.legal = entry.getLegal();
  cost.reason = entry.getReason().str();
  if (!cost.legal)
    return cost;
  if (CostTermsAttr terms = entry.getTerms()) {
    cost.compute = terms.getCompute().convertToDouble();
    cost.computeInputWeights = terms.getInputCompute().convertToDouble();
    cost.memory = terms.getMemory().convertToDouble();
    cost.memoryInputWeights = terms.getInputMemory().convertToDouble();
    cost.regionLaunch = terms.getRegionLaunch().convertToDouble();
    cost.flops = terms.getFlops();
    cost.weightBytes = terms.getWeightBytes();
    cost.spilled = terms.getSpilled().getValue();
  } else {
    cost.compute = cost.computeInputWeights =
        entry.getSeconds().convertToDouble();
  }
  return cost;
}

/// The step graph's labels (the target's backends in the vocabulary's
/// order, the host on the CPU), links and power, before any region.
static LogicalResult makeLabels(FunctionOpInterface function, TargetAttr target,
                                cm::StepGraph &graph) {
  cm::TargetDescription description = target.toDescription();
  graph.staticPower = description.staticPower;
  for (cm::BackendKind kind : cm::kAllBackends)
    if (const cm::BackendDescription *b = description.lookup(kind))
      graph.backends.push_back(*b);
  std::optional<unsigned> cpu = graph.labelOf(cm::BackendKind::cpu);
  if (!cpu)
    return function.emitError() << "target '" << target.getName()
                                << "' has no cpu backend for the host";
  graph.hostLabel = *cpu;
  unsigned L = graph.numLabels();
  graph.links.assign(L, std::vector<cm::LinkDescription>(L));
  for (unsigned a = 0; a < L; ++a)
    for (unsigned b = 0; b < L; ++b)
      graph.links[a][b] =
          description.link(graph.backends[a].kind, graph.backends[b].kind);
  graph.telemetryFactor.assign(L, 1.0);
  return success();
}

/// Each region's cost on every label, from its `#hwagent.costs`.
static LogicalResult addRegionCosts(ArrayRef<RegionOp> regions,
                                    TargetAttr target, cm::StepGraph &graph) {
  for (RegionOp region : regions) {
    CostsAttr costs = region.getCostsAttr();
    if (!costs)
      return region.emitOpError()
             << "has no costs; run hwagent-estimate-costs first";
    std::vector<cm::RegionCost> row;
    bool anyLegal = false;
    for (unsigned label = 0; label < graph.numLabels(); ++label) {
      cm::BackendKind kind = graph.backends[label].kind;
      BackendCostAttr entry = costs.lookup(static_cast<Backend>(kind));
      if (!entry)
        return region.emitOpError()
               << "has no cost for backend '" << cm::backendName(kind)
               << "' of target '" << target.getName()
               << "'; run hwagent-estimate-costs with the same target";
      row.push_back(regionCost(entry, graph.backends[label]));
      anyLegal |= entry.getLegal();
      if (CostTermsAttr terms = entry.getTerms())
        graph.telemetryFactor[label] = terms.getTelemetry().convertToDouble();
    }
    if (!anyLegal)
      return region.emitOpError() << "cannot run on any backend of target '"
                                  << target.getName() << "'";
    graph.costs.push_back(std::move(row));
  }
  return success();
}

FailureOr<FunctionPartition>
FunctionPartition::build(FunctionOpInterface function, TargetAttr target,
                         bool training, int64_t updateEvery,
                         cm::Objective objective, double powerCap) {
  FunctionPartition p;
  p.function = function;
  cm::StepGraph &graph = p.graph;
  graph.options.training = weightsChangeEveryStep(function, training);
  graph.options.updateEvery = updateEvery;
  graph.objective = objective;
  graph.powerCap = powerCap;
  WorkloadProfiler profiler(function->getParentOp());
  llvm::SmallPtrSet<Value, 8> resident =
      residentWeights(function, training, profiler);
  if (failed(makeLabels(function, target, graph)))
    return failure();

  llvm::DenseMap<Operation *, unsigned> nodeOf;
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block)
      if (auto region = dyn_cast<RegionOp>(op)) {
        nodeOf[region] = p.regions.size();
        p.regions.push_back(region);
      }
  if (failed(addRegionCosts(p.regions, target, graph)))
    return failure();
  unsigned host = p.regions.size();
  auto addFlow = [&](unsigned from, unsigned to, Value value) {
    if (from == to || resident.contains(value))
      return;
    RegionFlow flow;
    flow.from = from;
    flow.to = to;
    flow.value = value;
    flow.bytes = countBytes(value.getType());
    Type element = getElementTypeOrSelf(value.getType());
    flow.floatData = isa<ShapedType>(value.getType()) &&
                     isa<FloatType>(element) && !element.isF16();
    p.flows.push_back(flow);
    graph.edges.push_back(
        {from, to, flow.bytes, flow.floatData ? flow.bytes : 0});
  };
  auto nodeOfValue = [&](Value value) {
    if (Operation *def = value.getDefiningOp())
      if (auto it = nodeOf.find(def); it != nodeOf.end())
        return it->second;
    return host;
  };
  // An op between regions that computes from other values (not a constant
  // or an empty tensor) or reads a region's result orders the regions
  // around it: they keep programs of their own (StepGraph::hostOrdered).
  auto betweenRegions = [&](Operation *op) {
    return op && !isa<RegionOp>(op) && !op->hasTrait<OpTrait::IsTerminator>();
  };
  graph.hostOrdered.assign(p.regions.size(), false);
  for (auto [index, region] : llvm::enumerate(p.regions)) {
    llvm::SmallPtrSet<Value, 8> seen;
    for (Value input : region.getInputs()) {
      Operation *def = input.getDefiningOp();
      if (betweenRegions(def) && def->getNumOperands() > 0)
        graph.hostOrdered[index] = true;
      if (seen.insert(input).second)
        addFlow(nodeOfValue(input), index, input);
    }
    // Results read outside regions (returned, or used by host ops).
    for (Value result : region.getResults()) {
      if (llvm::any_of(result.getUsers(), betweenRegions))
        graph.hostOrdered[index] = true;
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !isa<RegionOp>(user); }))
        addFlow(index, host, result);
    }
  }
  std::string problem = graph.validate();
  if (!problem.empty())
    return function.emitError() << "hwagent-assign-backends: " << problem;
  return p;
}

FailureOr<cm::StepSolution>
FunctionPartition::solve(cm::Strategy strategy) const {
  std::string error;
  std::optional<cm::StepSolution> solution =
      cm::solveStep(graph, strategy, error);
  if (!solution)
    return function.emitError() << "hwagent-assign-backends: " << error;
  return std::move(*solution);
}

/// The region alone as a program on `label` (illegal when it cannot run
/// there).
static cm::ProgramCost aloneOn(const cm::StepGraph &graph, unsigned region,
                               unsigned label) {
  const cm::RegionCost &cost = graph.costs[region][label];
  if (!cost.legal) {
    cm::ProgramCost illegal;
    illegal.legal = false;
    return illegal;
  }
  cm::ProgramContext context;
  context.telemetryFactor = graph.telemetryFactor[label];
  const cm::RegionCost *one = &cost;
  return cm::programCost(graph.backends[label], &one, 1, context,
                         graph.options);
}

double FunctionPartition::standaloneCost(unsigned region,
                                         unsigned label) const {
  cm::ProgramCost alone = aloneOn(graph, region, label);
  return alone.legal ? alone.seconds : kInf;
}

double FunctionPartition::standaloneEnergy(unsigned region,
                                           unsigned label) const {
  cm::ProgramCost alone = aloneOn(graph, region, label);
  return alone.legal ? cm::programEnergy(graph, alone) : kInf;
}

std::string FunctionPartition::formatObjective(double value) const {
  return hwreport::formatObjective(graph.objective, value);
}

cm::ProgramCost FunctionPartition::programCostOn(const cm::StepPlan &plan,
                                                 unsigned program,
                                                 unsigned label) const {
  const cm::Program &p = plan.programs[program];
  std::vector<const cm::RegionCost *> members;
  for (unsigned v : p.regions) {
    if (!graph.legal(v, label)) {
      cm::ProgramCost illegal;
      illegal.legal = false;
      illegal.reason = "region " +
                       std::to_string(regions[v].getIdAttr().getInt()) + ": " +
                       graph.costs[v][label].reason;
      return illegal;
    }
    members.push_back(&graph.costs[v][label]);
  }
  cm::ProgramContext context;
  context.telemetryFactor = graph.telemetryFactor[label];
  int64_t weightPrograms = 1, stepWeightBytes = 0;
  for (const cm::RegionCost *member : members)
    stepWeightBytes += member->weightBytes;
  for (const cm::Program &other : plan.programs)
    if (&other != &p && other.label == label && other.cost.weightBytes > 0) {
      ++weightPrograms;
      stepWeightBytes += other.cost.weightBytes;
    }
  context.weightPrograms = weightPrograms;
  context.stepWeightBytes = stepWeightBytes;
  return cm::programCost(graph.backends[label], members, context,
                         graph.options);
}

double FunctionPartition::flowCost(const RegionFlow &flow, unsigned a,
                                   unsigned b) const {
  if (a == b)
    return 0;
  cm::LinkDescription link = graph.links[a][b];
  link.sync = 0;
  return cm::linkCost(link, flow.bytes, flow.floatData ? flow.bytes : 0);
}

/// "ane (simulated)" for a backend this machine does not have.
static std::string labelName(const cm::StepGraph &graph, unsigned label) {
  std::string text = cm::backendName(graph.backends[label].kind);
  if (graph.backends[label].simulated)
    text += " (simulated)";
  return text;
}

std::string FunctionPartition::describeProgram(const cm::StepPlan &plan,
                                               unsigned program) const {
  const cm::Program &p = plan.programs[program];
  // Region ids with runs of three or more consecutive ones as "first-last"
  // (a program of a large graph holds thousands).
  SmallVector<int64_t> idList;
  for (unsigned v : p.regions)
    idList.push_back(regions[v].getIdAttr().getInt());
  std::string ids;
  for (size_t i = 0; i < idList.size();) {
    size_t j = i;
    while (j + 1 < idList.size() && idList[j + 1] == idList[j] + 1)
      ++j;
    if (!ids.empty())
      ids += ", ";
    if (j >= i + 2) {
      ids += std::to_string(idList[i]) + "-" + std::to_string(idList[j]);
      i = j + 1;
    } else {
      ids += std::to_string(idList[i]);
      ++i;
    }
  }
  std::string text =
      llvm::formatv("program {0} on {1}: regions [{2}], {3} "
                    "({4} launch",
                    program, labelName(graph, p.label), ids,
                    formatSeconds(p.cost.seconds), formatSeconds(p.cost.launch))
          .str();
  if (p.cost.weights > 0 || p.cost.mode != cm::WeightUpdate::none) {
    static const char *const modes[] = {"static weights", "weights as inputs",
                                        "recompiled with new weights",
                                        "weights reloaded"};
    text += llvm::formatv(", {0}", modes[static_cast<unsigned>(p.cost.mode)]);
    if (p.cost.weights > 0)
      text += " " + formatSeconds(p.cost.weights);
    // Gradient accumulation: the weights are taken once per update.
    bool baked = p.cost.mode == cm::WeightUpdate::recompile ||
                 p.cost.mode == cm::WeightUpdate::reload;
    if (baked && graph.options.updateEvery > 1)
      text += llvm::formatv(" per step (once per {0}-step update)",
                            graph.options.updateEvery)
                  .str();
  }
  text += llvm::formatv(", {0}-bound", p.cost.bindingTerm()).str();
  if (graph.backends[p.label].programRamp)
    text += llvm::formatv(", utilization {0:f2}", p.cost.utilization).str();
  // Energy: the backend's and the host's share, modelled.
  if (p.cost.joules > 0 || p.cost.hostJoules > 0)
    text += "; " + formatJoules(p.cost.joules + p.cost.hostJoules);
  return text + ")";
}

std::string FunctionPartition::explain(unsigned region,
                                       const cm::StepPlan &plan,
                                       bool margins) const {
  unsigned chosen = plan.labels[region];
  unsigned program = plan.programOf[region];
  const cm::Program &p = plan.programs[program];
  std::string text = llvm::formatv("region {0} -> {1} in program {2}",
                                   regions[region].getIdAttr().getInt(),
                                   labelName(graph, chosen), program)
                         .str();
  if (p.regions.size() > 1)
    text += llvm::formatv(" ({0} regions share one {1} launch)",
                          p.regions.size(), formatSeconds(p.cost.launch))
                .str();
  text += "; alone:";
  unsigned legal = 0;
  std::string illegal;
  for (unsigned label = 0; label < graph.numLabels(); ++label) {
    text += std::string(label ? ", " : " ") +
            cm::backendName(graph.backends[label].kind) + " ";
    if (!graph.legal(region, label)) {
      text += "illegal";
      illegal += (illegal.empty() ? "" : "; ") +
                 std::string(cm::backendName(graph.backends[label].kind)) +
                 ": " + graph.costs[region][label].reason;
    } else {
      text += formatSeconds(standaloneCost(region, label));
      ++legal;
    }
  }
  const std::string &note = graph.costs[region][chosen].reason;
  if (!note.empty() && graph.costs[region][chosen].legal)
    text += "; " + note;
  if (legal == 1)
    return text + "; decided by legality (" + illegal + ")";

  // The runner-up: the legal label this region alone would cost the step
  // least to move to, priced exactly (programs re-formed).
  double bestDelta = kInf;
  unsigned runnerUp = chosen;
  if (margins) {
    for (unsigned label = 0; label < graph.numLabels(); ++label) {
      if (label == chosen || !graph.legal(region, label))
        continue;
      std::vector<unsigned> moved = plan.labels;
      moved[region] = label;
      double delta = cm::evaluatePlan(graph, moved).objective - plan.objective;
      if (delta < bestDelta) {
        bestDelta = delta;
        runnerUp = label;
      }
    }
  }
  std::string runnerName =
      runnerUp == chosen ? "" : cm::backendName(graph.backends[runnerUp].kind);
  if (!margins) {
    text += "; margin not computed (large graph)";
  } else if (bestDelta >= 0) {
    text += llvm::formatv("; margin {0} over {1}", formatObjective(bestDelta),
                          runnerName)
                .str();
  } else {
    text += llvm::formatv("; moving it to {0} would save {1} (the strategy "
                          "keeps it here)",
                          runnerName, formatObjective(-bestDelta))
                .str();
  }
  double alone =
      margins && runnerUp != chosen
          ? standaloneCost(region, runnerUp) - standaloneCost(region, chosen)
          : 0;
  bool byTime = graph.objective == cm::Objective::time && graph.powerCap == 0;
  if (!byTime) {
    // The objective decided; objectiveTrade says what it traded.
  } else if (margins && runnerUp != chosen && alone < 0 && bestDelta >= 0) {
    text += llvm::formatv("; decided by programs and boundaries: {0} alone "
                          "would be {1} faster, but moving it costs the step "
                          "launches and transfers",
                          runnerName, formatSeconds(-alone))
                .str();
  } else {
    std::string term = p.cost.bindingTerm();
    if (term == "launch")
      text += llvm::formatv("; decided by launch overhead ({0} program is "
                            "launch-bound)",
                            cm::backendName(graph.backends[chosen].kind))
                  .str();
    else
      text += llvm::formatv("; decided by {0} ({1} program is {0}-bound)", term,
                            cm::backendName(graph.backends[chosen].kind))
                  .str();
  }
  text += objectiveTrade(region, chosen);
  if (!illegal.empty())
    text += "; illegal elsewhere: " + illegal;
  return text;
}

std::string FunctionPartition::objectiveTrade(unsigned region,
                                              unsigned chosen) const {
  if (graph.objective == cm::Objective::time && graph.powerCap == 0)
    return "";
  std::string text =
      llvm::formatv("; objective {0}", cm::objectiveName(graph.objective))
          .str();
  if (graph.powerCap > 0)
    text += llvm::formatv(" under a {0:f2} W cap", graph.powerCap).str();
  // The trade against the fastest backend for the region alone.
  unsigned fastest = chosen;
  for (unsigned label = 0; label < graph.numLabels(); ++label)
    if (graph.legal(region, label) &&
        standaloneCost(region, label) < standaloneCost(region, fastest))
      fastest = label;
  if (fastest == chosen)
    return text + ": the fastest backend alone too";
  double slower =
      standaloneCost(region, chosen) / standaloneCost(region, fastest);
  double energyRatio =
      standaloneEnergy(region, fastest) / standaloneEnergy(region, chosen);
  bool less = energyRatio >= 1;
  return text + llvm::formatv(": on the {0} {1:f1}x slower than the {2}, "
                              "{3:f1}x {4} energy (alone)",
                              cm::backendName(graph.backends[chosen].kind),
                              slower,
                              cm::backendName(graph.backends[fastest].kind),
                              less ? energyRatio : 1 / energyRatio,
                              less ? "less" : "more")
                    .str();
}
