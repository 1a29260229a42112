//===- TensorFileFuzzer.cpp - libFuzzer harness for the tensor files ------===//
//
// Byte 0 picks the input: the rest as an .npy, an .npz or a safetensors
// file opened through hwagent_tensor_file_open (every tensor then fetched
// and every byte of it read), or a set of tensors built from the bytes
// (names, dtypes, ranks, dimensions, metadata) handed to
// hwagent_safetensors_check and hwagent_safetensors_write, whose file must
// then read back with the same names, dtypes and shapes. Bad input must come
// back as a status with a message, never a crash, a hang or an exception.
// Built and run by scripts/fuzz (docs/building.md; dictionary:
// test/fuzz/tensorfile.dict).
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string scratch(const char *extension) {
  return "/tmp/hwagent-tensorfile-fuzz-" + std::to_string(getpid()) + extension;
}

/// Opens `bytes` as a file of `extension` and reads every tensor through.
void fuzzRead(const std::string &bytes, const char *extension) {
  std::string path = scratch(extension);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  hwagent_tensor_file_t *file = nullptr;
  if (hwagent_tensor_file_open(path.c_str(), &file) != HWAGENT_OK) {
    if (!*hwagent_error_message())
      std::abort(); // a failure always says why
    return;
  }
  volatile unsigned char sum = 0;
  for (uint32_t i = 0; i < hwagent_tensor_file_count(file); ++i) {
    hwagent_tensor_t t;
    if (hwagent_tensor_file_get(file, i, &t) != HWAGENT_OK)
      continue;
    int64_t bytesOf = hwagent_tensor_elements(&t) * hwagent_dtype_size(t.dtype);
    if (bytesOf < 0 || t.rank < 0 || t.rank > HWAGENT_MAX_RANK)
      std::abort();
    for (int64_t b = 0; b < bytesOf; ++b)
      sum = sum + static_cast<const unsigned char *>(t.data)[b];
    hwagent_tensor_t found;
    if (hwagent_tensor_file_find(file, t.name, &found) != HWAGENT_OK)
      std::abort(); // every listed name can be found
  }
  hwagent_tensor_file_close(file);
}

/// Tensors from the bytes through the writer, then read back.
void fuzzWrite(FuzzedDataProvider &in) {
  uint32_t count = in.ConsumeIntegralInRange<uint32_t>(0, 4);
  std::vector<std::string> names(count);
  std::vector<hwagent_tensor_t> tensors(count);
  static char data[1 << 16];
  for (uint32_t i = 0; i < count; ++i) {
    names[i] = in.ConsumeRandomLengthString(12);
    hwagent_tensor_t &t = tensors[i];
    t.name = names[i].c_str();
    t.data = data;
    t.dtype = in.ConsumeIntegralInRange<int32_t>(-1, HWAGENT_NUM_DTYPES);
    t.rank = in.ConsumeIntegralInRange<int32_t>(-1, HWAGENT_MAX_RANK + 1);
    for (int32_t d = 0; d < HWAGENT_MAX_RANK; ++d)
      t.shape[d] = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(0, 6)
                                    : in.ConsumeIntegral<int64_t>();
  }
  std::string key = in.ConsumeRandomLengthString(8);
  std::string value = in.ConsumeRandomLengthString(8);
  const char *metadata[] = {key.c_str(), value.c_str()};
  std::string path = scratch(".safetensors");
  hwagent_status_t checked = hwagent_safetensors_check(
      path.c_str(), tensors.data(), count, metadata, 1);
  // The writer reads at most sizeof(data) bytes of each tensor.
  bool small = true;
  for (const hwagent_tensor_t &t : tensors) {
    int64_t n = 0;
    small &=
        !__builtin_mul_overflow(hwagent_tensor_elements(&t),
                                int64_t(hwagent_dtype_size(t.dtype)), &n) &&
        n >= 0 && n <= int64_t(sizeof(data));
  }
  if (checked != HWAGENT_OK || !small)
    return;
  if (hwagent_safetensors_write(path.c_str(), tensors.data(), count, metadata,
                                1) != HWAGENT_OK)
    std::abort(); // what the check accepts, the writer writes
  hwagent_tensor_file_t *file = nullptr;
  if (hwagent_tensor_file_open(path.c_str(), &file) != HWAGENT_OK)
    std::abort(); // and the reader reads
  for (const hwagent_tensor_t &t : tensors) {
    hwagent_tensor_t back;
    if (hwagent_tensor_file_find(file, t.name, &back) != HWAGENT_OK ||
        back.dtype != t.dtype || back.rank != t.rank ||
        std::memcmp(back.shape, t.shape, sizeof(int64_t) * t.rank) != 0)
      std::abort();
  }
  if (std::strcmp(hwagent_tensor_file_metadata(file, key.c_str()),
                  value.c_str()) != 0)
    std::abort();
  hwagent_tensor_file_close(file);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  if (size < 1)
    return 0;
  FuzzedDataProvider in(bytes + 1, size - 1);
  switch (bytes[0] % 4) {
  case 0:
    fuzzRead(std::string(reinterpret_cast<const char *>(bytes + 1), size - 1),
             ".npy");
    break;
  case 1:
    fuzzRead(std::string(reinterpret_cast<const char *>(bytes + 1), size - 1),
             ".npz");
    break;
  case 2:
    fuzzRead(std::string(reinterpret_cast<const char *>(bytes + 1), size - 1),
             ".safetensors");
    break;
  default:
    fuzzWrite(in);
  }
  return 0;
}
