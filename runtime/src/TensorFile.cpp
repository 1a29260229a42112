//===- TensorFile.cpp - .npy, .npz and safetensors ------------------------===//
//
// The files users already keep arrays and parameters in:
//  - NumPy .npy (format versions 1-3): the header is parsed as NumPy parses
//    it (NpyHeader.cpp); the file is read into memory the tensor owns.
//  - NumPy .npz: a zip archive of .npy members, read with libzip (stored or
//    deflated, as np.savez and np.savez_compressed write them). Opening reads
//    each member's header only; a member's data is read the first time it is
//    asked for, and only the bytes its header promises. Of two members of
//    one name the last counts, as in NumPy.
//  - safetensors: an 8-byte little-endian header length, a JSON header
//    (nlohmann::json, at most 100 MB as in the reference implementation) and
//    the data, whose tensors must tile it exactly. Written atomically
//    (SafetensorsWrite.cpp).
// Files are read, not mapped: a file truncated or rewritten while a run
// uses it cannot fault the process, and views are writable memory.
// Only regular files are opened (a FIFO or a device is refused, unblocked).
// Every error names the file and, where there is one, the tensor.
//
//===----------------------------------------------------------------------===//

#include "TensorFileInternal.h"

#include "Errors.h"
#include "NpyHeader.h"
#include "Output.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

#include <zip.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using hwagent_rt::Json;

/// Memory the tensors point into, 64-byte aligned as NumPy aligns its data.
struct Buffer {
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  size_t size = 0;
};

absl::Status fileError(const std::string &path, const std::string &what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::StatusOr<Buffer> allocate(const std::string &where, size_t size) {
  Buffer buffer;
  buffer.size = size;
  buffer.data.reset(static_cast<char *>(
      std::aligned_alloc(64, std::max<size_t>(64, (size + 63) / 64 * 64))));
  if (!buffer.data)
    return absl::ResourceExhaustedError(
        absl::StrCat(where, ": cannot allocate ", size, " bytes"));
  return buffer;
}

/// The whole of the regular file `path`. O_NONBLOCK: opening a FIFO must
/// not wait for a writer before it is refused.
absl::StatusOr<Buffer> readFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  std::unique_ptr<int, void (*)(int *)> closer(&fd, [](int *f) { close(*f); });
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return fileError(path, "not a regular file");
  auto buffer = allocate(path, size_t(st.st_size));
  if (!buffer.ok())
    return buffer.status();
  size_t got = 0;
  while (got < buffer->size) {
    ssize_t n = pread(fd, buffer->data.get() + got, buffer->size - got, got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fileError(
          path, n < 0 ? absl::StrCat("cannot read: ", std::strerror(errno))
                      : "the file shrank while it was read");
    got += size_t(n);
  }
  return buffer;
}

struct Entry {
  std::string name;
  hwagent_tensor_t tensor = {};
  /// .npz: the member, where its data starts and how many bytes it has.
  int64_t member = -1;
  size_t dataStart = 0;
  uint64_t dataBytes = 0;
  bool loaded = true;
};

void setTensor(Entry &entry, const hwagent_rt::NpyHeader &header) {
  entry.tensor.dtype = header.dtype;
  entry.tensor.rank = int32_t(header.shape.size());
  for (size_t d = 0; d < header.shape.size(); ++d)
    entry.tensor.shape[d] = header.shape[d];
}

std::string stemOf(const std::string &path) {
  absl::string_view name = path;
  if (size_t slash = name.rfind('/'); slash != absl::string_view::npos)
    name = name.substr(slash + 1);
  if (size_t dot = name.rfind('.'); dot != absl::string_view::npos)
    name = name.substr(0, dot);
  return std::string(name);
}

/// Reads up to `size` bytes of member `index` into `out`; the bytes read,
/// or -1. With `verify`, a member that ends there is read to its end, where
/// libzip checks its CRC: corrupt data fails here, not silently.
zip_int64_t readMember(zip_t *archive, int64_t index, char *out, uint64_t size,
                       bool verify) {
  zip_file_t *member = zip_fopen_index(archive, zip_uint64_t(index), 0);
  if (!member)
    return -1;
  zip_int64_t got = 0;
  while (uint64_t(got) < size) {
    zip_int64_t n = zip_fread(member, out + got, size - uint64_t(got));
    if (n <= 0)
      break;
    got += n;
  }
  char past;
  if (verify && uint64_t(got) == size && zip_fread(member, &past, 1) < 0)
    got = -1;
  zip_fclose(member);
  return got;
}

} // namespace

