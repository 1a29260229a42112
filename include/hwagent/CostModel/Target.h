//===- Target.h - hardware descriptions of heterogeneous chips --*- C++ -*-===//
//
// Plain C++ descriptions of a chip's backends and the links between them, as
// read from a versioned JSON file (docs/targets.md) or taken from a built-in
// target. No MLIR types, so that the runtime can reuse them.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_COSTMODEL_TARGET_H
#define HWAGENT_COSTMODEL_TARGET_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hwcore {

/// Backends a region can be placed on. The numbering matches the dialect's
/// Backend enum.
enum class BackendKind : unsigned { cpu = 0, ane = 1, gpu = 2 };
constexpr unsigned kNumBackendKinds = 3;
const char *backendName(BackendKind kind);
std::optional<BackendKind> parseBackendName(const std::string &name);

/// Work categories, numbered like the dialect's OpKind enum.
constexpr unsigned kNumWorkKinds = 10;
const char *workKindName(unsigned kind);
std::optional<unsigned> parseWorkKindName(const std::string &name);

/// How a backend sees new weights every training step.
enum class WeightUpdate {
  /// Weights are passed as inputs: refreshing costs their transfer.
  Input,
  /// Weights are baked into a compiled program: refreshing recompiles.
  Recompile,
};

struct BackendDescription {
  BackendKind kind = BackendKind::cpu;
  /// Whether this backend is simulated on this machine (the ANE on Linux).
  bool simulated = false;
  /// Peak FLOP/s per compute element type ("f32", "f16", ...); "default"
  /// applies to types not listed.
  std::map<std::string, double> peakFlops;
  /// Utilization ramp: util = min(1, (flops / rampFlops) ** rampExponent).
  double rampFlops = 1.0;
  double rampExponent = 1.0;
  /// Memory bandwidth in bytes/s.
  double bandwidth = 1.0;
  /// Seconds per region launch.
  double dispatch = 0.0;
  /// On-chip memory (0 = none) and the slow-down of memory traffic once a
  /// region's working set exceeds it.
  int64_t sramBytes = 0;
  double spillFactor = 1.0;
  /// Seconds to (re)compile one region.
  double compile = 0.0;
  WeightUpdate weightUpdate = WeightUpdate::Input;
  /// Largest extent per axis (0 = unlimited) and largest rank of a
  /// contraction (0 = unlimited).
  int64_t maxDim = 0;
  int64_t maxRank = 0;
  /// Work kinds the backend executes (indices of OpKind); empty = all.
  std::vector<unsigned> opKinds;
  /// Element types it accepts ("f16", "f32", "i8", ...); empty = all.
  std::vector<std::string> elementTypes;

  /// Peak FLOP/s for computing in `type`.
  double peakFor(const std::string &type) const;
};

/// Price of moving a tensor from one backend to another.
struct LinkDescription {
  BackendKind from = BackendKind::cpu;
  BackendKind to = BackendKind::cpu;
  /// Copy bandwidth in bytes/s.
  double bandwidth = 1.0;
  /// Element-type/layout conversion throughput in bytes/s (0 = free).
  double convertBandwidth = 0.0;
  /// Fixed synchronization cost in seconds.
  double sync = 0.0;
};

struct TargetDescription {
  std::string name;
  std::string description;
  std::vector<BackendDescription> backends;
  std::vector<LinkDescription> links;
  /// Used for pairs without their own link.
  LinkDescription defaultLink;

  const BackendDescription *lookup(BackendKind kind) const;
  /// The link from `from` to `to` (the default when not listed).
  const LinkDescription &link(BackendKind from, BackendKind to) const;
};

/// Version of the target file schema this build reads and writes.
constexpr int64_t kTargetSchemaVersion = 1;

/// Parses a target description from JSON text. On error returns nullopt and
/// sets `error` to a message naming the field ("backends[0].bandwidth: ...").
std::optional<TargetDescription> parseTarget(const std::string &json,
                                             std::string &error);

/// Serializes a target to JSON (the format parseTarget reads).
std::string printTarget(const TargetDescription &target);

/// Names of the built-in targets.
std::vector<std::string> builtinTargetNames();

/// Reads a whole file; nullopt with `error` set when it cannot.
std::optional<std::string> readTextFile(const std::string &path,
                                        std::string &error);

/// A built-in target name or the path of a target file. Errors name the file
/// and the field ("t.json: backends[0].bandwidth: must be positive").
std::optional<TargetDescription> resolveTarget(const std::string &nameOrPath,
                                               std::string &error);

/// A built-in target by name (apple-m1, apple-m2-pro, apple-m4,
/// apple-m4-max, host); nullopt for an unknown name.
std::optional<TargetDescription> getBuiltinTarget(const std::string &name);

} // namespace hwcore

#endif // HWAGENT_COSTMODEL_TARGET_H
