//===- Output.cpp - the runtime's files: logs, traces, profiles -----------===//

#include "Output.h"

#include "hwagent_rt/hwagent_rt.h"

#include "absl/strings/str_cat.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hwagent_rt {

static absl::Status ioError(const std::string &what, const std::string &path) {
  return absl::UnavailableError(
      absl::StrCat("cannot ", what, " '", path, "': ", std::strerror(errno)));
}

static bool put(std::FILE *file, const std::string &text) {
  return std::fwrite(text.data(), 1, text.size(), file) == text.size();
}

/// Whether `path` exists and is not a regular file (a device, a pipe):
/// such outputs are written in place, never replaced by a rename.
static bool isSpecialFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

/// The folder `path` is in, "." for a bare name.
static std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// Removes `<path>.tmp.<pid>` files left by writers that were killed (their
/// process is gone): a kill -9 during a save must not leave full-size
/// copies that nothing removes. Temporaries of live processes stay.
static void removeStaleTemporaries(const std::string &path) {
  std::string folder = folderOf(path);
  std::string prefix = absl::StrCat(path.substr(path.rfind('/') + 1), ".tmp.");
  DIR *dir = opendir(folder.c_str());
  if (!dir)
    return;
  while (const dirent *entry = readdir(dir)) {
    absl::string_view name = entry->d_name;
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
      continue;
    absl::string_view digits = name.substr(prefix.size());
    char *end = nullptr;
    std::string text(digits);
    long pid = std::strtol(text.c_str(), &end, 10);
    if (pid <= 0 || *end != '\0' || pid == getpid())
      continue;
    if (kill(pid_t(pid), 0) != 0 && errno == ESRCH)
      unlinkat(dirfd(dir), entry->d_name, 0);
  }
  closedir(dir);
}

/// Makes a rename in `path`'s folder durable (POSIX: the directory entry is
/// on disk only once the folder is synced).
static void syncFolderOf(const std::string &path) {
  int fd = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  (void)fsync(fd);
  ::close(fd);
}

JsonLinesLog::~JsonLinesLog() { (void)close(); }

absl::Status JsonLinesLog::open(const std::string &logPath) {
  path = logPath;
  file = std::fopen(path.c_str(), "w");
  if (!file)
    return ioError("write the log", path);
  return absl::OkStatus();
}

void JsonLinesLog::write(const Json &record) {
  if (file && !failed)
    failed = !put(file, record.dump() + "\n");
}

absl::Status JsonLinesLog::flush() {
  if (!file)
    return absl::OkStatus();
  if (failed || std::fflush(file) != 0) {
    failed = true;
    return ioError("write the log", path);
  }
  return absl::OkStatus();
}

absl::Status JsonLinesLog::close() {
  if (!file)
    return absl::OkStatus();
  absl::Status status = flush();
  if (std::fclose(file) != 0 && status.ok())
    status = ioError("write the log", path);
  file = nullptr;
  return status;
}

TraceWriter::~TraceWriter() {
  if (file) {
    std::fclose(file);
    if (!inPlace)
      std::remove((path + ".tmp").c_str());
  }
}

absl::Status TraceWriter::open(const std::string &tracePath,
                               const std::string &target) {
  path = tracePath;
  inPlace = isSpecialFile(path);
  file = std::fopen((inPlace ? path : path + ".tmp").c_str(), "w");
  if (!file)
    return ioError("write the trace", path);
  std::string head = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  head += Json{{"name", "process_name"},
               {"ph", "M"},
               {"pid", 1},
               {"args", {{"name", "hwagent " + target}}}}
              .dump();
  for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
    std::string name = hwagent_backend_name(b);
    name += b == HWAGENT_BACKEND_CPU ? " (measured)" : " (simulated)";
    head += ",\n" + Json{{"name", "thread_name"},
                         {"ph", "M"},
                         {"pid", 1},
                         {"tid", b},
                         {"args", {{"name", name}}}}
                        .dump();
  }
  failed = !put(file, head);
  return absl::OkStatus();
}

void TraceWriter::span(int64_t program, int backend, double start,
                       double seconds, int64_t step, bool simulated,
                       bool fault) {
  if (!file || failed)
    return;
  Json event = {
      {"name", absl::StrCat("program ", program)},
      {"cat", hwagent_backend_name(backend)},
      {"ph", "X"},
      {"pid", 1},
      {"tid", backend},
      {"ts", start * 1e6},
      {"dur", seconds * 1e6},
      {"args", {{"step", step}, {"simulated", simulated}, {"fault", fault}}}};
  failed = !put(file, ",\n" + event.dump());
}

absl::Status TraceWriter::flush() {
  if (file && (failed || std::fflush(file) != 0)) {
    failed = true;
    return ioError("write the trace", path);
  }
  return absl::OkStatus();
}

absl::Status TraceWriter::close() {
  if (!file)
    return absl::OkStatus();
  std::string temporary = path + ".tmp";
  bool ok = !failed && put(file, "\n]}\n");
  ok &= std::fclose(file) == 0;
  file = nullptr;
  if (inPlace)
    return ok ? absl::OkStatus() : ioError("write the trace", path);
  if (!ok) {
    std::remove(temporary.c_str());
    return ioError("write the trace", path);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status status = ioError("write the trace", path);
    std::remove(temporary.c_str());
    return status;
  }
  return absl::OkStatus();
}

absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<bool(std::FILE *)> &writer) {
  if (isSpecialFile(path)) {
    std::FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
      return ioError("write", path);
    bool ok = writer(file);
    ok &= std::fflush(file) == 0;
    ok &= std::fclose(file) == 0;
    return ok ? absl::OkStatus() : ioError("write", path);
  }
  removeStaleTemporaries(path);
  // A name of this process's own, so that two writers never share one.
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  std::FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file)
    return ioError("write", path);
  bool ok = writer(file);
  ok &= std::fflush(file) == 0;
  // On disk before the rename: a crash leaves the old file or the new one.
  ok &= fsync(fileno(file)) == 0;
  ok &= std::fclose(file) == 0;
  if (!ok) {
    absl::Status status = ioError("write", path);
    std::remove(temporary.c_str());
    return status;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status status = ioError("write", path);
    std::remove(temporary.c_str());
    return status;
  }
  syncFolderOf(path);
  return absl::OkStatus();
}

absl::Status checkWritable(const std::string &path) {
  if (isSpecialFile(path)) {
    std::FILE *file = std::fopen(path.c_str(), "ab");
    if (!file)
      return ioError("write", path);
    std::fclose(file);
    return absl::OkStatus();
  }
  // The temporary file writeFileAtomically would create, created and removed.
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  std::FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file)
    return ioError("write", path);
  std::fclose(file);
  std::remove(temporary.c_str());
  return absl::OkStatus();
}

absl::Status writeFileAtomically(const std::string &path,
                                 const std::string &text) {
  return writeFileAtomically(path,
                             [&](std::FILE *file) { return put(file, text); });
}

} // namespace hwagent_rt
