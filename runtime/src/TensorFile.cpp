//===- TensorFile.cpp - .npy, .npz and safetensors ------------------------===//
//
// The files users already keep arrays and parameters in:
//  - NumPy .npy (format versions 1-3): the header is a Python dict literal of
//    three fixed keys, parsed here (NumPy ships no C reader); the data is
//    memory-mapped.
//  - NumPy .npz: a zip archive of .npy members, read with libzip (stored or
//    deflated, as np.savez and np.savez_compressed write them); each member
//    is read into memory once.
//  - safetensors: an 8-byte little-endian header length, a JSON header
//    (nlohmann::json) and the data, memory-mapped; written atomically.
// Every error names the file and, where there is one, the tensor.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_tensor_file.h"

#include "Errors.h"
#include "Output.h"

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <nlohmann/json.hpp>
#include <zip.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using hwagent_rt::Json;

/// A read-only mapping of a whole file.
struct Mapping {
  void *data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data && size)
      munmap(data, size);
  }
};

absl::Status fileError(const std::string &path, const std::string &what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::StatusOr<std::unique_ptr<Mapping>> mapFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fileError(path, "not a regular file");
  }
  auto mapping = std::make_unique<Mapping>();
  mapping->size = size_t(st.st_size);
  if (mapping->size) {
    void *p = mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return fileError(path, absl::StrCat("cannot map: ", strerror(errno)));
    }
    mapping->data = p;
  }
  close(fd);
  return mapping;
}

/// NumPy's dtype string ('<f4', '|u1', ...) as a hwagent_dtype_t.
int32_t numpyDtype(absl::string_view descr) {
  if (descr.size() < 2)
    return -1;
  char order = descr[0];
  absl::string_view kind = descr.substr(1);
  bool little = order == '<' || order == '|' || order == '=';
  if (!little)
    return -2;
  static const std::pair<const char *, int32_t> kinds[] = {
      {"f4", HWAGENT_DTYPE_F32}, {"f2", HWAGENT_DTYPE_F16},
      {"f8", HWAGENT_DTYPE_F64}, {"i4", HWAGENT_DTYPE_I32},
      {"i8", HWAGENT_DTYPE_I64}, {"i1", HWAGENT_DTYPE_I8},
      {"u1", HWAGENT_DTYPE_U8},  {"b1", HWAGENT_DTYPE_BOOL}};
  for (auto [text, dtype] : kinds)
    if (kind == text)
      return dtype;
  return -1;
}

/// safetensors' dtype names.
const char *safetensorsDtype(int32_t dtype) {
  static const char *const names[HWAGENT_NUM_DTYPES] = {
      "F32", "F16", "F64", "I32", "I64", "I8", "U8", "BOOL"};
  return dtype >= 0 && dtype < HWAGENT_NUM_DTYPES ? names[dtype] : nullptr;
}

struct Entry {
  std::string name;
  hwagent_tensor_t tensor = {};
};

/// Elements of `shape`, or -1 on overflow.
int64_t elementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return -1;
  return n;
}