struct hwagent_tensor_file {
  std::string path;
  Buffer file;
  std::unique_ptr<zip_t, int (*)(zip_t *)> archive{nullptr, zip_close};
  /// .npz members read so far, by entry.
  mutable std::map<size_t, Buffer> members;
  mutable std::vector<Entry> entries;
  mutable std::mutex mutex;
  std::map<std::string, std::string> metadata;

  absl::Status openNpy() {
    auto read = readFile(path);
    if (!read.ok())
      return read.status();
    file = std::move(*read);
    auto header = hwagent_rt::parseNpyHeader(file.data.get(), file.size, path);
    if (!header.ok())
      return header.status();
    if (file.size - header->dataStart < header->dataBytes)
      return fileError(path, absl::StrCat("truncated: the header promises ",
                                          header->dataBytes,
                                          " bytes of data, the file has ",
                                          file.size - header->dataStart));
    Entry entry;
    entry.name = stemOf(path);
    setTensor(entry, *header);
    entry.tensor.data = file.data.get() + header->dataStart;
    entries.push_back(std::move(entry));
    return absl::OkStatus();
  }

  absl::Status openArchive() {
    int error = 0;
    zip_t *opened = zip_open(path.c_str(), ZIP_RDONLY, &error);
    if (opened) {
      archive.reset(opened);
      return absl::OkStatus();
    }
    zip_error_t ze;
    zip_error_init_with_code(&ze, error);
    std::string message = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    if (error == ZIP_ER_NOENT || error == ZIP_ER_OPEN)
      return absl::NotFoundError(
          absl::StrCat(path, ": cannot open: ", message));
    return fileError(
        path, absl::StrCat("not a readable .npz (zip) archive: ", message));
  }

  /// Member `i`'s header, checked against the sizes the archive claims.
  absl::Status openMember(int64_t i, Entry &entry) {
    zip_stat_t st;
    if (zip_stat_index(archive.get(), zip_uint64_t(i), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_NAME) ||
        !(st.valid & ZIP_STAT_COMP_SIZE))
      return fileError(path, absl::StrCat("cannot read member ", i));
    std::string where = absl::StrCat(path, "[", st.name, "]");
    // The header only: at most NumPy's limit, whatever the archive claims.
    char prefix[hwagent_rt::kNpyMaxPrefixBytes];
    uint64_t want = std::min<uint64_t>(st.size, sizeof(prefix));
    zip_int64_t got =
        readMember(archive.get(), i, prefix, want, /*verify=*/false);
    if (got < 0)
      return fileError(where, "truncated or corrupt member");
    auto header = hwagent_rt::parseNpyHeader(prefix, size_t(got), where);
    if (!header.ok())
      return header.status();
    if (st.size - header->dataStart < header->dataBytes)
      return fileError(where, absl::StrCat("truncated: the header promises ",
                                           header->dataBytes,
                                           " bytes of data, the member has ",
                                           st.size - header->dataStart));
    // Deflate expands at most 1032:1; a member claiming more than its
    // compressed bytes can hold is refused before anything is allocated.
    uint64_t most = st.comp_size * 1032 + 4096;
    if (header->dataBytes > most)
      return fileError(where,
                       absl::StrCat("the member claims ", header->dataBytes,
                                    " bytes of data from ", st.comp_size,
                                    " compressed bytes"));
    entry.name = std::string(absl::StripSuffix(st.name, ".npy"));
    setTensor(entry, *header);
    entry.member = i;
    entry.dataStart = header->dataStart;
    entry.dataBytes = header->dataBytes;
    entry.loaded = false;
    return absl::OkStatus();
  }

  absl::Status openNpz() {
    if (absl::Status s = openArchive(); !s.ok())
      return s;
    zip_int64_t count = zip_get_num_entries(archive.get(), 0);
    std::map<std::string, size_t> byName;
    for (zip_int64_t i = 0; i < count; ++i) {
      Entry entry;
      if (absl::Status s = openMember(i, entry); !s.ok())
        return s;
      auto [it, added] = byName.emplace(entry.name, entries.size());
      if (added)
        entries.push_back(std::move(entry));
      else // NumPy: of two members of one name, the last counts.
        entries[it->second] = std::move(entry);
    }
    if (entries.empty())
      return fileError(path, "the archive holds no arrays");
    return absl::OkStatus();
  }

