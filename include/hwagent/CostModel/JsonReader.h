//===- JsonReader.h - validating reads of hwagent JSON files ----*- C++ -*-===//
//
// Reads fields of llvm::json objects with range checks and records the first
// error as "<field path>: <what is wrong>", so that every malformed target,
// telemetry or profile file gets a diagnostic naming the field.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_COSTMODEL_JSONREADER_H
#define HWAGENT_COSTMODEL_JSONREADER_H

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace hwcore {

class JsonReader {
public:
  enum Constraint { Any, NonNegative, Positive, AtLeastOne, UnitInterval };

  explicit JsonReader(std::string &error) : error(error) {}

  /// Records the first failure; always returns false.
  bool fail(const std::string &path, const std::string &message);

  /// Parses `text`, checks `"schema": schema` and `"version": version`.
  std::optional<llvm::json::Object> parseDocument(const std::string &text,
                                                  const std::string &schema,
                                                  int64_t version);

  bool number(const llvm::json::Object &o, llvm::StringRef key,
              const std::string &path, double &out, Constraint constraint,
              bool required = true);
  bool integer(const llvm::json::Object &o, llvm::StringRef key,
               const std::string &path, int64_t &out, bool required = true);
  bool string(const llvm::json::Object &o, llvm::StringRef key,
              const std::string &path, std::string &out, bool required = true);
  bool boolean(const llvm::json::Object &o, llvm::StringRef key,
               const std::string &path, bool &out, bool required = true);
  bool strings(const llvm::json::Object &o, llvm::StringRef key,
               const std::string &path, std::vector<std::string> &out,
               bool required = true);
  const llvm::json::Object *object(const llvm::json::Object &o,
                                   llvm::StringRef key,
                                   const std::string &path,
                                   bool required = true);
  const llvm::json::Array *array(const llvm::json::Object &o,
                                 llvm::StringRef key, const std::string &path,
                                 bool required = true);

  static std::string join(const std::string &path, llvm::StringRef key) {
    return path.empty() ? key.str() : path + "." + key.str();
  }

private:
  std::string &error;
};

} // namespace hwcore

#endif // HWAGENT_COSTMODEL_JSONREADER_H
