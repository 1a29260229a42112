//===- TargetFile.h - target descriptions in JSON ---------------*- C++ -*-===//
//
// Schema `hwagent.target`, version 2 (version 1 files, with `dispatch` and
// `weight_update`, are still read). Format: docs/targets.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_TARGETFILE_H
#define HWAGENT_CONFIG_TARGETFILE_H

#include "HwAgent/Core/Target.h"

#include <optional>
#include <string>

namespace hwconfig {

/// Version of the target file schema this build writes.
constexpr int64_t kTargetSchemaVersion = 2;

/// Parses a target description from JSON text. On error returns nullopt and
/// sets `error` to a message naming the field ("backends[0].bandwidth: ...").
std::optional<hwcore::TargetDescription> parseTarget(const std::string &json,
                                                     std::string &error);

/// Serializes a target to JSON (the format parseTarget reads).
std::string printTarget(const hwcore::TargetDescription &target);

/// A built-in target name or the path of a target file. Errors name the file
/// and the field ("t.json: backends[0].bandwidth: must be positive").
std::optional<hwcore::TargetDescription>
resolveTarget(const std::string &nameOrPath, std::string &error);

} // namespace hwconfig

#endif // HWAGENT_CONFIG_TARGETFILE_H