  /// Reads entry `index`'s member the first time it is asked for.
  absl::Status load(size_t index) const {
    std::lock_guard<std::mutex> lock(mutex);
    Entry &entry = entries[index];
    if (entry.loaded)
      return absl::OkStatus();
    std::string where = absl::StrCat(path, "[", entry.name, ".npy]");
    uint64_t size = entry.dataStart + entry.dataBytes;
    auto buffer = allocate(where, size);
    if (!buffer.ok())
      return buffer.status();
    zip_int64_t got = readMember(archive.get(), entry.member,
                                 buffer->data.get(), size, /*verify=*/true);
    if (got < 0 || uint64_t(got) != size)
      return fileError(where, "truncated or corrupt member");
    entry.tensor.data = buffer->data.get() + entry.dataStart;
    entry.loaded = true;
    members[index] = std::move(*buffer);
    return absl::OkStatus();
  }

  absl::Status openSafetensors();

  void fixNames() {
    for (Entry &e : entries)
      e.tensor.name = e.name.c_str();
  }
};

absl::Status hwagent_tensor_file::openSafetensors() {
  auto read = readFile(path);
  if (!read.ok())
    return read.status();
  file = std::move(*read);
  std::vector<hwagent_rt::SafetensorsEntry> parsed;
  if (absl::Status s = hwagent_rt::parseSafetensors(file.data.get(), file.size,
                                                    path, parsed, metadata);
      !s.ok())
    return s;
  for (hwagent_rt::SafetensorsEntry &p : parsed) {
    Entry entry;
    entry.name = std::move(p.name);
    entry.tensor = p.tensor;
    entries.push_back(std::move(entry));
  }
  return absl::OkStatus();
}

extern "C" {

hwagent_status_t hwagent_tensor_file_open(const char *path,
                                          hwagent_tensor_file_t **file) try {
  using hwagent_rt::fail;
  using hwagent_rt::report;
  if (!file)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_tensor_file_open: no file");
  *file = nullptr;
  if (!path)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_tensor_file_open: no path");
  auto f = std::make_unique<hwagent_tensor_file>();
  f->path = path;
  absl::Status status;
  if (absl::EndsWith(f->path, ".npy"))
    status = f->openNpy();
  else if (absl::EndsWith(f->path, ".npz"))
    status = f->openNpz();
  else if (absl::EndsWith(f->path, ".safetensors"))
    status = f->openSafetensors();
  else
    status = fileError(f->path, "unknown tensor file type (expected .npy, "
                                ".npz or .safetensors)");
  if (!status.ok())
    return report(status);
  f->fixNames();
  *file = f.release();
  return HWAGENT_OK;
} catch (const std::exception &e) {
  return hwagent_rt::fail(HWAGENT_IO_ERROR,
                          absl::StrCat(path ? path : "", ": ", e.what()));
}

void hwagent_tensor_file_close(hwagent_tensor_file_t *file) { delete file; }

uint32_t hwagent_tensor_file_count(const hwagent_tensor_file_t *file) {
  return file ? uint32_t(file->entries.size()) : 0;
}

hwagent_status_t hwagent_tensor_file_get(const hwagent_tensor_file_t *file,
                                         uint32_t index,
                                         hwagent_tensor_t *tensor) {
  if (!file || !tensor || index >= file->entries.size())
    return hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT,
                            "hwagent_tensor_file_get: no such tensor");
  if (absl::Status s = file->load(index); !s.ok())
    return hwagent_rt::report(s);
  *tensor = file->entries[index].tensor;
  return HWAGENT_OK;
}

hwagent_status_t hwagent_tensor_file_find(const hwagent_tensor_file_t *file,
                                          const char *name,
                                          hwagent_tensor_t *tensor) {
  if (!file || !name || !tensor)
    return hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT,
                            "hwagent_tensor_file_find: bad arguments");
  for (size_t i = 0; i < file->entries.size(); ++i)
    if (file->entries[i].name == name)
      return hwagent_tensor_file_get(file, uint32_t(i), tensor);
  return hwagent_rt::fail(
      HWAGENT_NOT_FOUND,
      absl::StrCat(file->path, " has no tensor '", name, "'"));
}

const char *hwagent_tensor_file_metadata(const hwagent_tensor_file_t *file,
                                         const char *key) {
  if (!file || !key)
    return nullptr;
  auto it = file->metadata.find(key);
  return it == file->metadata.end() ? nullptr : it->second.c_str();
}

} // extern "C"
