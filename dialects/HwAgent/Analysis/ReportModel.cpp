//===- ReportModel.cpp - the partition report model from the IR -----------===//

#include "HwAgent/Analysis/ReportModel.h"

#include "HwAgent/Analysis/StructuralHash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;
namespace rp = ::hwreport;

double hwagent::gapPercent(const cm::StepSolution &s) {
  double value = s.plan.objective;
  if (!(value > 0) || !std::isfinite(value) || value >= cm::kOverCap)
    return 0;
  return 100.0 * (value - s.lowerBound) / value;
}

static rp::BackendCost programOn(const FunctionPartition &p,
                                 const cm::StepPlan &plan, unsigned index,
                                 unsigned label) {
  const cm::Program &program = plan.programs[index];
  cm::ProgramCost cost = label == program.label
                             ? program.cost
                             : p.programCostOn(plan, index, label);
  rp::BackendCost c;
  c.backend = p.getBackend(label);
  c.legal = cost.legal;
  if (!cost.legal) {
    c.text = cost.reason;
    return c;
  }
  c.seconds = cost.seconds;
  c.joules = cost.joules + cost.hostJoules;
  c.weightUpdate = cost.mode;
  return c;
}

static rp::ProgramReport describeProgram(const FunctionPartition &p,
                                         const cm::StepPlan &plan,
                                         unsigned index) {
  const cm::Program &program = plan.programs[index];
  rp::ProgramReport r;
  r.id = index;
  r.backend = p.getBackend(program.label);
  r.nodes = program.regions;
  for (unsigned v : program.regions)
    r.regions.push_back(p.getRegions()[v].getIdAttr().getInt());
  const cm::ProgramCost &cost = program.cost;
  r.seconds = cost.seconds;
  r.launch = cost.launch;
  r.compute = cost.compute;
  r.memory = cost.memory;
  r.weights = cost.weights;
  r.weightUpdate = cost.mode;
  r.weightBytes = cost.weightBytes;
  r.utilization = cost.utilization;
  r.joules = cost.joules;
  r.hostJoules = cost.hostJoules;
  r.binding = cost.bindingTerm();
  r.description = p.describeProgram(plan, index);
  for (unsigned label = 0; label < p.getGraph().numLabels(); ++label)
    r.onBackends.push_back(programOn(p, plan, index, label));
  return r;
}

static rp::RegionFeatures featuresOf(FeaturesAttr features) {
  rp::RegionFeatures f;
  f.flops = features.getFlops();
  f.bytesRead = features.getBytesRead();
  f.bytesWritten = features.getBytesWritten();
  f.params = features.getParams();
  f.paramBytes = features.getParamBytes();
  f.rows = features.getRows();
  f.maxDim = features.getMaxDim();
  f.dynamicDims = features.getDynamicDims();
  f.hasLoops = features.getHasLoops();
  return f;
}

/// The region's ops by name (RegionReport::ops): its body's top-level ops,
/// a callee named after its op, constants and empty tensors left out.
static std::vector<std::pair<std::string, int64_t>> opsOf(RegionOp region) {
  std::vector<std::pair<std::string, int64_t>> ops;
  for (Operation &op : region.getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>() ||
        op.hasTrait<OpTrait::ConstantLike>() ||
        op.getName().getStringRef() == "tensor.empty")
      continue;
    std::string name = op.getName().getStringRef().str();
    if (Attribute callee = op.getAttr("callee")) {
      if (auto symbol = dyn_cast<SymbolRefAttr>(callee))
        name += " @" + symbol.getLeafReference().str();
      else if (auto text = dyn_cast<StringAttr>(callee))
        name += " " + text.str();
    }
    auto it =
        llvm::find_if(ops, [&](const auto &e) { return e.first == name; });
    if (it == ops.end())
      ops.push_back({name, 1});
    else
      ++it->second;
  }
  return ops;
}

