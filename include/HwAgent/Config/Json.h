//===- Json.h - reading hwagent's versioned JSON files ----------*- C++ -*-===//
//
// Target, telemetry and profile files are JSON documents with a schema name
// and a version. They are read with llvm::json's ObjectMapper; errors name
// the field path ("backends[0].bandwidth: must be positive").
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_JSON_H
#define HWAGENT_CONFIG_JSON_H

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace hwconfig {

/// Deepest nesting a document may have: llvm::json's parser recurses, so a
/// hostile file must be refused before it overflows the stack.
constexpr unsigned kMaxNesting = 64;

/// Parses `text` as a JSON object whose "schema" is `schema` and whose
/// "version" is in [minVersion, maxVersion]; sets `version` to it. On error
/// returns nullopt and sets `error`.
std::optional<llvm::json::Value>
parseDocument(const std::string &text, const std::string &schema,
              int64_t minVersion, int64_t maxVersion, int64_t &version,
              std::string &error);

/// "<field path>: <message>" for the error an ObjectMapper reported.
std::string describeError(const llvm::json::Path::Root &root);

/// Reads a whole file; nullopt with `error` set when it cannot.
std::optional<std::string> readTextFile(const std::string &path,
                                        std::string &error);

} // namespace hwconfig

#endif // HWAGENT_CONFIG_JSON_H
