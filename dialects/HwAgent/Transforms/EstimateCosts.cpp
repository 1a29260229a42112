//===- EstimateCosts.cpp - hwagent-estimate-costs -------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/IR/HwAgentOps.h"
#include "hwagent/Analysis/StructuralHash.h"
#include "hwagent/Analysis/WorkloadProfile.h"
#include "hwagent/CostModel/CostModel.h"
#include "hwagent/CostModel/ProfileDB.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

namespace mlir::hwagent {
#define GEN_PASS_DEF_ESTIMATECOSTS
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;
namespace cm = ::hwcore;

/// What an accelerator cannot run whatever the op's kind: gathers and
/// scatters (also as data-dependent reads in a linalg body), bitwise ops and
/// writes to state.
static std::vector<std::string> findUnsupportedOps(RegionOp region) {
  std::vector<std::string> found;
  std::set<std::string> seen;
  auto note = [&](std::string what) {
    if (seen.insert(what).second)
      found.push_back(std::move(what));
  };
  region.getBodyBlock().walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (isa<tensor::GatherOp, tensor::ScatterOp>(op) || name == "tosa.gather" ||
        name == "tosa.scatter")
      note("gather/scatter (" + name.str() + ")");
    else if (isa<tensor::ExtractOp>(op) && op->getParentOfType<linalg::LinalgOp>())
      note("gather (data-dependent tensor.extract in a linalg body)");
    else if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::ShLIOp,
                 arith::ShRSIOp, arith::ShRUIOp>(op))
      note("bitwise op (" + name.str() + ")");
    else if (name == "ml_program.global_store" ||
             name == "tosa.variable_write" ||
             (!op->getParentOfType<linalg::LinalgOp>() &&
              hasEffect<MemoryEffects::Write>(op) && !isa<RegionOp>(op)))
      note("stateful mutation (" + name.str() + ")");
  });
  return found;
}

