//===- Safetensors.cpp - the safetensors format, read and written ---------===//
//
// The format's rules (huggingface/safetensors, "Format"), enforced both
// ways: a header of at most 100 MB that is one JSON object; every tensor
// named (not `__metadata__`, which holds string-to-string metadata), with a
// dtype, a shape of non-negative integers and `data_offsets` that match the
// shape; the tensors' byte ranges tile the data exactly, with no overlap
// and no hole. The writer refuses what the reader would refuse, and checks
// every dimension before it reads a byte of the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "TensorFileInternal.h"

#include "Errors.h"
#include "Output.h"
#include "Utf8.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace hwagent_rt {
namespace {

absl::Status fileError(const std::string &path, const std::string &what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

/// safetensors' dtype names.
const char *safetensorsDtype(int32_t dtype) {
  static const char *const names[HWAGENT_NUM_DTYPES] = {
      "F32", "F16", "F64", "I32", "I64", "I8", "U8", "BOOL"};
  return dtype >= 0 && dtype < HWAGENT_NUM_DTYPES ? names[dtype] : nullptr;
}

/// Bytes of a tensor of `dtype` and `shape`, or -1 if a dimension is
/// negative or the product overflows.
int64_t bytesOf(int32_t dtype, const int64_t *shape, int32_t rank) {
  int64_t bytes = hwagent_dtype_size(dtype);
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] < 0 || __builtin_mul_overflow(bytes, shape[d], &bytes))
      return -1;
  return bytes;
}

/// One header entry as a tensor whose data starts at `data`; `range` gets
/// its data_offsets.
absl::Status parseEntry(const std::string &where, const Json &value,
                        const char *data, std::pair<uint64_t, uint64_t> &range,
                        hwagent_tensor_t &tensor) {
  if (!value.is_object() || !value.contains("dtype") ||
      !value.contains("shape") || !value.contains("data_offsets") ||
      !value["dtype"].is_string() || !value["shape"].is_array() ||
      !value["data_offsets"].is_array() || value["data_offsets"].size() != 2)
    return fileError(where, "malformed entry (dtype, shape, data_offsets)");
  std::string dtypeText = value["dtype"].get<std::string>();
  tensor.dtype = -1;
  for (int32_t d = 0; d < HWAGENT_NUM_DTYPES; ++d)
    if (dtypeText == safetensorsDtype(d))
      tensor.dtype = d;
  if (tensor.dtype < 0)
    return fileError(where,
                     absl::StrCat("dtype ", dtypeText, " is not supported"));
  const Json &shape = value["shape"];
  if (shape.size() > HWAGENT_MAX_RANK)
    return fileError(where, "rank above the maximum");
  tensor.rank = int32_t(shape.size());
  for (int32_t d = 0; d < tensor.rank; ++d) {
    if (!shape[d].is_number_integer() || shape[d].get<int64_t>() < 0)
      return fileError(where, "bad shape");
    tensor.shape[d] = shape[d].get<int64_t>();
  }
  const Json &offsets = value["data_offsets"];
  if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
    return fileError(where, "bad data_offsets");
  range = {offsets[0].get<uint64_t>(), offsets[1].get<uint64_t>()};
  int64_t bytes = bytesOf(tensor.dtype, tensor.shape, tensor.rank);
  if (bytes < 0 || range.first > range.second ||
      range.second - range.first != uint64_t(bytes))
    return fileError(where, "data_offsets do not match the shape");
  tensor.data = const_cast<char *>(data) + range.first;
  return absl::OkStatus();
}

/// The format forbids overlapping tensors and bytes no tensor owns.
absl::Status checkTiling(const std::string &path,
                         std::vector<std::pair<uint64_t, uint64_t>> ranges,
                         uint64_t dataSize) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t at = 0;
  for (auto [begin, end] : ranges) {
    if (begin != at)
      return fileError(path, absl::StrCat("the tensors' data_offsets ",
                                          begin < at ? "overlap"
                                                     : "leave a "
                                                       "hole",
                                          " at byte ", std::min(begin, at)));
    at = end;
  }
  if (at > dataSize)
    return fileError(path, absl::StrCat("truncated: the data ends at byte ", at,
                                        ", the file holds ", dataSize));
  if (at < dataSize)
    return fileError(path, absl::StrCat("the data has ", dataSize - at,
                                        " bytes after the last tensor"));
  return absl::OkStatus();
}

} // namespace

std::string badTensorName(absl::string_view name) {
  if (name.empty())
    return "an empty tensor name";
  if (name == "__metadata__")
    return "the name __metadata__, which safetensors reserves";
  if (!isUtf8(name))
    return "a name that is not UTF-8";
  return "";
}

