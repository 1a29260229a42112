//===- EstimateCosts.cpp - hwagent-estimate-costs -------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/Partitioner.h"
#include "HwAgent/Analysis/RegionProfile.h"
#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/Config/Json.h"
#include "HwAgent/Config/ProfileDB.h"
#include "HwAgent/Config/TargetFile.h"
#include "HwAgent/Config/Telemetry.h"
#include "HwAgent/Core/CostModel.h"
#include "HwAgent/Core/LearnedFeatures.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Learn/CostLearner.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
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
/// scatters (also as data-dependent reads in a linalg body), bitwise ops on
/// integers (logical ops on i1 masks are fine) and writes to state.
static std::vector<std::string> findUnsupportedOps(RegionOp region) {
  std::vector<std::string> found;
  std::set<std::string> seen;
  auto note = [&](std::string what) {
    if (seen.insert(what).second)
      found.push_back(std::move(what));
  };
  // Pre-order, so that `linalgDepth` counts the linalg ops around an op.
  unsigned linalgDepth = 0;
  auto visit = [&](Operation *op, const WalkStage &stage) {
    bool isLinalg = isa<linalg::LinalgOp>(op);
    if (!stage.isBeforeAllRegions()) {
      if (stage.isAfterAllRegions() && isLinalg)
        --linalgDepth;
      return;
    }
    StringRef name = op->getName().getStringRef();
    if (isa<tensor::GatherOp, tensor::ScatterOp>(op) || name == "tosa.gather" ||
        name == "tosa.scatter")
      note("gather/scatter (" + name.str() + ")");
    else if (isa<tensor::ExtractOp>(op) && linalgDepth > 0)
      note("gather (data-dependent tensor.extract in a linalg body)");
    else if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op) ||
             (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op) &&
              !getElementTypeOrSelf(op->getResult(0).getType()).isInteger(1)))
      // and/or/xor of i1 masks are logical ops, which accelerators run as
      // elementwise ops on their 0/1 masks; on wider integers they are bits.
      note("bitwise op (" + name.str() + ")");
    else if (name == "ml_program.global_store" ||
             name == "tosa.variable_write" ||
             (linalgDepth == 0 && !isa<RegionOp>(op) &&
              hasEffect<MemoryEffects::Write>(op)))
      note("stateful mutation (" + name.str() + ")");
    if (isLinalg && op->getNumRegions() > 0)
      ++linalgDepth;
  };
  for (Operation &op : region.getBodyBlock())
    op.walk(visit);
  return found;
}

static cm::RegionProfile toProfile(RegionOp region, FeaturesAttr features,
                                   TypeNames &typeName) {
  cm::RegionProfile profile = profileOf(features, typeName);
  profile.unsupportedOps = findUnsupportedOps(region);
  return profile;
}

