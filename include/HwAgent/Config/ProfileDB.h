//===- ProfileDB.h - measured region times (profile feedback) ---*- C++ -*-===//
//
// Measured seconds per region and backend, keyed by the region's structural
// hash, as the runtime writes them (schema `hwagent.profile-db`, version 2,
// which adds each entry's prediction and learned-cost features; version 1
// files still read; the runtime is the one writer) and
// `--hwagent-estimate-costs=profile-db=` and hwagent-learn read them.
// Format and the learned corrections: docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_PROFILEDB_H
#define HWAGENT_CONFIG_PROFILEDB_H

#include "HwAgent/Core/Vocabulary.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hwconfig {

struct ProfileEntry {
  /// Structural hash of the region (16 hex digits).
  std::string key;
  hwcore::BackendKind backend = hwcore::BackendKind::cpu;
  /// Mean measured seconds per execution and the number of samples.
  double seconds = 0;
  int64_t samples = 0;
  /// Whether the time came from a simulator rather than a real device.
  bool simulated = false;
  /// Version 2: the compiler's (analytic) prediction the runtime held, in
  /// seconds (0 in version 1), and the region's learned-cost features by
  /// name (hwcore's LearnedFeatures.h; empty in version 1).
  double predicted = 0;
  std::map<std::string, double> features;
};

struct ProfileDB {
  /// Target the measurements were taken on.
  std::string target;
  std::vector<ProfileEntry> entries;
};

constexpr int64_t kProfileDBSchemaVersion = 2;
/// The oldest version still read.
constexpr int64_t kProfileDBMinVersion = 1;

std::optional<ProfileDB> parseProfileDB(const std::string &json,
                                        std::string &error);

/// Weight of a measurement of `samples` samples against the analytic
/// estimate: n / (n + 1), so one sample counts half and ten count 91 %.
double measurementWeight(int64_t samples);

/// Per-backend factor learned from matched entries: the geometric mean of
/// measured / predicted, clamped to [0.1, 10]; 1 with fewer than 2 matches.
double learnedCorrection(
    const std::vector<std::pair<double, double>> &measuredAndPredicted);

} // namespace hwconfig

#endif // HWAGENT_CONFIG_PROFILEDB_H
