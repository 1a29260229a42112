//===- ModelTable.cpp - the compiled model the runtime reads --------------===//

#include "HwAgent/Analysis/ModelTable.h"

#include "HwAgent/Analysis/FeatureModels.h"
#include "HwAgent/Analysis/Partitioner.h"
#include "HwAgent/Analysis/RegionProfile.h"
#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/Core/Energy.h"
#include "HwAgent/Core/LearnedFeatures.h"
#include "HwAgent/Core/Limits.h"
#include "HwAgent/IR/HwAgentDialect.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

/// A region's predicted seconds inside a program on each backend.
static void regionPredictions(RegionOp region,
                              const cm::TargetDescription &target,
                              hwagent_region_info_t &info) {
  CostsAttr costs = region.getCostsAttr();
  info.legal_mask = costs ? 0 : 1u << HWAGENT_BACKEND_CPU;
  if (!costs)
    return;
  for (BackendCostAttr entry : costs.getEntries()) {
    if (!entry.getLegal())
      continue;
    unsigned b = static_cast<unsigned>(entry.getBackend());
    info.legal_mask |= 1u << b;
    double seconds = entry.getSeconds().convertToDouble();
    if (CostTermsAttr terms = entry.getTerms()) {
      cm::BackendDescription backend;
      backend.kind = static_cast<hwcore::BackendKind>(b);
      if (const cm::BackendDescription *known = target.lookup(backend.kind))
        backend = *known;
      seconds = regionCost(entry, backend).insideSeconds() *
                terms.getTelemetry().convertToDouble();
    }
    info.predicted[b] = seconds;
  }
}

static uint64_t regionKey(RegionOp region, StructuralHasher &hasher) {
  auto *dialect = region.getContext()->getLoadedDialect<HwAgentDialect>();
  std::string key;
  if (StringAttr stored = dialect->getKeyAttrHelper().getAttr(region))
    key = stored.str();
  else
    key = hasher(region);
  uint64_t value = 0;
  StringRef(key).getAsInteger(16, value);
  return value;
}

/// The value as produced, looking through transfers.
static Value sourceOf(Value value) {
  while (auto transfer = value.getDefiningOp<TransferOp>())
    value = transfer.getInput();
  return value;
}

/// Whether `value` is read by an op that is not a region (looking through
/// transfers): the host reads it.
static bool readByHost(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    if (auto transfer = dyn_cast<TransferOp>(user))
      return readByHost(transfer.getResult());
    return !isa<RegionOp>(user);
  });
}

static bool floatData(Type type) {
  Type element = getElementTypeOrSelf(type);
  return isa<ShapedType>(type) && isa<FloatType>(element) && !element.isF16();
}

namespace {
/// One function's programs.
struct FunctionPrograms {
  FunctionOpInterface function;
  /// Program id -> its attribute (absent for regions without a program).
  llvm::DenseMap<int64_t, ProgramAttr> attrs;
  /// Program ids in order of their first region, and their regions.
  SmallVector<int64_t> order;
  llvm::DenseMap<int64_t, SmallVector<RegionOp>> regions;
};
} // namespace

