//===- HostileArchivesTest.cpp - .npz and safetensors that lie ------------===//
//
// Issue 38's .npz and safetensors cases: members whose central directory
// claims more than the archive holds, members of one name, members never
// used that are corrupt, safetensors with overlapping or holey offsets and
// names the format cannot hold, and hwagent_safetensors_write and
// hwagent_tensor_elements given shapes no tensor can have.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/hwagent_archive_" + std::to_string(getpid()) +
         "_" + name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A version-1 .npy image of `count` floats, each `value`.
std::string npyFloats(const std::string &shape, size_t count, float value) {
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  std::vector<float> values(count, value);
  return out + header +
         std::string(reinterpret_cast<const char *>(values.data()), count * 4);
}

/// An .npz of stored (uncompressed) members, as np.savez writes them.
void writeNpz(const std::string &path,
              const std::vector<std::pair<std::string, std::string>> &members) {
  std::remove(path.c_str());
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr);
  std::vector<std::string> keep;
  keep.reserve(members.size());
  for (const auto &[name, bytes] : members) {
    keep.push_back(bytes);
    zip_source_t *source =
        zip_source_buffer(archive, keep.back().data(), keep.back().size(), 0);
    zip_int64_t index = zip_file_add(archive, name.c_str(), source, 0);
    ASSERT_GE(index, 0);
    zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0);
  }
  ASSERT_EQ(zip_close(archive), 0);
}

/// Replaces every `from` in the file with `to` (of the same length).
void patchAll(const std::string &path, const std::string &from,
              const std::string &to) {
  std::string bytes = readBytes(path);
  for (size_t at = bytes.find(from); at != std::string::npos;
       at = bytes.find(from, at + 1))
    bytes.replace(at, from.size(), to);
  writeBytes(path, bytes);
}

float firstFloat(hwagent_tensor_file_t *file, const char *name) {
  hwagent_tensor_t t;
  EXPECT_EQ(hwagent_tensor_file_find(file, name, &t), HWAGENT_OK)
      << hwagent_error_message();
  return t.data ? static_cast<const float *>(t.data)[0] : -1;
}

TEST(HostileNpz, MembersOfOneNameBindTheLastAsNumPyDoes) {
  std::string path = tempPath("twice.npz");
  writeNpz(path, {{"x.npy", npyFloats("(2,)", 2, 1)},
                  {"q.npy", npyFloats("(2,)", 2, 2)}});
  patchAll(path, "q.npy", "x.npy");
  hwagent_tensor_file_t *file = nullptr;
  ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK)
      << hwagent_error_message();
  EXPECT_EQ(hwagent_tensor_file_count(file), 1u);
  EXPECT_EQ(firstFloat(file, "x"), 2.0f);
  hwagent_tensor_file_close(file);
  std::remove(path.c_str());
}

TEST(HostileNpz, OnlyTheMembersUsedAreRead) {
  // 'big' is corrupt past its header: opening and reading 'x' succeed, and
  // 'big' fails with a message when it is asked for.
  std::string path = tempPath("unused.npz");
  std::string big = npyFloats("(8192,)", 8192, 3);
  writeNpz(path, {{"x.npy", npyFloats("(2,)", 2, 1)}, {"big.npy", big}});
  std::string bytes = readBytes(path);
  size_t at = bytes.find(big);
  ASSERT_NE(at, std::string::npos);
  bytes[at + big.size() - 1] ^= 0x55; // the CRC no longer matches
  writeBytes(path, bytes);
  hwagent_tensor_file_t *file = nullptr;
  ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK)
      << hwagent_error_message();
  EXPECT_EQ(firstFloat(file, "x"), 1.0f);
  hwagent_tensor_t t;
  EXPECT_NE(hwagent_tensor_file_find(file, "big", &t), HWAGENT_OK);
  EXPECT_NE(std::string(hwagent_error_message()).find("big"),
            std::string::npos);
  hwagent_tensor_file_close(file);
  std::remove(path.c_str());
}