/// Parses one .npy image of `size` bytes at `bytes` into `entry` (its data
/// points into the image). `where` names it in errors.
absl::Status parseNpy(const char *bytes, size_t size, const std::string &where,
                      Entry &entry) {
  static const char magic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(bytes, magic, 6) != 0)
    return fileError(where, "not a NumPy .npy array (bad magic)");
  uint8_t major = uint8_t(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fileError(where, "truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return fileError(where, absl::StrCat(".npy format version ", int(major),
                                         " is not supported (1-3)"));
  }
  if (headerStart + headerLength > size)
    return fileError(where, "truncated .npy header");
  absl::string_view header(bytes + headerStart, headerLength);
  // {'descr': '<f4', 'fortran_order': False, 'shape': (1797, 64), }
  auto valueOf = [&](absl::string_view key) -> absl::string_view {
    std::string quoted = absl::StrCat("'", key, "'");
    size_t at = header.find(quoted);
    if (at == absl::string_view::npos)
      return {};
    size_t colon = header.find(':', at + quoted.size());
    if (colon == absl::string_view::npos)
      return {};
    absl::string_view rest =
        absl::StripLeadingAsciiWhitespace(header.substr(colon + 1));
    size_t end = rest.front() == '('    ? rest.find(')') + 1
                 : rest.front() == '\'' ? rest.find('\'', 1) + 1
                                        : rest.find_first_of(",}");
    return rest.substr(0, end);
  };
  absl::string_view descr = valueOf("descr");
  absl::string_view fortran = valueOf("fortran_order");
  absl::string_view shapeText = valueOf("shape");
  if (descr.size() < 2 || fortran.empty() || shapeText.size() < 2 ||
      shapeText.front() != '(')
    return fileError(where, "malformed .npy header");
  descr = descr.substr(1, descr.size() - 2);
  int32_t dtype = numpyDtype(descr);
  if (dtype == -2)
    return fileError(where, absl::StrCat("big-endian data ('", descr,
                                         "') is not supported; save it "
                                         "little-endian"));
  if (dtype < 0)
    return fileError(where,
                     absl::StrCat("dtype '", descr,
                                  "' is not supported (f32, f16, f64, i32, "
                                  "i64, i8, u8, bool)"));
  if (fortran != "False")
    return fileError(where, "Fortran-ordered arrays are not supported; save "
                            "a C-ordered copy (np.ascontiguousarray)");
  std::vector<int64_t> shape;
  absl::string_view inner = shapeText.substr(1, shapeText.size() - 2);
  for (absl::string_view part : absl::StrSplit(inner, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty())
      continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0)
      return fileError(where, absl::StrCat("bad dimension '", part, "'"));
    shape.push_back(d);
  }
  if (shape.size() > HWAGENT_MAX_RANK)
    return fileError(where,
                     absl::StrCat("rank ", shape.size(),
                                  " is above the maximum ", HWAGENT_MAX_RANK));
  int64_t elements = elementsOf(shape);
  int64_t bytesNeeded;
  if (elements < 0 ||
      __builtin_mul_overflow(elements, hwagent_dtype_size(dtype), &bytesNeeded))
    return fileError(where, "the shape overflows");
  size_t dataStart = headerStart + headerLength;
  if (size - dataStart < size_t(bytesNeeded))
    return fileError(
        where, absl::StrCat("truncated: the header promises ", bytesNeeded,
                            " bytes of data, the file has ", size - dataStart));
  entry.tensor.data = const_cast<char *>(bytes + dataStart);
  entry.tensor.dtype = dtype;
  entry.tensor.rank = int32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    entry.tensor.shape[d] = shape[d];
  return absl::OkStatus();
}

std::string stemOf(const std::string &path) {
  absl::string_view name = path;
  if (size_t slash = name.rfind('/'); slash != absl::string_view::npos)
    name = name.substr(slash + 1);
  if (size_t dot = name.rfind('.'); dot != absl::string_view::npos)
    name = name.substr(0, dot);
  return std::string(name);
}

} // namespace

struct hwagent_tensor_file {
  std::string path;
  std::unique_ptr<Mapping> mapping;
  /// .npz members, each read once.
  std::vector<std::vector<char>> members;
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;

  absl::Status openNpy() {
    auto mapped = mapFile(path);
    if (!mapped.ok())
      return mapped.status();
    mapping = std::move(*mapped);
    Entry entry;
    entry.name = stemOf(path);
    if (absl::Status s = parseNpy(static_cast<const char *>(mapping->data),
                                  mapping->size, path, entry);
        !s.ok())
      return s;
    entries.push_back(std::move(entry));
    return absl::OkStatus();
  }