static FailureOr<FunctionPrograms>
collectPrograms(FunctionOpInterface function) {
  FunctionPrograms f;
  f.function = function;
  auto *dialect = function->getContext()->getLoadedDialect<HwAgentDialect>();
  if (ArrayAttr list = dialect->getProgramsAttrHelper().getAttr(function))
    for (Attribute attr : list) {
      auto program = cast<ProgramAttr>(attr);
      f.attrs[program.getId()] = program;
    }
  int64_t next = 0;
  for (auto &[id, attr] : f.attrs)
    next = std::max(next, id + 1);
  WalkResult walked = function->walk([&](RegionOp region) {
    if (!region.getBackend()) {
      region.emitOpError() << "has no backend; run hwagent-assign-backends "
                              "(or --partition-backends) first";
      return WalkResult::interrupt();
    }
    int64_t id = region.getProgram() ? *region.getProgram() : next++;
    if (region.getProgram() && !f.attrs.count(id) &&
        dialect->getProgramsAttrHelper().getAttr(function)) {
      region.emitOpError() << "is in program " << id
                           << ", which its function's 'hwagent.programs' "
                              "does not describe";
      return WalkResult::interrupt();
    }
    auto [it, fresh] = f.regions.try_emplace(id);
    if (fresh)
      f.order.push_back(id);
    it->second.push_back(region);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  return f;
}

/// The region's cost entry on backend `b` where it is legal (null: none).
static BackendCostAttr legalEntry(RegionOp region, unsigned b) {
  CostsAttr costs = region.getCostsAttr();
  BackendCostAttr entry =
      costs ? costs.lookup(static_cast<Backend>(b)) : BackendCostAttr();
  return entry && entry.getLegal() ? entry : BackendCostAttr();
}

/// Per legal backend, the joules of an execution of the program that do
/// not grow with its time (hwcore::workJoules of each region's FLOPs and
/// traffic, the launch energy); the traffic is the weights-as-inputs one
/// where the program takes its weights so on that backend. Joules out of
/// the range the runtime accepts (hwcore's Limits.h) are refused here, in
/// its words, rather than by the session after the step compiled.
static LogicalResult fixedJoules(ArrayRef<RegionOp> regions,
                                 const cm::TargetDescription &target,
                                 hwagent_program_info_t &program) {
  for (const cm::BackendDescription &backend : target.backends) {
    unsigned b = cm::index(backend.kind);
    if (!(program.legal_mask & (1u << b)))
      continue;
    bool inputs = program.weight_update[b] == HWAGENT_WEIGHTS_INPUT;
    double joules = backend.launchEnergy;
    for (RegionOp region : regions) {
      BackendCostAttr entry = legalEntry(region, b);
      if (!entry)
        continue;
      cm::RegionCost cost = regionCost(entry, backend);
      double memory =
          inputs ? std::max(cost.memoryInputWeights, cost.memory) : cost.memory;
      joules += cm::workJoules(backend, double(cost.flops), memory);
    }
    program.fixed_joules[b] = joules;
    std::string error = cm::checkFixedJoules(backend.kind, joules);
    if (!error.empty())
      return RegionOp(regions.front()).emitOpError()
             << "is in a program whose " << error
             << " (the target's energy_per_flop, energy_per_byte or "
                "launch_energy is out of scale)";
  }
  return success();
}

/// Per legal backend, the compute-bound seconds of the program's predicted
/// ones: the share hwcore::programCost finds compute-bound
/// (ProgramCost::clocked, what grows as 1/s at a clock s) when it prices the
/// program alone at the peak clock, of the prediction.
static void clockedSeconds(ArrayRef<RegionOp> regions,
                           const cm::TargetDescription &target,
                           hwagent_program_info_t &program) {
  for (const cm::BackendDescription &backend : target.backends) {
    unsigned b = cm::index(backend.kind);
    if (!(program.legal_mask & (1u << b)) || !(program.predicted[b] > 0))
      continue;
    std::vector<cm::RegionCost> costs;
    cm::ProgramContext context;
    for (RegionOp region : regions) {
      BackendCostAttr entry = legalEntry(region, b);
      if (!entry)
        continue;
      costs.push_back(regionCost(entry, backend));
      if (CostTermsAttr terms = entry.getTerms())
        context.telemetryFactor = terms.getTelemetry().convertToDouble();
    }
    std::vector<const cm::RegionCost *> members;
    for (const cm::RegionCost &cost : costs)
      members.push_back(&cost);
    cm::ProgramCost cost =
        cm::programCost(backend, members, context, cm::CostOptions());
    if (cost.legal && cost.seconds > 0)
      program.clocked[b] = program.predicted[b] *
                           std::clamp(cost.clocked / cost.seconds, 0.0, 1.0);
  }
}

/// The target's power model (hwcore::powerModel, the one the partitioner
/// prices with) as the runtime reads it.
static hwagent_power_info_t powerInfo(const cm::TargetDescription &target) {
  cm::PowerModel model = cm::powerModel(target);
  hwagent_power_info_t power = {};
  power.static_power = model.staticPower;
  power.boundary = model.boundary;
  power.boundary_per_byte = model.boundaryPerByte;
  for (cm::BackendKind kind : cm::kAllBackends) {
    power.idle[cm::index(kind)] = model.idle[cm::index(kind)];
    power.running[cm::index(kind)] = model.running[cm::index(kind)];
  }
  return power;
}

/// The program-level entry of `regions` placed as `attr` says (or, without
/// one, a single region on its own backend priced by its costs).
static LogicalResult describeProgram(ArrayRef<RegionOp> regions,
                                     ProgramAttr attr, ModelTable &table,
                                     hwagent_program_info_t &program) {
  RegionOp first = regions.front();
  program.assigned = static_cast<int32_t>(*first.getBackend());
  CostsAttr costs = attr ? attr.getCosts() : first.getCostsAttr();
  if (!costs) {
    program.legal_mask = 1u << HWAGENT_BACKEND_CPU;
  } else {
    for (BackendCostAttr entry : costs.getEntries())
      if (entry.getLegal()) {
        unsigned b = static_cast<unsigned>(entry.getBackend());
        program.legal_mask |= 1u << b;
        program.predicted[b] = entry.getSeconds().convertToDouble();
      }
  }
  if (attr) {
    program.weight_bytes = attr.getWeightBytes();
    program.weight_update[program.assigned] =
        static_cast<int32_t>(attr.getWeights());
  }
  if (!(program.legal_mask & (1u << HWAGENT_BACKEND_CPU)))
    return first.emitOpError()
           << "is in a program with no legal CPU variant; the runtime needs "
              "one to fall back to";
  if (!(program.legal_mask & (1u << program.assigned)))
    return first.emitOpError() << "is in a program placed on '"
                               << stringifyBackend(*first.getBackend())
                               << "', where its costs make it illegal";
  return success();
}

/// The target's name, compile prices, power and links, and the objective
/// and cap the placement was made for; returns the target.
static cm::TargetDescription describeTarget(ModuleOp module,
                                            ModelTable &table) {
  auto *dialect = module.getContext()->getLoadedDialect<HwAgentDialect>();
  cm::TargetDescription target;
  if (TargetAttr attr = dialect ? dialect->getTargetAttrHelper().getAttr(module)
                                : TargetAttr()) {
    target = attr.toDescription();
    table.target = target.name;
    for (const cm::BackendDescription &b : target.backends) {
      table.compile[cm::index(b.kind)] = b.compile;
      table.compilePerByte[cm::index(b.kind)] = b.compilePerByte;
      table.maxCompiles[cm::index(b.kind)] = b.maxCompiles;
    }
    table.power = powerInfo(target);
    for (const cm::BackendDescription &b : target.backends) {
      unsigned i = cm::index(b.kind);
      table.clock.dvfs_exponent[i] = b.dvfsExponent;
      table.clock.min_clock[i] = b.minClock;
      table.clock.active[i] = b.activePower;
      table.clock.per_flop[i] = b.energyPerFlop;
    }
  } else {
    table.target = "unknown";
    target.defaultLink = {cm::BackendKind::cpu, cm::BackendKind::cpu, 1e11,
                          5e10, 2e-5};
  }
  for (cm::BackendKind a : cm::kAllBackends)
    for (cm::BackendKind b : cm::kAllBackends) {
      cm::LinkDescription link = target.link(a, b);
      table.links[cm::index(a)][cm::index(b)] = {
          link.bandwidth, link.convertBandwidth, link.sync};
    }
  if (dialect) {
    if (ObjectiveAttr objective =
            dialect->getObjectiveAttrHelper().getAttr(module))
      table.objective = static_cast<int32_t>(objective.getValue());
    if (FloatAttr cap = dialect->getPowerCapAttrHelper().getAttr(module))
      table.powerCap = cap.getValueAsDouble();
  }
  return target;
}

/// Every function's programs and their regions, in order; `programOf`
/// gets each region's program.
static LogicalResult
addPrograms(ModuleOp module, const cm::TargetDescription &target,
            ModelTable &table,
            llvm::DenseMap<Operation *, int32_t> &programOf) {
  StructuralHasher hasher;
  TypeNames typeNames;
  for (const char *name : cm::learnedFeatureNames())
    table.featureNames.push_back(name);
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    FailureOr<FunctionPrograms> collected = collectPrograms(function);
    if (failed(collected))
      return failure();
    for (int64_t id : collected->order) {
      ArrayRef<RegionOp> regions = collected->regions[id];
      hwagent_program_info_t program = {};
      program.first_region = table.regions.size();
      program.num_regions = regions.size();
      int32_t index = table.programs.size();
      for (RegionOp region : regions) {
        hwagent_region_info_t info = {};
        info.key = regionKey(region, hasher);
        info.id = static_cast<int32_t>(region.getIdAttr().getInt());
        info.program = index;
        cm::RegionProfile profile;
        if (FeaturesAttr features = region.getFeaturesAttr()) {
          info.flops = features.getFlops();
          info.bytes = features.getBytesRead() + features.getBytesWritten();
          profile = profileOf(features, typeNames);
        }
        for (double value : cm::learnedFeatures(profile))
          table.regionFeatures.push_back(value);
        regionPredictions(region, target, info);
        program.flops += info.flops;
        table.regions.push_back(info);
        programOf[region] = index;
      }
      if (failed(describeProgram(regions, collected->attrs.lookup(id), table,
                                 program)))
        return failure();
      if (failed(fixedJoules(regions, target, program)))
        return failure();
      clockedSeconds(regions, target, program);
      table.programs.push_back(program);
      RegionOp first = regions.front();
      table.groups.push_back(
          {function, SmallVector<RegionOp>(regions), *first.getBackend()});
    }
  }
  return success();
}

/// Boundaries between programs: one per distinct input of a region, from
/// the program producing it (looking through transfers) or the host, and
/// one to the host per result the host reads; summed per ordered pair.
static void
addBoundaries(ModuleOp module, ModelTable &table,
              const llvm::DenseMap<Operation *, int32_t> &programOf) {
  auto *dialect = module.getContext()->getLoadedDialect<HwAgentDialect>();
  std::map<std::pair<int32_t, int32_t>, hwagent_edge_info_t> edges;
  BoolAttr training =
      dialect ? dialect->getTrainingAttrHelper().getAttr(module) : BoolAttr();
  WorkloadProfiler profiler(module);
  llvm::DenseMap<Operation *, llvm::SmallPtrSet<Value, 8>> resident;
  auto add = [&](int32_t from, int32_t to, Type type) {
    if (from == to)
      return;
    hwagent_edge_info_t &e = edges[{from, to}];
    e.from = from;
    e.to = to;
    int64_t bytes = countBytes(type);
    e.bytes += bytes;
    if (floatData(type))
      e.convert_bytes += bytes;
  };
  for (const ProgramGroup &group : table.groups)
    for (RegionOp region : group.regions) {
      int32_t to = programOf.lookup(region);
      auto [weights, fresh] = resident.try_emplace(group.function);
      if (fresh)
        weights->second = residentWeights(
            group.function, !training || training.getValue(), profiler);
      llvm::SmallPtrSet<Value, 8> seen;
      for (Value input : region.getInputs()) {
        if (!seen.insert(input).second)
          continue;
        Value source = sourceOf(input);
        if (weights->second.contains(source))
          continue; // stays on the backend between steps
        Operation *def = source.getDefiningOp();
        auto it = def ? programOf.find(def) : programOf.end();
        add(it == programOf.end() ? -1 : it->second, to, source.getType());
      }
      for (Value result : region.getResults())
        if (readByHost(result))
          add(to, -1, result.getType());
    }
  for (auto &[ends, edge] : edges)
    table.edges.push_back(edge);
}

FailureOr<ModelTable> hwagent::buildModelTable(ModuleOp module) {
  ModelTable table;
  cm::TargetDescription target = describeTarget(module, table);
  llvm::DenseMap<Operation *, int32_t> programOf;
  if (failed(addPrograms(module, target, table, programOf)))
    return failure();
  addBoundaries(module, table, programOf);
  return table;
}