TEST(HostileNpz, SizesAreBoundedBeforeAllocation) {
  // The member's header promises 400 MB; its 64-byte prefix is all the
  // archive holds. The central directory is patched to agree with the
  // header: the claim is refused from the compressed size, unallocated.
  std::string path = tempPath("claim.npz");
  std::string member = npyFloats("(100000000,)", 0, 0);
  writeNpz(path, {{"x.npy", member}});
  uint32_t claimed = uint32_t(member.size()) + 400000000u;
  std::string bytes = readBytes(path);
  // The uncompressed size: byte 22 of the local header, 24 of the central.
  for (auto [signature, offset] :
       {std::pair<const char *, size_t>{"PK\x03\x04", 22},
        {"PK\x01\x02", 24}}) {
    size_t at = bytes.find(signature);
    ASSERT_NE(at, std::string::npos);
    std::memcpy(&bytes[at + offset], &claimed, 4);
  }
  writeBytes(path, bytes);
  hwagent_tensor_file_t *file = nullptr;
  EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
  EXPECT_EQ(file, nullptr);
  std::string message = hwagent_error_message();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("compressed bytes"), std::string::npos) << message;
  std::remove(path.c_str());
}

/// A safetensors image with header `json` and `data`.
std::string safetensors(const std::string &json, const std::string &data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = char((uint64_t(json.size()) >> (8 * i)) & 0xff);
  return out + json + data;
}

TEST(HostileSafetensors, RefusesWhatTheFormatForbids) {
  std::string path = tempPath("bad.safetensors");
  std::string data(16, '\0');
  struct Case {
    std::string json, message;
  } cases[] = {
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
       "overlap"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
       "hole"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       "bytes after the last tensor"},
      {R"({"":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       "empty tensor name"},
      {R"({"__metadata__":{"k":1},)"
       R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       "not a string"},
  };
  for (const Case &c : cases) {
    writeBytes(path, safetensors(c.json, data));
    hwagent_tensor_file_t *file = nullptr;
    EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
    std::string message = hwagent_error_message();
    EXPECT_NE(message.find(c.message), std::string::npos)
        << c.json << ": " << message;
  }
  // A header over the reference implementation's 100 MB cap is refused
  // from its length, before it is read.
  std::string huge(8, '\0');
  huge[3] = 0x10; // 268 MB
  writeBytes(path, huge + "{}");
  hwagent_tensor_file_t *file = nullptr;
  EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
  EXPECT_NE(std::string(hwagent_error_message()).find("limit"),
            std::string::npos)
      << hwagent_error_message();
  std::remove(path.c_str());
}

hwagent_tensor_t floatTensor(const char *name, float *data, int32_t rank,
                             std::vector<int64_t> shape) {
  hwagent_tensor_t t = {};
  t.name = name;
  t.data = data;
  t.rank = rank;
  t.dtype = HWAGENT_DTYPE_F32;
  for (size_t d = 0; d < shape.size() && d < HWAGENT_MAX_RANK; ++d)
    t.shape[d] = shape[d];
  return t;
}