absl::Status parseSafetensors(const char *bytes, size_t size,
                              const std::string &path,
                              std::vector<SafetensorsEntry> &entries,
                              std::map<std::string, std::string> &metadata) {
  if (size < 8)
    return fileError(path, "truncated safetensors file (no header)");
  uint64_t headerLength = 0;
  for (int i = 0; i < 8; ++i)
    headerLength |= uint64_t(uint8_t(bytes[i])) << (8 * i);
  if (headerLength > kSafetensorsMaxHeaderBytes)
    return fileError(path, absl::StrCat("the safetensors header claims ",
                                        headerLength,
                                        " bytes, above the "
                                        "limit of ",
                                        kSafetensorsMaxHeaderBytes));
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
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto &[name, value] : header.items()) {
    std::string where = absl::StrCat(path, "[", name, "]");
    if (name == "__metadata__") {
      if (!value.is_object())
        return fileError(where, "must be an object of strings");
      for (auto &[key, text] : value.items()) {
        if (!text.is_string())
          return fileError(
              where, absl::StrCat("the value of '", key, "' is not a string"));
        metadata[key] = text.get<std::string>();
      }
      continue;
    }
    if (std::string why = badTensorName(name); !why.empty())
      return fileError(where, absl::StrCat("the header has ", why));
    SafetensorsEntry entry;
    entry.name = name;
    ranges.emplace_back();
    if (absl::Status s =
            parseEntry(where, value, data, ranges.back(), entry.tensor);
        !s.ok())
      return s;
    entries.push_back(std::move(entry));
  }
  return checkTiling(path, std::move(ranges), size - 8 - headerLength);
}

} // namespace hwagent_rt

namespace {

using hwagent_rt::fail;

/// The header for `tensors`, or a failed status naming the bad argument;
/// `sizes` gets each tensor's bytes.
hwagent_status_t buildHeader(const char *path, const hwagent_tensor_t *tensors,
                             uint32_t count, const char *const *metadata,
                             uint32_t numMetadata, hwagent_rt::Json &header,
                             std::vector<uint64_t> &sizes) {
  using hwagent_rt::Json;
  header = Json::object();
  if (numMetadata) {
    Json meta = Json::object();
    for (uint32_t i = 0; i < numMetadata; ++i) {
      const char *key = metadata[2 * i], *value = metadata[2 * i + 1];
      if (!key || !value || !hwagent_rt::isUtf8(key) ||
          !hwagent_rt::isUtf8(value))
        return fail(HWAGENT_INVALID_ARGUMENT,
                    absl::StrCat(path, ": metadata pair ", i,
                                 " is missing or not UTF-8"));
      meta[key] = value;
    }
    header["__metadata__"] = meta;
  }
  uint64_t offset = 0;
  for (uint32_t t = 0; t < count; ++t) {
    const hwagent_tensor_t &tensor = tensors[t];
    const char *dtype = hwagent_rt::safetensorsDtype(tensor.dtype);
    if (!tensor.name || !dtype || tensor.rank < 0 ||
        tensor.rank > HWAGENT_MAX_RANK || !tensor.data)
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat(path, ": tensor ", t,
                               " has no name, data, rank or known dtype"));
    if (std::string why = hwagent_rt::badTensorName(tensor.name); !why.empty())
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat(path, ": tensor ", t, " has ", why));
    if (header.contains(tensor.name))
      return fail(
          HWAGENT_INVALID_ARGUMENT,
          absl::StrCat(path, ": two tensors named '", tensor.name, "'"));
    int64_t bytes =
        hwagent_rt::bytesOf(tensor.dtype, tensor.shape, tensor.rank);
    if (bytes < 0 || __builtin_add_overflow(offset, uint64_t(bytes), &offset))
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat(path, ": tensor '", tensor.name,
                               "' has a negative or overflowing shape"));
    Json shape = Json::array();
    for (int32_t d = 0; d < tensor.rank; ++d)
      shape.push_back(tensor.shape[d]);
    header[tensor.name] = {{"dtype", dtype},
                           {"shape", shape},
                           {"data_offsets", {offset - bytes, offset}}};
    sizes.push_back(uint64_t(bytes));
  }
  return HWAGENT_OK;
}

} // namespace

extern "C" {

hwagent_status_t hwagent_check_writable(const char *path) {
  if (!path)
    return hwagent_rt::fail(HWAGENT_INVALID_ARGUMENT, "no path");
  return hwagent_rt::report(hwagent_rt::checkWritable(path));
}

hwagent_status_t hwagent_safetensors_check(const char *path,
                                           const hwagent_tensor_t *tensors,
                                           uint32_t count,
                                           const char *const *metadata,
                                           uint32_t numMetadata) try {
  if (!path || (count && !tensors) || (numMetadata && !metadata))
    return fail(HWAGENT_INVALID_ARGUMENT,
                "hwagent_safetensors_check: bad arguments");
  hwagent_rt::Json header;
  std::vector<uint64_t> sizes;
  return buildHeader(path, tensors, count, metadata, numMetadata, header,
                     sizes);
} catch (const std::exception &e) {
  return fail(HWAGENT_INVALID_ARGUMENT, absl::StrCat(path, ": ", e.what()));
}

hwagent_status_t hwagent_safetensors_write(const char *path,
                                           const hwagent_tensor_t *tensors,
                                           uint32_t count,
                                           const char *const *metadata,
                                           uint32_t numMetadata) try {
  if (!path || (count && !tensors) || (numMetadata && !metadata))
    return fail(HWAGENT_INVALID_ARGUMENT,
                "hwagent_safetensors_write: bad arguments");
  hwagent_rt::Json header;
  std::vector<uint64_t> sizes;
  if (hwagent_status_t s = buildHeader(path, tensors, count, metadata,
                                       numMetadata, header, sizes);
      s != HWAGENT_OK)
    return s;
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
} catch (const std::exception &e) {
  return fail(HWAGENT_IO_ERROR, absl::StrCat(path, ": ", e.what()));
}

} // extern "C"
