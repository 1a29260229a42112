//===- ModelFile.cpp - the learned cost model file ------------------------===//
//
// Schema `hwagent.learned-cost-model` (docs/cost-model.md): the target, the
// feature names, and per backend the training set size, the held-out error
// and XGBoost's JSON model, kept as the text XGBoost wrote (a JSON string):
// XGBoost's loader tells integers from reals (0.0 is a Number, 0 is not),
// which a pass through llvm::json's writer would not preserve.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Learn/CostLearner.h"

#include "HwAgent/Config/Json.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace hwlearn;
namespace json = llvm::json;

const BackendModel *LearnedCostModel::lookup(hwcore::BackendKind kind) const {
  for (const BackendModel &model : backends)
    if (model.backend == kind)
      return &model;
  return nullptr;
}

static json::Object toJSON(const ErrorSummary &e) {
  return json::Object{{"median_abs_log", e.median},
                      {"p90_abs_log", e.p90},
                      {"within_1.5x", e.withinBand},
                      {"count", e.count}};
}

std::string hwlearn::writeModel(const LearnedCostModel &model) {
  json::Array backends;
  for (const BackendModel &b : model.backends) {
    backends.push_back(json::Object{
        {"backend", hwcore::backendName(b.backend)},
        {"training_size", b.trainingSize},
        {"held_out", json::Object{{"scheme", "leave-one-model-out"},
                                  {"models", b.heldOut.groups},
                                  {"learned", toJSON(b.heldOut.learned)},
                                  {"analytic", toJSON(b.heldOut.analytic)}}},
        {"xgboost", b.booster}});
  }
  json::Array names;
  for (const std::string &name : model.featureNames)
    names.push_back(name);
  json::Value document = json::Object{{"schema", "hwagent.learned-cost-model"},
                                      {"version", kModelSchemaVersion},
                                      {"target", model.target},
                                      {"feature_names", std::move(names)},
                                      {"backends", std::move(backends)}};
  return llvm::formatv("{0:2}", document).str() + "\n";
}

namespace hwlearn {
static bool fromJSON(const json::Value &value, ErrorSummary &e,
                     json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("median_abs_log", e.median) &&
         o.map("p90_abs_log", e.p90) && o.map("within_1.5x", e.withinBand) &&
         o.map("count", e.count);
}

static bool fromJSON(const json::Value &value, HeldOutError &e,
                     json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("models", e.groups) && o.map("learned", e.learned) &&
         o.map("analytic", e.analytic) &&
         o.mapOptional("geometric_mean", e.geometricMean);
}

namespace {
struct RawBackend {
  std::string backend;
  int64_t trainingSize = 0;
  HeldOutError heldOut;
  std::string booster;
};

bool fromJSON(const json::Value &value, RawBackend &b, json::Path path) {
  json::ObjectMapper o(value, path);
  if (!o || !o.map("backend", b.backend) ||
      !o.map("training_size", b.trainingSize) || !o.map("held_out", b.heldOut))
    return false;
  const json::Value *trees = value.getAsObject()->get("xgboost");
  if (!trees || !trees->getAsString() ||
      !llvm::StringRef(*trees->getAsString()).trim().starts_with("{")) {
    path.field("xgboost").report(
        "expected XGBoost's JSON model (the text of an object)");
    return false;
  }
  b.booster = trees->getAsString()->str();
  return true;
}
} // namespace
} // namespace hwlearn

std::optional<LearnedCostModel> hwlearn::parseModel(const std::string &text,
                                                    std::string &error) {
  int64_t version = 0;
  std::optional<json::Value> document = hwconfig::parseDocument(
      text, "hwagent.learned-cost-model", kModelSchemaVersion,
      kModelSchemaVersion, version, error);
  if (!document)
    return std::nullopt;
  json::Path::Root root("$");
  json::ObjectMapper o(*document, root);
  LearnedCostModel model;
  std::vector<RawBackend> raw;
  if (!o.map("target", model.target) ||
      !o.map("feature_names", model.featureNames) || !o.map("backends", raw)) {
    error = hwconfig::describeError(root);
    return std::nullopt;
  }
  if (model.target != kTarget) {
    error = std::string("target: expected '") + kTarget + "', got '" +
            model.target + "'";
    return std::nullopt;
  }
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string path = "backends[" + std::to_string(i) + "]";
    std::optional<hwcore::BackendKind> kind =
        hwcore::parseBackendName(raw[i].backend);
    if (!kind) {
      error = path + ".backend: unknown backend '" + raw[i].backend + "'";
      return std::nullopt;
    }
    if (model.lookup(*kind)) {
      error = path + ".backend: '" + raw[i].backend + "' appears twice";
      return std::nullopt;
    }
    model.backends.push_back({*kind, raw[i].trainingSize, raw[i].heldOut,
                              std::move(raw[i].booster)});
  }
  return model;
}