  absl::Status openNpz() {
    int error = 0;
    zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
    if (!archive) {
      zip_error_t ze;
      zip_error_init_with_code(&ze, error);
      std::string message = zip_error_strerror(&ze);
      zip_error_fini(&ze);
      if (error == ZIP_ER_NOENT || error == ZIP_ER_OPEN)
        return absl::NotFoundError(
            absl::StrCat(path, ": cannot open: ", message));
      return fileError(path, absl::StrCat("not a readable .npz (zip) "
                                          "archive: ",
                                          message));
    }
    std::unique_ptr<zip_t, int (*)(zip_t *)> closer(archive, zip_close);
    zip_int64_t count = zip_get_num_entries(archive, 0);
    for (zip_int64_t i = 0; i < count; ++i) {
      zip_stat_t st;
      if (zip_stat_index(archive, i, 0, &st) != 0 ||
          !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_NAME))
        return fileError(path, absl::StrCat("cannot read member ", i));
      std::string name = st.name;
      std::string where = absl::StrCat(path, "[", name, "]");
      std::vector<char> bytes(st.size);
      zip_file_t *member = zip_fopen_index(archive, i, 0);
      if (!member)
        return fileError(where, zip_strerror(archive));
      zip_int64_t got = st.size ? zip_fread(member, bytes.data(), st.size) : 0;
      zip_fclose(member);
      if (got < 0 || zip_uint64_t(got) != st.size)
        return fileError(where, "truncated or corrupt member");
      Entry entry;
      entry.name = std::string(absl::StripSuffix(name, ".npy"));
      members.push_back(std::move(bytes));
      const std::vector<char> &stored = members.back();
      if (absl::Status s = parseNpy(stored.data(), stored.size(), where, entry);
          !s.ok())
        return s;
      entries.push_back(std::move(entry));
    }
    if (entries.empty())
      return fileError(path, "the archive holds no arrays");
    return absl::OkStatus();
  }

  absl::Status openSafetensors() {
    auto mapped = mapFile(path);
    if (!mapped.ok())
      return mapped.status();
    mapping = std::move(*mapped);
    const char *bytes = static_cast<const char *>(mapping->data);
    size_t size = mapping->size;
    if (size < 8)
      return fileError(path, "truncated safetensors file (no header)");
    uint64_t headerLength = 0;
    for (int i = 0; i < 8; ++i)
      headerLength |= uint64_t(uint8_t(bytes[i])) << (8 * i);
    if (headerLength > size - 8)
      return fileError(path, absl::StrCat("truncated safetensors file: the "
                                          "header claims ",
                                          headerLength, " bytes, the file has ",
                                          size - 8));
    Json header = Json::parse(bytes + 8, bytes + 8 + headerLength, nullptr,
                              /*allow_exceptions=*/false);
    if (!header.is_object())
      return fileError(path, "the safetensors header is not a JSON object");
    const char *data = bytes + 8 + headerLength;
    size_t dataSize = size - 8 - headerLength;
    for (auto &[name, value] : header.items()) {
      std::string where = absl::StrCat(path, "[", name, "]");
      if (name == "__metadata__") {
        if (!value.is_object())
          return fileError(where, "must be an object of strings");
        for (auto &[key, text] : value.items())
          if (text.is_string())
            metadata[key] = text.get<std::string>();
        continue;
      }
      if (!value.is_object() || !value.contains("dtype") ||
          !value.contains("shape") || !value.contains("data_offsets") ||
          !value["dtype"].is_string() || !value["shape"].is_array() ||
          !value["data_offsets"].is_array() ||
          value["data_offsets"].size() != 2)
        return fileError(where, "malformed entry (dtype, shape, data_offsets)");
      int32_t dtype = -1;
      std::string dtypeText = value["dtype"].get<std::string>();
      for (int32_t d = 0; d < HWAGENT_NUM_DTYPES; ++d)
        if (dtypeText == safetensorsDtype(d))
          dtype = d;
      if (dtype < 0)
        return fileError(
            where, absl::StrCat("dtype ", dtypeText, " is not supported"));
      std::vector<int64_t> shape;
      for (const Json &d : value["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
          return fileError(where, "bad shape");
        shape.push_back(d.get<int64_t>());
      }
      if (shape.size() > HWAGENT_MAX_RANK)
        return fileError(where, "rank above the maximum");
      const Json &offsets = value["data_offsets"];
      if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
        return fileError(where, "bad data_offsets");
      uint64_t begin = offsets[0].get<uint64_t>();
      uint64_t end = offsets[1].get<uint64_t>();
      int64_t elements = elementsOf(shape), bytesNeeded;
      if (elements < 0 ||
          __builtin_mul_overflow(elements, hwagent_dtype_size(dtype),
                                 &bytesNeeded) ||
          begin > end || end - begin != uint64_t(bytesNeeded))
        return fileError(where, "data_offsets do not match the shape");
      if (end > dataSize)
        return fileError(where,
                         absl::StrCat("truncated: the data ends at byte ", end,
                                      ", the file holds ", dataSize));
      Entry entry;
      entry.name = name;
      entry.tensor.data = const_cast<char *>(data + begin);
      entry.tensor.dtype = dtype;
      entry.tensor.rank = int32_t(shape.size());
      for (size_t d = 0; d < shape.size(); ++d)
        entry.tensor.shape[d] = shape[d];
      entries.push_back(std::move(entry));
    }
    return absl::OkStatus();
  }

  void fixNames() {
    for (Entry &e : entries)
      e.tensor.name = e.name.c_str();
  }
};