/// A short account of the standalone prediction for the costs attribute.
static std::string describe(const cm::ProgramCost &cost,
                            const cm::RegionCost &region, bool byTrees) {
  std::string note = std::string(cost.bindingTerm()) + "-bound";
  if (cost.utilization < 0.999)
    note += llvm::formatv(", util {0:f2}", cost.utilization).str();
  if (region.spilled)
    note += ", spills on-chip memory";
  if (cost.mode != cm::WeightUpdate::none)
    note += std::string(", weights ") + cm::weightUpdateName(cost.mode);
  if (cost.telemetryFactor > 1.0001)
    note += llvm::formatv(", telemetry x{0:f2}", cost.telemetryFactor).str();
  if (byTrees)
    note +=
        llvm::formatv(", learned (xgboost) x{0:f2}", region.correction).str();
  else if (region.correction != 1.0)
    note += llvm::formatv(", learned x{0:f2}", region.correction).str();
  if (region.measured)
    note += ", measured";
  if (!region.reason.empty())
    note += ", " + region.reason;
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
        hwconfig::resolveTarget(target, error);
    if (!targetDesc) {
      mlir::emitError(module.getLoc()) << "hwagent-estimate-costs: " << error;
      return signalPassFailure();
    }
    if (failed(restrictBackends(module, *targetDesc)))
      return signalPassFailure();
    if (weightsAsInputs)
      getContext()
          .getLoadedDialect<HwAgentDialect>()
          ->getWeightsAsInputsAttrHelper()
          .setAttr(module, UnitAttr::get(&getContext()));
    cm::Telemetry snapshot;
    if (!telemetry.empty()) {
      std::optional<std::string> text =
          hwconfig::readTextFile(telemetry, error);
      std::optional<cm::Telemetry> parsed;
      if (text && !(parsed = hwconfig::parseTelemetry(*text, error)))
        error = telemetry + ": " + error;
      if (!parsed) {
        mlir::emitError(module.getLoc()) << "hwagent-estimate-costs: " << error;
        return signalPassFailure();
      }
      snapshot = *parsed;
    }
    std::optional<hwconfig::ProfileDB> db;
    if (!profileDb.empty() && failed(readProfile(module, *targetDesc, db)))
      return signalPassFailure();
    std::map<cm::BackendKind, hwlearn::Booster> trees;
    if (!learnedModel.empty() && failed(readLearnedModel(module, trees)))
      return signalPassFailure();

    cm::CostOptions options;
    if (updateEvery < 1) {
      mlir::emitError(module.getLoc())
          << "hwagent-estimate-costs: update-every must be at least 1, got "
          << static_cast<int64_t>(updateEvery);
      return signalPassFailure();
    }
    options.training = training;
    options.updateEvery = updateEvery;
    options.fp16Gradients = fp16Gradients;

    std::vector<Estimate> estimates;
    WorkloadProfiler profiler(module);
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      // A forward pass keeps its weights between steps even in training.
      cm::CostOptions local = options;
      local.training = weightsChangeEveryStep(function, training);
      StructuralHasher hasher;
      TypeNames typeNames;
      function->walk([&](RegionOp region) {
        FeaturesAttr features = region.getFeaturesAttr();
        if (!features) {
          features = profiler.computeFeatures(region);
          region.setFeaturesAttr(features);
        }
        Estimate estimate{region,
                          toProfile(region, features, typeNames),
                          db ? hasher(region) : "",
                          {},
                          local};
        for (const cm::BackendDescription &backend : targetDesc->backends)
          estimate.costs.push_back(
              cm::predictRegion(estimate.profile, backend, snapshot, local));
        estimates.push_back(std::move(estimate));
      });
    }
    std::map<cm::BackendKind, std::vector<std::pair<double, double>>> pairs;
    if (db)
      applyMeasurements(module, *db, estimates, pairs);
    if ((db || !trees.empty()) &&
        failed(applyCorrections(module, pairs, trees, estimates)))
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    for (Estimate &estimate : estimates)
      estimate.region.setCostsAttr(
          toAttr(ctx, estimate, *targetDesc, snapshot, estimate.options));
    auto *dialect = ctx->getLoadedDialect<HwAgentDialect>();
    dialect->getTargetAttrHelper().setAttr(module,
                                           TargetAttr::get(ctx, *targetDesc));
    dialect->getTrainingAttrHelper().setAttr(module,
                                             BoolAttr::get(ctx, training));
    if (updateEvery > 1)
      dialect->getUpdateEveryAttrHelper().setAttr(
          module, IntegerAttr::get(IntegerType::get(ctx, 64), updateEvery));
  }

  struct Estimate {
    RegionOp region;
    cm::RegionProfile profile;
    std::string key;
    std::vector<cm::RegionCost> costs;
    cm::CostOptions options;
    /// Per cost: the correction came from the learned model's trees.
    std::vector<bool> byTrees = {};
  };

  /// `backends=cpu,ane`: the target without the others (the CPU stays: the
  /// host runs on it).
  LogicalResult restrictBackends(ModuleOp module, cm::TargetDescription &t) {
    if (backends.empty())
      return success();
    std::vector<cm::BackendKind> kept;
    for (const std::string &name : backends) {
      std::optional<cm::BackendKind> kind = cm::parseBackendName(name);
      if (!kind)
        return mlir::emitError(module.getLoc())
               << "hwagent-estimate-costs: unknown backend '" << name
               << "' in backends= (expected " << cm::backendNames() << ")";
      if (!t.lookup(*kind))
        return mlir::emitError(module.getLoc())
               << "hwagent-estimate-costs: target '" << t.name
               << "' has no backend '" << name << "'";
      kept.push_back(*kind);
    }
    if (llvm::find(kept, cm::BackendKind::cpu) == kept.end())
      return mlir::emitError(module.getLoc())
             << "hwagent-estimate-costs: backends= must "
                "include cpu (the host runs on it)";
    auto dropped = [&](cm::BackendKind kind) {
      return llvm::find(kept, kind) == kept.end();
    };
    llvm::erase_if(t.backends, [&](const cm::BackendDescription &b) {
      return dropped(b.kind);
    });
    llvm::erase_if(t.links, [&](const cm::LinkDescription &l) {
      return dropped(l.from) || dropped(l.to);
    });
    return success();
  }

  LogicalResult readProfile(ModuleOp module, const cm::TargetDescription &t,
                            std::optional<hwconfig::ProfileDB> &db) {
    std::string error;
    std::optional<std::string> text = hwconfig::readTextFile(profileDb, error);
    if (text && !(db = hwconfig::parseProfileDB(*text, error)))
      error = profileDb + ": " + error;
    if (!db)
      return mlir::emitError(module.getLoc())
             << "hwagent-estimate-costs: " << error;
    if (db->target != t.name) {
      mlir::emitWarning(module.getLoc())
          << "hwagent-estimate-costs: " << profileDb
          << " was recorded on target '" << db->target << "', not '" << t.name
          << "'; its " << db->entries.size()
          << " entries are stale and ignored";
      db.reset();
    }
    return success();
  }

  static CostsAttr toAttr(MLIRContext *ctx, const Estimate &estimate,
                          const cm::TargetDescription &target,
                          const cm::Telemetry &telemetry,
                          const cm::CostOptions &options) {
    SmallVector<BackendCostAttr> entries;
    for (cm::BackendKind kind : cm::kAllBackends) {
      const cm::BackendDescription *backend = target.lookup(kind);
      if (!backend)
        continue;
      const cm::RegionCost &cost =
          estimate.costs[backend - target.backends.data()];
      auto b = static_cast<Backend>(kind);
      if (!cost.legal) {
        entries.push_back(
            BackendCostAttr::get(ctx, b, APFloat(0.0), false, cost.reason));
        continue;
      }
      cm::ProgramCost alone =
          cm::standaloneCost(cost, *backend, telemetry, options);
      auto terms = CostTermsAttr::get(
          ctx, APFloat(roundSeconds(cost.compute)),
          APFloat(roundSeconds(cost.computeInputWeights)),
          APFloat(roundSeconds(cost.memory)),
          APFloat(roundSeconds(cost.memoryInputWeights)),
          APFloat(roundSeconds(cost.regionLaunch)), cost.flops,
          cost.weightBytes, BoolAttr::get(ctx, cost.spilled),
          APFloat(telemetry.factor(kind)));
      size_t at = backend - target.backends.data();
      bool byTrees = at < estimate.byTrees.size() && estimate.byTrees[at];
      entries.push_back(
          BackendCostAttr::get(ctx, b, APFloat(roundSeconds(alone.seconds)),
                               true, describe(alone, cost, byTrees), terms));
    }
    return CostsAttr::get(ctx, entries);
  }

  /// Blends matched measurements (a region's time inside its program) into
  /// the predictions; `pairs` gets each backend's (measured, predicted).
  void applyMeasurements(
      ModuleOp module, const hwconfig::ProfileDB &db,
      std::vector<Estimate> &estimates,
      std::map<cm::BackendKind, std::vector<std::pair<double, double>>>
          &pairs) {
    std::map<std::pair<std::string, cm::BackendKind>,
             const hwconfig::ProfileEntry *>
        byKey;
    for (const hwconfig::ProfileEntry &entry : db.entries)
      byKey[{entry.key, entry.backend}] = &entry;
    std::set<const hwconfig::ProfileEntry *> used;
    for (Estimate &estimate : estimates)
      for (cm::RegionCost &cost : estimate.costs) {
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
        double predicted = cost.insideSeconds();
        pairs[cost.backend].push_back({it->second->seconds, predicted});
        double w = hwconfig::measurementWeight(it->second->samples);
        double blended = w * it->second->seconds + (1 - w) * predicted;
        // The measurement covers the region's time inside its program; its
        // fixed per-region launch stays, the work around it takes the rest.
        double body = std::max(cost.compute, cost.memory);
        if (body > 0)
          cost.scale(std::max(blended - cost.regionLaunch, 0.0) / body);
        cost.measured = true;
      }
    for (const hwconfig::ProfileEntry &entry : db.entries)
      if (!used.count(&entry))
        mlir::emitWarning(module.getLoc())
            << "hwagent-estimate-costs: profile entry " << entry.key << " ("
            << cm::backendName(entry.backend) << ") matches no region; ignored";
  }

  /// Reads `learned-model=`: the boosters of the backends whose held-out
  /// error beats the analytic model's (the others fall back).
  LogicalResult
  readLearnedModel(ModuleOp module,
                   std::map<cm::BackendKind, hwlearn::Booster> &trees) {
    std::string error;
    auto fail = [&](const std::string &message) -> LogicalResult {
      return mlir::emitError(module.getLoc())
             << "hwagent-estimate-costs: " << learnedModel << ": " << message;
    };
    std::optional<std::string> text =
        hwconfig::readTextFile(learnedModel, error);
    if (!text)
      return mlir::emitError(module.getLoc())
             << "hwagent-estimate-costs: " << error;
    std::optional<hwlearn::LearnedCostModel> model =
        hwlearn::parseModel(*text, error);
    if (!model)
      return fail(error);
    std::vector<std::string> expected(cm::learnedFeatureNames().begin(),
                                      cm::learnedFeatureNames().end());
    expected.push_back(cm::kAnalyticFeatureName);
    if (model->featureNames != expected)
      return fail("feature_names: not the " + std::to_string(expected.size()) +
                  " features this compiler computes (retrain with this "
                  "hwagent-learn)");
    for (const hwlearn::BackendModel &backend : model->backends) {
      if (!backend.heldOut.learnedBetter())
        continue;
      std::optional<hwlearn::Booster> booster =
          hwlearn::Booster::load(backend.booster, expected.size(), error);
      if (!booster)
        return fail(std::string("backends.") +
                    cm::backendName(backend.backend) + ".xgboost: " + error);
      trees.emplace(backend.backend, std::move(*booster));
      if (!backend.heldOut.learnedBeatsGeometricMean())
        geometricMeanWins.insert(backend.backend);
    }
    return success();
  }

  /// Backends whose trees lost to the geometric-mean correction held out:
  /// with a profile that gives that correction, it stays.
  std::set<cm::BackendKind> geometricMeanWins;

  /// Scales the predictions of regions without a measurement: by the
  /// learned model's trees where they apply (and, when the profile matched
  /// two or more of the backend's regions, held out better than its
  /// geometric mean), else by that geometric mean.
  LogicalResult applyCorrections(
      ModuleOp module,
      std::map<cm::BackendKind, std::vector<std::pair<double, double>>> &pairs,
      const std::map<cm::BackendKind, hwlearn::Booster> &trees,
      std::vector<Estimate> &estimates) {
    for (Estimate &estimate : estimates) {
      estimate.byTrees.assign(estimate.costs.size(), false);
      cm::LearnedFeatures features = cm::learnedFeatures(estimate.profile);
      for (size_t i = 0; i < estimate.costs.size(); ++i) {
        cm::RegionCost &cost = estimate.costs[i];
        if (!cost.legal || cost.measured)
          continue;
        auto booster = trees.find(cost.backend);
        double analytic = cost.insideSeconds();
        bool geometricMean = pairs[cost.backend].size() >= 2 &&
                             geometricMeanWins.count(cost.backend);
        if (booster == trees.end() || analytic <= 0 || geometricMean) {
          cost.correction = hwconfig::learnedCorrection(pairs[cost.backend]);
          cost.scale(cost.correction);
          continue;
        }
        std::vector<float> x(features.begin(), features.end());
        x.push_back(static_cast<float>(std::log10(analytic)));
        std::string error;
        std::optional<double> logRatio = booster->second.predict(x, error);
        if (!logRatio)
          return mlir::emitError(module.getLoc())
                 << "hwagent-estimate-costs: " << learnedModel << ": " << error;
        cost.correction = std::clamp(std::exp(*logRatio), 0.1, 10.0);
        cost.scale(cost.correction);
        estimate.byTrees[i] = true;
      }
    }
    return success();
  }
};
} // namespace
