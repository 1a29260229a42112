//===- Output.h - the runtime's files: logs, traces, profiles ---*- C++ -*-===//
//
// One JSON writer (nlohmann::json: escaping, and null for non-finite
// numbers, so no file the runtime writes is invalid JSON) behind three
// outputs:
//  - JsonLinesLog: one object per line, written as the session runs and
//    flushed at step ends (a line is never torn by a stop between steps);
//  - TraceWriter: a Chrome trace streamed to `<path>.tmp` and renamed over
//    `<path>` when closed, so the file is complete or absent;
//  - writeFileAtomically: a whole file through the same temp + rename.
// Every failure to open, write or rename is returned, with the path.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_OUTPUT_H
#define HWAGENT_RT_OUTPUT_H

#include "absl/status/status.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <string>

namespace hwagent_rt {

using Json = nlohmann::json;

class JsonLinesLog {
public:
  ~JsonLinesLog();
  absl::Status open(const std::string &path);
  bool isOpen() const { return file != nullptr; }
  void write(const Json &record);
  absl::Status flush();
  absl::Status close();

private:
  std::FILE *file = nullptr;
  std::string path;
  bool failed = false;
};

class TraceWriter {
public:
  // Writes `<path>.tmp` and renames it, unless `path` is a device or pipe.
  ~TraceWriter();
  /// Starts the trace (process and track names) in `<path>.tmp`.
  absl::Status open(const std::string &path, const std::string &target);
  bool isOpen() const { return file != nullptr; }
  /// One span: `program` on `backend` from `start` for `seconds` (virtual
  /// time: the sum of charged times so far).
  void span(int64_t program, int backend, double start, double seconds,
            int64_t step, bool simulated, bool fault);
  absl::Status flush();
  /// Ends the JSON and renames the file into place.
  absl::Status close();

private:
  std::FILE *file = nullptr;
  std::string path;
  bool failed = false;
  bool inPlace = false;
};

/// Writes `text` to `<path>.tmp`, then renames it over `path`; nothing is
/// left behind on failure. A device or pipe is written in place.
absl::Status writeFileAtomically(const std::string &path,
                                 const std::string &text);
/// Whether writeFileAtomically(path) could create its file now (checked
/// before work whose result it will hold, so that a bad path fails early).
absl::Status checkWritable(const std::string &path);
/// The same for a file `writer` streams (it returns false on a failed
/// write); the temporary file is flushed to disk before the rename.
absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<bool(std::FILE *)> &writer);

} // namespace hwagent_rt

#endif // HWAGENT_RT_OUTPUT_H
