//===- ProfileDB.cpp - measured region times (profile feedback) -----------===//

#include "hwagent/CostModel/ProfileDB.h"

#include "hwagent/CostModel/JsonReader.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cctype>
#include <cmath>

using namespace hwcore;
namespace json = llvm::json;

std::optional<ProfileDB> hwcore::parseProfileDB(const std::string &text,
                                                 std::string &error) {
  JsonReader r(error);
  std::optional<json::Object> root =
      r.parseDocument(text, "hwagent.profile-db", kProfileDBSchemaVersion);
  if (!root)
    return std::nullopt;
  ProfileDB db;
  if (!r.string(*root, "target", "", db.target))
    return std::nullopt;
  const json::Array *entries = r.array(*root, "entries", "");
  if (!entries)
    return std::nullopt;
  for (auto [index, value] : llvm::enumerate(*entries)) {
    std::string path = "entries[" + std::to_string(index) + "]";
    const json::Object *o = value.getAsObject();
    if (!o) {
      r.fail(path, "expected an object");
      return std::nullopt;
    }
    ProfileEntry entry;
    std::string backend;
    if (!r.string(*o, "key", path, entry.key) ||
        !r.string(*o, "backend", path, backend) ||
        !r.number(*o, "seconds", path, entry.seconds, JsonReader::NonNegative) ||
        !r.integer(*o, "samples", path, entry.samples) ||
        !r.boolean(*o, "simulated", path, entry.simulated, /*required=*/false))
      return std::nullopt;
    bool hex = entry.key.size() == 16 &&
               std::all_of(entry.key.begin(), entry.key.end(),
                           [](char c) { return std::isxdigit(c); });
    if (!hex) {
      r.fail(path + ".key", "expected 16 hex digits, got '" + entry.key + "'");
      return std::nullopt;
    }
    std::optional<BackendKind> kind = parseBackendName(backend);
    if (!kind) {
      r.fail(path + ".backend", "unknown backend '" + backend + "'");
      return std::nullopt;
    }
    entry.backend = *kind;
    if (entry.samples < 1) {
      r.fail(path + ".samples", "must be at least 1");
      return std::nullopt;
    }
    db.entries.push_back(std::move(entry));
  }
  return db;
}

std::string hwcore::printProfileDB(const ProfileDB &db) {
  json::Array entries;
  for (const ProfileEntry &entry : db.entries)
    entries.push_back(json::Object{{"key", entry.key},
                                   {"backend", backendName(entry.backend)},
                                   {"seconds", entry.seconds},
                                   {"samples", entry.samples},
                                   {"simulated", entry.simulated}});
  json::Object root{{"schema", "hwagent.profile-db"},
                    {"version", kProfileDBSchemaVersion},
                    {"target", db.target},
                    {"entries", std::move(entries)}};
  return llvm::formatv("{0:2}", json::Value(std::move(root))).str();
}

double hwcore::measurementWeight(int64_t samples) {
  double n = static_cast<double>(std::max<int64_t>(samples, 0));
  return n / (n + 1.0);
}

double hwcore::learnedCorrection(
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
