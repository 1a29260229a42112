//===- CostModel.cpp - region costs per backend ---------------------------===//

#include "HwAgent/Core/CostModel.h"

#include <algorithm>
#include <cmath>

using namespace hwcore;

const char *hwcore::legalityRuleName(LegalityRule rule) {
  switch (rule) {
  case LegalityRule::none:
    return "none";
  case LegalityRule::dynamicShape:
    return "dynamic shape";
  case LegalityRule::elementType:
    return "element type";
  case LegalityRule::shapeLimit:
    return "shape limit";
  case LegalityRule::rankLimit:
    return "rank limit";
  case LegalityRule::loop:
    return "loop";
  case LegalityRule::unsupportedKind:
    return "unsupported kind";
  case LegalityRule::unsupportedOp:
    return "unsupported op";
  case LegalityRule::precision:
    return "precision";
  case LegalityRule::memory:
    return "memory";
  }
  return "none";
}

double Telemetry::factor(BackendKind backend) const {
  double u = std::clamp(utilization[index(backend)], 0.0, 1.0);
  return thermalFactor(thermal) / std::max(0.05, 1.0 - u);
}

double hwcore::utilization(const BackendDescription &backend, double flops) {
  if (flops <= 0)
    return 1.0;
  double u = std::pow(flops / backend.rampFlops, backend.rampExponent);
  return std::clamp(u, 1e-6, 1.0);
}

void RegionCost::scale(double factor) {
  compute *= factor;
  computeInputWeights *= factor;
  memory *= factor;
  memoryInputWeights *= factor;
}