/// Four significant digits: predictions are not more precise than that and
/// the IR stays readable.
static double roundPrediction(double seconds) {
  return std::stod(llvm::formatv("{0:e3}", seconds).str());
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

static cm::RegionProfile toProfile(RegionOp region, FeaturesAttr features) {
  cm::RegionProfile profile;
  profile.flops = features.getFlops();
  profile.bytesRead = features.getBytesRead();
  profile.bytesWritten = features.getBytesWritten();
  profile.params = features.getParams();
  profile.paramBytes = features.getParamBytes();
  for (auto [index, count] : llvm::enumerate(features.getOpHistogram()))
    if (index < cm::kNumWorkKinds)
      profile.opHistogram[index] = count;
  for (Type type : features.getElementTypes())
    profile.elementTypes.push_back(typeName(type));
  profile.dynamicDims = features.getDynamicDims();
  profile.maxDim = features.getMaxDim();
  profile.maxRank = features.getMaxRank();
  profile.hasLoops = features.getHasLoops();
  profile.unsupportedOps = findUnsupportedOps(region);
  return profile;
}

/// A short account of the prediction for the costs attribute.
static std::string describe(const cm::CostBreakdown &cost) {
  std::string note = std::string(cost.bindingTerm()) + "-bound";
  if (cost.utilization < 0.999)
    note += llvm::formatv(", util {0:f2}", cost.utilization).str();
  if (cost.spill > 0)
    note += llvm::formatv(", sram spill {0:e2} s", cost.spill).str();
  if (cost.weightRefresh > 0)
    note += llvm::formatv(", weight refresh {0:e2} s", cost.weightRefresh).str();
  if (cost.telemetryFactor > 1.0001)
    note += llvm::formatv(", telemetry x{0:f2}", cost.telemetryFactor).str();
  if (cost.correction != 1.0)
    note += llvm::formatv(", learned x{0:f2}", cost.correction).str();
  if (cost.measured)
    note += ", measured";
  return note;
}

namespace {
struct EstimateCostsPass
    : public hwagent::impl::EstimateCostsBase<EstimateCostsPass> {
  using EstimateCostsBase::EstimateCostsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    std::optional<cm::TargetDescription> targetDesc =
        cm::resolveTarget(target, error);
    if (!targetDesc) {
      module.emitError() << "hwagent-estimate-costs: " << error;
      return signalPassFailure();
    }
    cm::Telemetry snapshot;
    if (!telemetry.empty()) {
      std::optional<std::string> text = cm::readTextFile(telemetry, error);
      std::optional<cm::Telemetry> parsed;
      if (text && !(parsed = cm::parseTelemetry(*text, error)))
        error = telemetry + ": " + error;
      if (!parsed) {
        module.emitError() << "hwagent-estimate-costs: " << error;
        return signalPassFailure();
      }
      snapshot = *parsed;
    }
    std::optional<cm::ProfileDB> db;
    if (!profileDb.empty()) {
      std::optional<std::string> text = cm::readTextFile(profileDb, error);
      if (text && !(db = cm::parseProfileDB(*text, error)))
        error = profileDb + ": " + error;
      if (!db) {
        module.emitError() << "hwagent-estimate-costs: " << error;
        return signalPassFailure();
      }
      if (db->target != targetDesc->name) {
        module.emitWarning()
            << "hwagent-estimate-costs: " << profileDb
            << " was recorded on target '" << db->target
            << "', not '" << targetDesc->name << "'; its "
            << db->entries.size() << " entries are stale and ignored";
        db.reset();
      }
    }

    cm::CostOptions options;
    options.weightsChangeEveryStep = training;

    // Analytic predictions for every region and backend.
    struct Estimate {
      RegionOp region;
      std::string key;
      std::vector<cm::CostBreakdown> costs;
    };
    std::vector<Estimate> estimates;
    WorkloadProfiler profiler(module);
    module.walk([&](RegionOp region) {
      FeaturesAttr features = region.getFeaturesAttr();
      if (!features) {
        features = profiler.computeFeatures(region);
        region.setFeaturesAttr(features);
      }
      cm::RegionProfile profile = toProfile(region, features);
      Estimate estimate{region, db ? getStructuralHash(region) : "", {}};
      for (const cm::BackendDescription &backend : targetDesc->backends)
        estimate.costs.push_back(
            cm::predictCost(profile, backend, snapshot, options));
      estimates.push_back(std::move(estimate));
    });

    if (db)
      applyMeasurements(module, *db, estimates);

    MLIRContext *ctx = &getContext();
    for (Estimate &estimate : estimates) {
      SmallVector<BackendCostAttr> entries;
      std::vector<cm::CostBreakdown> sorted = estimate.costs;
      llvm::sort(sorted, [](const auto &a, const auto &b) {
        return a.backend < b.backend;
      });
      for (const cm::CostBreakdown &cost : sorted) {
        auto backend = static_cast<Backend>(cost.backend);
        entries.push_back(BackendCostAttr::get(
            ctx, backend, APFloat(cost.legal ? roundPrediction(cost.total) : 0.0),
            cost.legal,
            StringRef(cost.legal ? describe(cost) : cost.reason)));
      }
      estimate.region.setCostsAttr(CostsAttr::get(ctx, entries));
    }
    module->setAttr("hwagent.target", toAttr(ctx, *targetDesc));
  }

  /// The target as an IR attribute, so the annotated module says what it was
  /// estimated for. It summarizes per backend the highest peak; it prices
  /// every ordered pair of its backends (the region table and the runtime
  /// price boundaries from it, as the partitioner did).
  static TargetAttr toAttr(MLIRContext *ctx,
                           const cm::TargetDescription &target) {
    SmallVector<DeviceAttr> devices;
    for (const cm::BackendDescription &b : target.backends) {
      double peak = 0;
      for (auto &[type, value] : b.peakFlops)
        peak = std::max(peak, value);
      devices.push_back(DeviceAttr::get(
          ctx, static_cast<Backend>(b.kind), APFloat(peak),
          APFloat(b.rampFlops), APFloat(b.rampExponent), APFloat(b.bandwidth),
          APFloat(b.dispatch), b.sramBytes, APFloat(b.spillFactor),
          APFloat(b.compile), b.maxDim, b.maxRank));
    }
    SmallVector<LinkAttr> links;
    for (const cm::BackendDescription &a : target.backends)
      for (const cm::BackendDescription &b : target.backends) {
        if (a.kind == b.kind)
          continue;
        const cm::LinkDescription &link = target.link(a.kind, b.kind);
        links.push_back(LinkAttr::get(
            ctx, static_cast<Backend>(a.kind), static_cast<Backend>(b.kind),
            APFloat(link.bandwidth), APFloat(link.convertBandwidth),
            APFloat(link.sync)));
      }
    return TargetAttr::get(ctx, StringRef(target.name), devices,
                           APFloat(target.defaultLink.bandwidth),
                           APFloat(target.defaultLink.sync), links);
  }

  /// Blends matched measurements into the predictions and scales unmatched
  /// ones by the per-backend correction learned from the matches.
  template <typename Estimates>
  void applyMeasurements(ModuleOp module, const cm::ProfileDB &db,
                         Estimates &estimates) {
    std::map<std::pair<std::string, cm::BackendKind>, const cm::ProfileEntry *>
        byKey;
    for (const cm::ProfileEntry &entry : db.entries)
      byKey[{entry.key, entry.backend}] = &entry;
    std::map<cm::BackendKind, std::vector<std::pair<double, double>>> pairs;
    std::set<const cm::ProfileEntry *> used;
    for (auto &estimate : estimates)
      for (cm::CostBreakdown &cost : estimate.costs) {
        auto it = byKey.find({estimate.key, cost.backend});
        if (it == byKey.end())
          continue;
        used.insert(it->second);
        if (!cost.legal) {
          estimate.region.emitWarning()
              << "hwagent-estimate-costs: profile entry " << estimate.key
              << " measured on '" << cm::backendName(cost.backend)
              << "', where the region is illegal (" << cost.reason
              << "); ignored";
          continue;
        }
        pairs[cost.backend].push_back({it->second->seconds, cost.total});
        double w = cm::measurementWeight(it->second->samples);
        cost.total = w * it->second->seconds + (1 - w) * cost.total;
        cost.measured = true;
      }
    for (auto &estimate : estimates)
      for (cm::CostBreakdown &cost : estimate.costs) {
        if (!cost.legal || cost.measured)
          continue;
        cost.correction = cm::learnedCorrection(pairs[cost.backend]);
        cost.total *= cost.correction;
      }
    for (const cm::ProfileEntry &entry : db.entries)
      if (!used.count(&entry))
        module.emitWarning() << "hwagent-estimate-costs: profile entry "
                             << entry.key << " ("
                             << cm::backendName(entry.backend)
                             << ") matches no region; ignored";
  }
};
} // namespace