extern "C" {

hwagent_status_t hwagent_tensor_file_open(const char *path,
                                          hwagent_tensor_file_t **file) {
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
  *tensor = file->entries[index].tensor;
  return HWAGENT_OK;
}

hwagent_status_t hwagent_tensor_file_find(const hwagent_tensor_file_t *file,
                                          const char *name,
                                          hwagent_tensor_t *tensor) {
  if (!file || !name || !tensor)
    return hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT,
                            "hwagent_tensor_file_find: bad arguments");
  for (const Entry &e : file->entries)
    if (e.name == name) {
      *tensor = e.tensor;
      return HWAGENT_OK;
    }
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

hwagent_status_t hwagent_check_writable(const char *path) {
  if (!path)
    return hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT, "no path");
  return hwagent_rt::report(hwagent_rt::checkWritable(path));
}

hwagent_status_t hwagent_safetensors_write(const char *path,
                                           const hwagent_tensor_t *tensors,
                                           uint32_t count,
                                           const char *const *metadata,
                                           uint32_t numMetadata) {
  using hwagent_rt::fail;
  if (!path || (count && !tensors) || (numMetadata && !metadata))
    return fail(HWAGENT_INVALID_ARGUMENT,
                "hwagent_safetensors_write: bad arguments");
  Json header = Json::object();
  if (numMetadata) {
    Json meta = Json::object();
    for (uint32_t i = 0; i < numMetadata; ++i) {
      if (!metadata[2 * i] || !metadata[2 * i + 1])
        return fail(HWAGENT_INVALID_ARGUMENT, "a metadata key without value");
      meta[metadata[2 * i]] = metadata[2 * i + 1];
    }
    header["__metadata__"] = meta;
  }
  uint64_t offset = 0;
  std::vector<uint64_t> sizes;
  for (uint32_t t = 0; t < count; ++t) {
    const hwagent_tensor_t &tensor = tensors[t];
    const char *dtype = safetensorsDtype(tensor.dtype);
    if (!tensor.name || !dtype || tensor.rank < 0 ||
        tensor.rank > HWAGENT_MAX_RANK || !tensor.data)
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat(path, ": tensor ", t,
                               " has no name, data or a known dtype"));
    if (header.contains(tensor.name))
      return fail(
          HWAGENT_INVALID_ARGUMENT,
          absl::StrCat(path, ": two tensors named '", tensor.name, "'"));
    uint64_t bytes = uint64_t(hwagent_tensor_elements(&tensor)) *
                     uint64_t(hwagent_dtype_size(tensor.dtype));
    Json shape = Json::array();
    for (int32_t d = 0; d < tensor.rank; ++d)
      shape.push_back(tensor.shape[d]);
    header[tensor.name] = {{"dtype", dtype},
                           {"shape", shape},
                           {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    sizes.push_back(bytes);
  }
  std::string text = header.dump();
  // Pad the header with spaces so that the data starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i)
    prefix[i] = char((uint64_t(text.size()) >> (8 * i)) & 0xff);
  absl::Status status =
      hwagent_rt::writeFileAtomically(path, [&](std::FILE *file) {
        bool ok = std::fwrite(prefix.data(), 1, 8, file) == 8 &&
                  std::fwrite(text.data(), 1, text.size(), file) == text.size();
        for (uint32_t t = 0; t < count && ok; ++t)
          ok = std::fwrite(tensors[t].data, 1, sizes[t], file) == sizes[t];
        return ok;
      });
  return hwagent_rt::report(status);
}

} // extern "C"