static rp::RegionReport describeRegion(const FunctionPartition &p,
                                       const cm::StepPlan &plan, unsigned node,
                                       StructuralHasher &hasher,
                                       bool explanation) {
  RegionOp region = p.getRegions()[node];
  rp::RegionReport r;
  r.id = region.getIdAttr().getInt();
  r.key = hasher(region);
  r.backend = p.getBackend(plan.labels[node]);
  r.program = plan.programOf[node];
  for (BackendCostAttr cost : region.getCostsAttr().getEntries()) {
    rp::BackendCost c;
    c.backend = static_cast<cm::BackendKind>(cost.getBackend());
    c.legal = cost.getLegal();
    c.seconds = cost.getSeconds().convertToDouble();
    c.text = cost.getReason().str();
    r.costs.push_back(c);
  }
  for (unsigned label = 0; label < p.getGraph().numLabels(); ++label)
    r.alone.push_back(p.standaloneCost(node, label));
  if (explanation)
    r.explanation =
        p.explain(node, plan, p.getRegions().size() <= kExactMarginRegions);
  llvm::raw_string_ostream(r.location) << region.getLoc();
  if (FeaturesAttr features = region.getFeaturesAttr()) {
    r.phase = static_cast<cm::Phase>(features.getPhase());
    r.features = featuresOf(features);
  }
  r.ops = opsOf(region);
  return r;
}

static rp::FunctionReport describeFunction(const SolvedPartition &entry,
                                           bool explanations) {
  const FunctionPartition &p = entry.partition;
  const cm::StepGraph &graph = p.getGraph();
  const cm::StepPlan &plan = entry.plan();
  rp::FunctionReport f;
  f.name = p.getFunction().getName().str();
  f.chosen = entry.chosen;
  for (unsigned label = 0; label < graph.numLabels(); ++label) {
    f.labels.push_back(p.getBackend(label));
    f.simulated.push_back(p.isSimulated(label));
  }
  for (cm::Strategy each : cm::kAllStrategies)
    if (auto it = entry.results.find(each); it != entry.results.end())
      f.strategies.push_back(
          {each, it->second.plan.total, it->second.plan.joules});
  f.seconds = plan.total;
  f.programSeconds = plan.programSeconds;
  f.boundarySeconds = plan.boundarySeconds;
  f.programJoules = plan.programJoules;
  f.boundaryJoules = plan.boundaryJoules;
  f.staticJoules = plan.staticJoules;
  f.idleJoules = plan.idleJoules;
  f.joules = plan.joules;
  f.objective = graph.objective;
  f.powerCap = graph.powerCap;
  f.clock = plan.clock;
  f.lowerBound = entry.solution().lowerBound;
  f.gapPercent = gapPercent(entry.solution());
  f.evaluations = entry.solution().evaluations;
  for (unsigned index = 0; index < plan.programs.size(); ++index)
    f.programs.push_back(describeProgram(p, plan, index));
  StructuralHasher hasher;
  for (unsigned node = 0; node < p.getRegions().size(); ++node)
    f.regions.push_back(describeRegion(p, plan, node, hasher, explanations));
  for (const cm::StepPlan::Boundary &b : plan.boundaries)
    f.boundaries.push_back({b.from, b.to, b.bytes, b.convertBytes, b.seconds});
  for (const RegionFlow &flow : p.getFlows()) {
    unsigned a =
        flow.from == p.getHostNode() ? graph.hostLabel : plan.labels[flow.from];
    unsigned b =
        flow.to == p.getHostNode() ? graph.hostLabel : plan.labels[flow.to];
    f.flows.push_back({flow.from, flow.to, flow.bytes, p.flowCost(flow, a, b)});
  }
  return f;
}

rp::PartitionReport
hwagent::describePartition(TargetAttr target, cm::Strategy strategy,
                           ArrayRef<SolvedPartition> functions,
                           bool explanations) {
  rp::PartitionReport report;
  report.target = target ? target.getName().str() : "";
  report.strategy = strategy;
  if (target)
    for (DeviceAttr device : target.getDevices())
      if (device.getSimulated() && device.getSimulated().getValue())
        report.simulated.push_back(
            static_cast<cm::BackendKind>(device.getBackend()));
  for (const SolvedPartition &entry : functions)
    report.functions.push_back(describeFunction(entry, explanations));
  return report;
}