TEST(HostileSafetensors, WriterChecksShapesAndNames) {
  std::string path = tempPath("w.safetensors");
  float w[4] = {1, 2, 3, 4};
  struct Case {
    hwagent_tensor_t tensor;
    std::string message;
  } cases[] = {
      {floatTensor("w", w, 1, {-1000000}), "negative or overflowing"},
      {floatTensor("w", w, 2, {INT64_MAX / 2, 3}), "negative or overflowing"},
      {floatTensor("__metadata__", w, 1, {4}), "__metadata__"},
      {floatTensor("", w, 1, {4}), "empty tensor name"},
      {floatTensor("w1\xFF", w, 1, {4}), "not UTF-8"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(hwagent_safetensors_write(path.c_str(), &c.tensor, 1, nullptr, 0),
              HWAGENT_INVALID_ARGUMENT);
    std::string message = hwagent_error_message();
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
  hwagent_tensor_t ok = floatTensor("w", w, 1, {4});
  const char *metadata[] = {"step\xC0", "1"};
  EXPECT_EQ(hwagent_safetensors_write(path.c_str(), &ok, 1, metadata, 1),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("not UTF-8"),
            std::string::npos);
  EXPECT_NE(access(path.c_str(), F_OK), 0); // nothing was written
}

TEST(HostileSafetensors, StaleTemporariesOfKilledWritersAreRemoved) {
  // A writer killed during a save (kill -9) leaves <path>.tmp.<pid>; the
  // next save removes it when that process is gone, and only then.
  std::string path = tempPath("stale.safetensors");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  std::string stale = path + ".tmp." + std::to_string(child);
  std::string live = path + ".tmp." + std::to_string(getppid());
  writeBytes(stale, "left by a killed writer");
  writeBytes(live, "a live writer's");
  float w[4] = {1, 2, 3, 4};
  hwagent_tensor_t t = floatTensor("w", w, 1, {4});
  ASSERT_EQ(hwagent_safetensors_write(path.c_str(), &t, 1, nullptr, 0),
            HWAGENT_OK)
      << hwagent_error_message();
  EXPECT_NE(access(stale.c_str(), F_OK), 0);
  EXPECT_EQ(access(live.c_str(), F_OK), 0);
  std::remove(live.c_str());
  std::remove(path.c_str());
}

TEST(HostileCApi, SecondBufferFreeIsCaught) {
  // The second free used to reach the system's free() while the cache
  // still held the buffer: the next two allocations shared it.
  void *p = _mlir_memref_to_llvm_alloc(200);
  hwagent_buffer_free(p);
  hwagent_buffer_free(p);
  EXPECT_NE(std::string(hwagent_error_message()).find("already freed"),
            std::string::npos);
  void *q = _mlir_memref_to_llvm_alloc(200);
  void *r = _mlir_memref_to_llvm_alloc(200);
  EXPECT_NE(q, r);
  std::memset(q, 1, 200);
  std::memset(r, 2, 200);
  EXPECT_EQ(static_cast<unsigned char *>(q)[0], 1);
  hwagent_buffer_free(q);
  hwagent_buffer_free(r);
}

TEST(HostileCApi, StepBindWithoutShapeIsAnError) {
  static const int64_t four[] = {4};
  static const hwagent_value_info_t args[] = {
      {"x", four, 1, HWAGENT_DTYPE_F32, HWAGENT_ROLE_INPUT, -1}};
  static const hwagent_function_info_t function = {
      "f", [](void **) {}, args, nullptr, 1, 0};
  hwagent_model_info_t model = {};
  model.version = HWAGENT_MODEL_INFO_VERSION;
  model.num_backends = HWAGENT_NUM_BACKENDS;
  model.num_functions = 1;
  model.functions = &function;
  hwagent_step_t *step = nullptr;
  ASSERT_EQ(hwagent_step_create(&model, "f", &step), HWAGENT_OK)
      << hwagent_error_message();
  float x[4];
  EXPECT_EQ(hwagent_step_bind(step, "x", x, HWAGENT_DTYPE_F32, 1, nullptr),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("with no shape"),
            std::string::npos)
      << hwagent_error_message();
  EXPECT_EQ(hwagent_step_bind(step, "x", x, HWAGENT_DTYPE_F32, 99, four),
            HWAGENT_INVALID_ARGUMENT);
  hwagent_step_destroy(step);
}

TEST(HostileCApi, TensorElementsRefusesWhatIsNoTensor) {
  float w[1];
  EXPECT_EQ(hwagent_tensor_elements(nullptr), -1);
  hwagent_tensor_t t = floatTensor("w", w, HWAGENT_MAX_RANK + 1, {});
  EXPECT_EQ(hwagent_tensor_elements(&t), -1);
  t = floatTensor("w", w, -1, {});
  EXPECT_EQ(hwagent_tensor_elements(&t), -1);
  t = floatTensor("w", w, 2, {INT64_MAX / 2, 3});
  EXPECT_EQ(hwagent_tensor_elements(&t), -1);
  t = floatTensor("w", w, 2, {4, -1});
  EXPECT_EQ(hwagent_tensor_elements(&t), -1);
  t = floatTensor("w", w, 2, {4, 3});
  EXPECT_EQ(hwagent_tensor_elements(&t), 12);
  t = floatTensor("w", w, 0, {});
  EXPECT_EQ(hwagent_tensor_elements(&t), 1);
}

} // namespace
