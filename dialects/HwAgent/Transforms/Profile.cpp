//===- Profile.cpp - hwagent-profile --------------------------------------===//

#include "HwAgent/Transforms/Passes.h"

#include "HwAgent/Analysis/StructuralHash.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::hwagent {
#define GEN_PASS_DEF_PROFILE
#include "HwAgent/Transforms/Passes.h.inc"
} // namespace mlir::hwagent

using namespace mlir;
using namespace mlir::hwagent;

/// Version of the JSON report schema (docs/features.md); bump on any change
/// that is not a pure addition.
static constexpr int64_t kProfileSchemaVersion = 1;

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// "file:line:col" for file locations (looking through names and fusions),
/// MLIR's own syntax otherwise.
static std::string locationToString(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return locationToString(named.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    return locationToString(fused.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

static void writeFeatures(llvm::json::OStream &json, FeaturesAttr features) {
  json.attribute("flops", features.getFlops());
  json.attribute("bytes_read", features.getBytesRead());
  json.attribute("bytes_written", features.getBytesWritten());
  json.attribute("arithmetic_intensity", features.getArithmeticIntensity());
  json.attribute("params", features.getParams());
  json.attribute("param_bytes", features.getParamBytes());
  json.attributeObject("op_histogram", [&] {
    for (auto [index, count] : llvm::enumerate(features.getOpHistogram()))
      if (count)
        json.attribute(stringifyOpKind(static_cast<OpKind>(index)), count);
  });
  json.attribute("depth", features.getDepth());
  json.attributeArray("element_types", [&] {
    for (Type type : features.getElementTypes())
      json.value(typeToString(type));
  });
  json.attribute("dynamic_dims", features.getDynamicDims());
  json.attribute("max_dim", features.getMaxDim());
  json.attribute("max_rank", features.getMaxRank());
  json.attribute("rows", features.getRows());
  json.attribute("loops", features.getHasLoops());
  json.attribute("phase", stringifyPhase(features.getPhase()));
  json.attribute("weight_gradient", features.getWeightGradient());
  json.attribute("winograd_flops", features.getWinogradFlops());
}

namespace {
struct ProfilePass : public hwagent::impl::ProfileBase<ProfilePass> {
  using ProfileBase::ProfileBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    WorkloadProfiler profiler(module);
    HwAgentDialect::FeaturesAttrHelper functionFeatures(&getContext());

    struct FunctionProfile {
      FunctionOpInterface function;
      FeaturesAttr features;
      SmallVector<RegionOp> regions;
    };
    SmallVector<FunctionProfile> profiles;
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      SmallVector<RegionOp> regions;
      function->walk([&](RegionOp region) { regions.push_back(region); });
      if (regions.empty())
        continue;
      PhaseAnalysis phases(function);
      // Regions directly in the body are profiled with the function; those
      // nested in other ops (a loop body) on their own.
      llvm::SmallPtrSet<Operation *, 16> done;
      auto warnIfOpaque = [](Operation *op, const OpWork &work) {
        if (work.opaque)
          warnAboutOpaqueOp(op);
      };
      FeaturesAttr total = profiler.profileFunction(
          function, &phases,
          [&](RegionOp region, FeaturesAttr features) {
            region.setFeaturesAttr(features);
            done.insert(region);
          },
          warnIfOpaque);
      for (RegionOp region : regions)
        if (!done.contains(region))
          region.setFeaturesAttr(
              profiler.computeFeatures(region, &phases, warnIfOpaque));
      functionFeatures.setAttr(function, total);
      profiles.push_back({function, total, std::move(regions)});
    }

    if (report.empty())
      return;
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(report, &error);
    if (!file) {
      mlir::emitError(module.getLoc())
          << "hwagent-profile: cannot write report '" << report
          << "': " << error;
      return signalPassFailure();
    }
    {
      llvm::json::OStream json(file->os(), /*IndentSize=*/2);
      json.object([&] {
        json.attribute("schema", "hwagent.profile");
        json.attribute("version", kProfileSchemaVersion);
        json.attributeArray("functions", [&] {
          for (FunctionProfile &profile : profiles)
            json.object([&] {
              json.attribute("name", profile.function.getName());
              json.attributeObject(
                  "features", [&] { writeFeatures(json, profile.features); });
              json.attributeArray("regions", [&] {
                StructuralHasher hasher;
                for (RegionOp region : profile.regions)
                  json.object([&] {
                    json.attribute("id", region.getIdAttr().getInt());
                    json.attribute("key", hasher(region));
                    json.attribute("location",
                                   locationToString(region.getLoc()));
                    json.attributeArray("ops", [&] {
                      for (Operation &op : region.getBodyBlock())
                        if (!isa<YieldOp>(op))
                          json.value(op.getName().getStringRef());
                    });
                    json.attributeObject("features", [&] {
                      writeFeatures(json, *region.getFeatures());
                    });
                  });
              });
            });
        });
      });
    }
    file->os() << "\n";
    file->keep();
  }

  /// One warning per op of a region that no estimator knows, so that a zero
  /// FLOP count is never silent.
  static void warnAboutOpaqueOp(Operation *op) {
    mlir::emitWarning(op->getLoc())
        << "hwagent-profile: no cost estimate for '" << op->getName()
        << "'; counted as opaque with 0 FLOPs";
  }
};
} // namespace
