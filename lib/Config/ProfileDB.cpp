//===- ProfileDB.cpp - measured region times (profile feedback) -----------===//

#include "HwAgent/Config/ProfileDB.h"

#include "HwAgent/Config/Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>

using namespace hwconfig;
namespace json = llvm::json;

namespace {
struct RawEntry {
  std::string key, backend;
  double seconds = 0;
  int64_t samples = 0;
  bool simulated = false;
  double predicted = 0;
  std::map<std::string, double> features;
};

bool fromJSON(const json::Value &value, RawEntry &e, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("key", e.key) && o.map("backend", e.backend) &&
         o.map("seconds", e.seconds) && o.map("samples", e.samples) &&
         o.mapOptional("simulated", e.simulated) &&
         o.mapOptional("predicted", e.predicted) &&
         o.mapOptional("features", e.features);
}

/// "" when the version 2 fields of `raw` are sound, else what is wrong.
std::string checkLearnedFields(const RawEntry &raw) {
  if (!(std::isfinite(raw.predicted) && raw.predicted >= 0))
    return ".predicted: must be finite and non-negative";
  for (const auto &[name, value] : raw.features)
    if (!std::isfinite(value))
      return ".features." + name + ": must be finite";
  return "";
}
} // namespace

std::optional<ProfileDB> hwconfig::parseProfileDB(const std::string &text,
                                                  std::string &error) {
  int64_t version = 0;
  std::optional<json::Value> document =
      parseDocument(text, "hwagent.profile-db", kProfileDBMinVersion,
                    kProfileDBSchemaVersion, version, error);
  if (!document)
    return std::nullopt;
  json::Path::Root root("$");
  json::ObjectMapper o(*document, root);
  ProfileDB db;
  std::vector<RawEntry> entries;
  if (!o.map("target", db.target) || !o.map("entries", entries)) {
    error = describeError(root);
    return std::nullopt;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const RawEntry &raw = entries[i];
    std::string path = "entries[" + std::to_string(i) + "]";
    bool hex = raw.key.size() == 16 &&
               std::all_of(raw.key.begin(), raw.key.end(),
                           [](char c) { return std::isxdigit(c); });
    if (!hex) {
      error = path + ".key: expected 16 hex digits, got '" + raw.key + "'";
      return std::nullopt;
    }
    std::optional<hwcore::BackendKind> kind =
        hwcore::parseBackendName(raw.backend);
    if (!kind) {
      error = path + ".backend: unknown backend '" + raw.backend + "'";
      return std::nullopt;
    }
    if (!(std::isfinite(raw.seconds) && raw.seconds >= 0)) {
      error = path + ".seconds: must be non-negative";
      return std::nullopt;
    }
    if (raw.samples < 1) {
      error = path + ".samples: must be at least 1";
      return std::nullopt;
    }
    if (std::string wrong = checkLearnedFields(raw); !wrong.empty()) {
      error = path + wrong;
      return std::nullopt;
    }
    db.entries.push_back({raw.key, *kind, raw.seconds, raw.samples,
                          raw.simulated, raw.predicted, raw.features});
  }
  return db;
}

double hwconfig::measurementWeight(int64_t samples) {
  double n = static_cast<double>(std::max<int64_t>(samples, 0));
  return n / (n + 1.0);
}

double hwconfig::learnedCorrection(
    const std::vector<std::pair<double, double>> &measuredAndPredicted) {
  double sumLog = 0;
  int count = 0;
  for (auto [measured, predicted] : measuredAndPredicted) {
    if (measured <= 0 || predicted <= 0)
      continue;
    sumLog += std::log(measured / predicted);
    ++count;
  }
  if (count < 2)
    return 1.0;
  return std::clamp(std::exp(sumLog / count), 0.1, 10.0);
}