namespace {

bool has(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// The type the region computes in on `backend`: the backend's own compute
/// type, else the widest float the region uses.
std::string computeType(const RegionProfile &region,
                        const BackendDescription &backend) {
  if (!backend.computeType.empty())
    return backend.computeType;
  for (const char *type : {"f64", "f32", "bf16", "f16"})
    if (has(region.elementTypes, type))
      return type;
  return region.elementTypes.empty() ? "f32" : region.elementTypes.front();
}

/// The kind of work that dominates a region's FLOPs: its contraction if it
/// has one (features count FLOPs per region, not per kind).
WorkKind dominantKind(const RegionProfile &region) {
  for (WorkKind kind :
       {WorkKind::conv, WorkKind::depthwise, WorkKind::matmul,
        WorkKind::pooling, WorkKind::normalization, WorkKind::reduction,
        WorkKind::elementwise, WorkKind::data_movement})
    if (region.count(kind) > 0)
      return kind;
  return WorkKind::elementwise;
}

/// Legality: "" and LegalityRule::none when the backend can run the region.
std::pair<LegalityRule, std::string> legality(const RegionProfile &region,
                                              const BackendDescription &backend,
                                              const Telemetry &telemetry,
                                              const CostOptions &options) {
  std::string name = backendName(backend.kind);
  bool fixedShapes = !backend.opKinds.empty();
  if (region.dynamicDims > 0 && backend.staticShapes)
    return {LegalityRule::dynamicShape,
            "dynamic shape (" + std::to_string(region.dynamicDims) +
                " dynamic dimensions); the " + name +
                " compiles static shapes only"};
  if (!backend.elementTypes.empty())
    for (const std::string &type : region.elementTypes)
      if (!has(backend.elementTypes, type))
        return {LegalityRule::elementType,
                "element type " + type + " is not supported by the " + name +
                    (backend.computeType == "f16"
                         ? " (it computes in fp16; f16/f32 inputs are cast, i8 "
                           "weights widened)"
                         : "")};
  if (backend.maxDim > 0 && region.maxDim > backend.maxDim)
    return {LegalityRule::shapeLimit,
            "dimension of size " + std::to_string(region.maxDim) +
                " exceeds the " + name + "'s per-axis limit of " +
                std::to_string(backend.maxDim)};
  if (backend.maxRank > 0 && region.maxRank > backend.maxRank &&
      region.count(WorkKind::matmul) > 0)
    return {LegalityRule::rankLimit,
            "rank-" + std::to_string(region.maxRank) + " matmul exceeds the " +
                name + "'s rank limit of " + std::to_string(backend.maxRank)};
  if (region.hasLoops && !backend.runs(WorkKind::control_flow))
    return {LegalityRule::loop, "loop or recurrence; the " + name +
                                    " runs straight-line programs only"};
  for (unsigned k = 0; k < kNumWorkKinds; ++k) {
    auto kind = static_cast<WorkKind>(k);
    if (region.count(kind) > 0 && !backend.runs(kind))
      return {LegalityRule::unsupportedKind,
              kind == WorkKind::opaque
                  ? "opaque op (no " + name + " implementation known)"
                  : std::string(workKindName(kind)) +
                        " ops are not supported by the " + name};
  }
  if (fixedShapes && !region.unsupportedOps.empty())
    return {LegalityRule::unsupportedOp,
            region.unsupportedOps.front() + " is not supported by the " + name};
  bool gradient = region.weightGradient || region.phase == Phase::optimizer;
  if (backend.computeType == "f16" && options.training && gradient &&
      !options.fp16Gradients)
    return {LegalityRule::precision,
            std::string(region.phase == Phase::optimizer ? "optimizer update"
                                                         : "weight gradient") +
                ": kept in fp32 off the " + name +
                " (fp16 datapath), as working ANE trainers do; "
                "fp16-gradients=true allows it with loss scaling"};
  int64_t workingSet = region.bytes() + region.paramBytes;
  if (telemetry.freeMemoryBytes > 0 && workingSet > telemetry.freeMemoryBytes)
    return {LegalityRule::memory,
            "working set of " + std::to_string(workingSet) +
                " bytes exceeds the " +
                std::to_string(telemetry.freeMemoryBytes) +
                " bytes of free memory"};
  return {LegalityRule::none, ""};
}

} // namespace

RegionCost hwcore::predictRegion(const RegionProfile &region,
                                 const BackendDescription &backend,
                                 const Telemetry &telemetry,
                                 const CostOptions &options) {
  RegionCost cost;
  cost.backend = backend.kind;
  auto [rule, reason] = legality(region, backend, telemetry, options);
  if (rule != LegalityRule::none) {
    cost.legal = false;
    cost.rule = rule;
    cost.reason = std::move(reason);
    return cost;
  }
  if (backend.computeType == "f16" && options.training &&
      (region.weightGradient || region.phase == Phase::optimizer)) {
    cost.rule = LegalityRule::precision;
    cost.reason = "fp16 gradients with loss scaling (fp16-gradients=true)";
  }

  // A backend computing in fp16 holds f32 data in half the bytes.
  double narrowing =
      backend.computeType == "f16" && has(region.elementTypes, "f32") ? 0.5
                                                                      : 1.0;
  cost.flops = region.flops;
  // Held in the compute type: on an fp16 backend every weight takes two
  // bytes, whether written f32 or already f16 (and widened inside the
  // region's body), so f16 weights are not halved again.
  cost.weightBytes = backend.computeType == "f16"
                         ? std::min(region.paramBytes, 2 * region.params)
                         : static_cast<int64_t>(region.paramBytes * narrowing);
  WorkKind kind = dominantKind(region);
  double rate = backend.peakFor(computeType(region, backend)) *
                backend.efficiencyOf(kind) * backend.threadSpeedup();
  if (kind == WorkKind::matmul)
    rate = std::max(rate, backend.matrixFlops);
  double flops = static_cast<double>(region.flops);
  cost.compute = flops / rate;
  // Convolutions the backend's libraries run with Winograd's minimal
  // filtering do fewer multiplies than their direct FLOPs count.
  if (kind == WorkKind::conv && backend.winogradGain > 1 &&
      region.winogradFlops > 0) {
    double winograd =
        std::min(flops, static_cast<double>(region.winogradFlops));
    cost.compute =
        (flops - winograd) / rate + winograd / (rate * backend.winogradGain);
  }
  if (!backend.programRamp)
    cost.compute /= utilization(backend, flops);
  cost.computeInputWeights = cost.compute;
  if (region.paramBytes > 0 && isContraction(kind))
    cost.computeInputWeights = cost.compute / backend.inputWeightEfficiency;
  // Every region reads its operands and writes its results through the
  // backend's memory, one region after another. Weights are part of that
  // traffic unless the backend holds them on chip (a fused-memory backend
  // with the weights compiled into its program); passed as inputs they
  // stream in with the activations.
  // A backend that aligns rows holds each innermost row of an activation
  // in at least one aligned line (exact when a row fits in one).
  double activationBytes = static_cast<double>(std::max<int64_t>(
                               region.bytes() - region.paramBytes, 0)) *
                           narrowing;
  activationBytes =
      std::max(activationBytes, static_cast<double>(region.rows) *
                                    static_cast<double>(backend.rowAlignment));
  double activations = activationBytes / backend.bandwidth;
  double weights = static_cast<double>(cost.weightBytes) / backend.bandwidth;
  cost.memory = backend.fusedMemory ? activations : activations + weights;
  cost.memoryInputWeights = activations + weights;
  if (backend.sramBytes > 0 && region.bytes() * narrowing + cost.weightBytes >
                                   static_cast<double>(backend.sramBytes)) {
    cost.spilled = true;
    cost.scale(backend.spillFactor);
  }
  cost.regionLaunch = backend.regionLaunch;
  cost.serial = backend.serialMemory;
  return cost;
}

const char *ProgramCost::bindingTerm() const {
  struct Term {
    const char *name;
    double value;
  } terms[] = {{"compute", compute},
               {"memory", memory},
               {"launch", launch},
               {"weights", weights}};
  const Term *best = &terms[0];
  for (const Term &term : terms)
    if (term.value > best->value)
      best = &term;
  return best->name;
}

namespace {

/// Share of a program's compiled-in weights that streams from memory on
/// every evaluation on a backend that holds weights on chip (the ANE): what
/// exceeds `sramBytes` (the rest stays resident between evaluations).
/// Streaming the excess only, not all of it, fits the 128-deep 1x1 chain of
/// docs/validation.md (64 MiB of weights at 0.385 ms on the M4 Max).
/// `weightBytes` is what competes for the on-chip memory: the program's
/// own, or all of the step's programs' on the backend (ProgramContext).
double streamedShare(const BackendDescription &backend, int64_t weightBytes) {
  if (!backend.fusedMemory || backend.sramBytes <= 0 ||
      weightBytes <= backend.sramBytes)
    return 0;
  return static_cast<double>(weightBytes - backend.sramBytes) /
         static_cast<double>(weightBytes);
}

/// The ways a program can hold its weights: the backend's update modes when
/// weights change every step, else compiled in (`none`), and passed as
/// inputs when compiling them in would exceed what one program may hold.
std::vector<WeightUpdate> weightModes(const BackendDescription &backend,
                                      int64_t weightBytes,
                                      const CostOptions &options) {
  if (options.training && weightBytes > 0 && !backend.weightUpdates.empty())
    return backend.weightUpdates;
  std::vector<WeightUpdate> modes = {WeightUpdate::none};
  if (backend.maxWeightBytes > 0 && weightBytes > backend.maxWeightBytes &&
      backend.supports(WeightUpdate::input))
    modes.push_back(WeightUpdate::input);
  return modes;
}

/// Why no way of holding the weights is legal.
std::string noModeReason(const BackendDescription &backend,
                         const ProgramContext &context, int64_t weightBytes) {
  std::string name = backendName(backend.kind);
  if (backend.maxWeightBytes > 0 && weightBytes > backend.maxWeightBytes)
    return "compiled-in weights of " + std::to_string(weightBytes) +
           " bytes exceed the " + name + "'s limit of " +
           std::to_string(backend.maxWeightBytes) + " bytes per program";
  return std::to_string(context.weightPrograms) +
         " programs recompiled every step exceed the " + name + "'s limit of " +
         std::to_string(backend.maxCompiles) + " compiles per process";
}

} // namespace

ProgramCost hwcore::programCost(const BackendDescription &backend,
                                const RegionCost *const *regions, size_t count,
                                const ProgramContext &context,
                                const CostOptions &options) {
  const RegionCost *const *end = regions + count;
  ProgramCost best;
  best.legal = false;
  best.telemetryFactor = context.telemetryFactor;
  double regionLaunches = 0;
  int64_t flops = 0, weightBytes = 0;
  for (const RegionCost *const *it = regions; it != end; ++it) {
    const RegionCost *r = *it;
    flops += r->flops;
    weightBytes += r->weightBytes;
    regionLaunches += r->regionLaunch;
  }
  double rampFlops = context.utilizationFlops > 0 ? context.utilizationFlops
                                                  : static_cast<double>(flops);
  double util = backend.programRamp ? utilization(backend, rampFlops) : 1;
  double streamed =
      streamedShare(backend, std::max(weightBytes, context.stepWeightBytes));

  for (WeightUpdate mode : weightModes(backend, weightBytes, options)) {
    if (mode == WeightUpdate::recompile && backend.maxCompiles > 0 &&
        context.weightPrograms > backend.maxCompiles)
      continue;
    // Weights compiled into the program (ANE-FACTS section 3: ~2 GB per
    // program): beyond the limit only weights passed as inputs work.
    bool baked = mode != WeightUpdate::input;
    if (baked && backend.maxWeightBytes > 0 &&
        weightBytes > backend.maxWeightBytes)
      continue;
    ProgramCost c;
    c.mode = mode;
    c.flops = flops;
    c.weightBytes = weightBytes;
    c.utilization = util;
    c.telemetryFactor = context.telemetryFactor;
    c.launch = backend.launch + regionLaunches;
    // Each region is bound by its own compute or its own traffic: the
    // backend runs the program's regions one after another.
    bool inputs = mode == WeightUpdate::input;
    double compute = 0, memory = 0, work = 0, clocked = 0;
    for (const RegionCost *const *it = regions; it != end; ++it) {
      const RegionCost *r = *it;
      double rc = (inputs ? r->computeInputWeights : r->compute) / util;
      // Passing the weights as inputs never moves fewer bytes; compiled-in
      // weights that do not fit on chip stream at the backend's bandwidth.
      double rm =
          inputs ? std::max(r->memoryInputWeights, r->memory) : r->memory;
      if (!inputs)
        rm +=
            streamed * static_cast<double>(r->weightBytes) / backend.bandwidth;
      compute += rc;
      memory += rm;
      work += r->busySeconds(rc, rm);
      if (r->serial || rc >= rm)
        clocked += rc;
    }
    c.compute = compute;
    c.memory = memory;
    switch (mode) {
    case WeightUpdate::recompile:
      c.weights = backend.compile +
                  backend.compilePerByte * static_cast<double>(weightBytes);
      if (backend.maxCompiles > 0)
        c.weights += backend.restart / static_cast<double>(backend.maxCompiles);
      break;
    case WeightUpdate::reload:
      c.weights = backend.reload +
                  backend.reloadPerByte * static_cast<double>(weightBytes);
      break;
    case WeightUpdate::none:
    case WeightUpdate::input:
      break;
    }
    // Accumulating gradients over k steps takes new weights once per k.
    c.weights /= static_cast<double>(std::max<int64_t>(options.updateEvery, 1));
    c.seconds = (c.launch + c.weights + work) * context.telemetryFactor;
    c.clocked = clocked * context.telemetryFactor;
    c.joules = backend.activePower * c.seconds +
               workJoules(backend, static_cast<double>(flops), c.memory);
    c.hostJoules = backend.hostPower * c.seconds + backend.launchEnergy;
    if (!best.legal || c.seconds < best.seconds)
      best = c;
  }
  if (!best.legal)
    best.reason = noModeReason(backend, context, weightBytes);
  return best;
}

ProgramCost hwcore::standaloneCost(const RegionCost &cost,
                                   const BackendDescription &backend,
                                   const Telemetry &telemetry,
                                   const CostOptions &options) {
  if (!cost.legal) {
    ProgramCost illegal;
    illegal.legal = false;
    illegal.reason = cost.reason;
    return illegal;
  }
  ProgramContext context;
  context.telemetryFactor = telemetry.factor(backend.kind);
  const RegionCost *one = &cost;
  return programCost(backend, &one, 1, context, options);
}
