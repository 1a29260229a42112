//===- TensorFileTest.cpp - .npy/.npz/safetensors and named steps --------===//
//
// The runtime's tensor files against bytes written here the way NumPy and
// the safetensors format lay them out, and hwagent_step_t's binding checks
// against a hand-written function table whose entry point is plain C++.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/hwagent_" + std::to_string(getpid()) + "_" +
         name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A version-1 .npy image of `values` with NumPy's header layout.
std::string npy(const std::string &descr, const std::string &shape,
                const void *data, size_t bytes) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  out += header;
  out.append(static_cast<const char *>(data), bytes);
  return out;
}

TEST(TensorFile, ReadsNpy) {
  float values[6] = {1, 2, 3, 4, 5, 6};
  std::string path = tempPath("x.npy");
  writeBytes(path, npy("<f4", "(2, 3)", values, sizeof(values)));
  hwagent_tensor_file_t *file = nullptr;
  ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK)
      << hwagent_error_message();
  ASSERT_EQ(hwagent_tensor_file_count(file), 1u);
  hwagent_tensor_t t;
  ASSERT_EQ(hwagent_tensor_file_get(file, 0, &t), HWAGENT_OK);
  EXPECT_STREQ(
      t.name,
      std::string("hwagent_" + std::to_string(getpid()) + "_x").c_str());
  EXPECT_EQ(t.dtype, HWAGENT_DTYPE_F32);
  ASSERT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  EXPECT_EQ(std::memcmp(t.data, values, sizeof(values)), 0);
  hwagent_tensor_file_close(file);
  std::remove(path.c_str());
}

TEST(TensorFile, RejectsBadNpy) {
  float values[6] = {};
  struct Case {
    std::string bytes, message;
  } cases[] = {
      {npy("<f4", "(2, 3)", values, 20), "truncated"},
      {npy(">f4", "(2, 3)", values, 24), "big-endian"},
      {npy("<c8", "(2, 3)", values, 24), "not supported"},
      {"not numpy at all", "bad magic"},
  };
  std::string path = tempPath("bad.npy");
  for (const Case &c : cases) {
    writeBytes(path, c.bytes);
    hwagent_tensor_file_t *file = nullptr;
    EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
    EXPECT_EQ(file, nullptr);
    std::string message = hwagent_error_message();
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
  std::remove(path.c_str());
  hwagent_tensor_file_t *file = nullptr;
  EXPECT_EQ(hwagent_tensor_file_open(tempPath("missing.npz").c_str(), &file),
            HWAGENT_NOT_FOUND);
}

TEST(TensorFile, SafetensorsRoundTripAndTruncation) {
  float w[4] = {0.5f, -1.0f, 2.0f, 3.5f};
  int64_t labels[3] = {7, 8, 9};
  hwagent_tensor_t tensors[2] = {};
  tensors[0].name = "w";
  tensors[0].data = w;
  tensors[0].rank = 2;
  tensors[0].shape[0] = 2;
  tensors[0].shape[1] = 2;
  tensors[0].dtype = HWAGENT_DTYPE_F32;
  tensors[1].name = "labels";
  tensors[1].data = labels;
  tensors[1].rank = 1;
  tensors[1].shape[0] = 3;
  tensors[1].dtype = HWAGENT_DTYPE_I64;
  const char *metadata[] = {"step", "42"};
  std::string path = tempPath("p.safetensors");
  ASSERT_EQ(hwagent_safetensors_write(path.c_str(), tensors, 2, metadata, 1),
            HWAGENT_OK)
      << hwagent_error_message();
  hwagent_tensor_file_t *file = nullptr;
  ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK)
      << hwagent_error_message();
  EXPECT_STREQ(hwagent_tensor_file_metadata(file, "step"), "42");
  hwagent_tensor_t t;
  ASSERT_EQ(hwagent_tensor_file_find(file, "labels", &t), HWAGENT_OK);
  EXPECT_EQ(t.dtype, HWAGENT_DTYPE_I64);
  EXPECT_EQ(std::memcmp(t.data, labels, sizeof(labels)), 0);
  ASSERT_EQ(hwagent_tensor_file_find(file, "w", &t), HWAGENT_OK);
  EXPECT_EQ(std::memcmp(t.data, w, sizeof(w)), 0);
  EXPECT_EQ(hwagent_tensor_file_find(file, "nothing", &t), HWAGENT_NOT_FOUND);
  hwagent_tensor_file_close(file);

  // Cut the file short: the reader names the tensor that does not fit.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  writeBytes(path, bytes.substr(0, bytes.size() - 4));
  EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
  EXPECT_NE(std::string(hwagent_error_message()).find("truncated"),
            std::string::npos)
      << hwagent_error_message();
  std::remove(path.c_str());
  // An unwritable destination is an error, not silence.
  EXPECT_EQ(hwagent_safetensors_write("/nonexistent-dir/p.safetensors", tensors,
                                      2, nullptr, 0),
            HWAGENT_IO_ERROR);
}

// A function table written by hand: y = x * 2 (the "result") and
// w' = w + 1 (a parameter update), with MLIR's C-interface layout.
struct Descriptor1 {
  float *allocated, *aligned;
  int64_t offset, size, stride;
};
struct Results {
  Descriptor1 y, w;
};

void invokeDouble(void **args) {
  auto *x = static_cast<Descriptor1 *>(args[0]);
  auto *w = static_cast<Descriptor1 *>(args[1]);
  auto *results = static_cast<Results *>(args[2]);
  auto *y = static_cast<float *>(_mlir_memref_to_llvm_alloc(4 * x->size));
  auto *next = static_cast<float *>(_mlir_memref_to_llvm_alloc(4 * w->size));
  for (int64_t i = 0; i < x->size; ++i)
    y[i] = 2 * x->aligned[x->offset + i];
  for (int64_t i = 0; i < w->size; ++i)
    next[i] = w->aligned[w->offset + i] + 1;
  results->y = {y, y, 0, x->size, 1};
  results->w = {next, next, 0, w->size, 1};
}

TEST(Step, BindsByNameAndUpdatesParameters) {
  static const int64_t four[] = {4}, two[] = {2};
  static const hwagent_value_info_t args[] = {
      {"x", four, 1, HWAGENT_DTYPE_F32, HWAGENT_ROLE_INPUT, -1},
      {"w", two, 1, HWAGENT_DTYPE_F32, HWAGENT_ROLE_PARAMETER, -1}};
  static const hwagent_value_info_t results[] = {
      {"y", four, 1, HWAGENT_DTYPE_F32, HWAGENT_ROLE_OUTPUT, -1},
      {"w", two, 1, HWAGENT_DTYPE_F32, HWAGENT_ROLE_PARAMETER, 1}};
  static const hwagent_function_info_t function = {
      "double", invokeDouble, args, results, 2, 2};
  hwagent_model_info_t model = {};
  model.version = HWAGENT_MODEL_INFO_VERSION;
  model.num_backends = HWAGENT_NUM_BACKENDS;
  model.num_functions = 1;
  model.functions = &function;

  hwagent_step_t *step = nullptr;
  EXPECT_EQ(hwagent_step_create(&model, "nothing", &step), HWAGENT_NOT_FOUND);
  EXPECT_NE(std::string(hwagent_error_message()).find("@double"),
            std::string::npos);
  ASSERT_EQ(hwagent_step_create(&model, "double", &step), HWAGENT_OK);
  float x[4] = {1, 2, 3, 4}, w[2] = {10, 20};
  int64_t wrong[] = {3};
  EXPECT_EQ(hwagent_step_bind(step, "x", x, HWAGENT_DTYPE_F32, 1, wrong),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hwagent_error_message()).find("f32 [4], bound f32 [3]"),
            std::string::npos)
      << hwagent_error_message();
  EXPECT_EQ(hwagent_step_bind(step, "x", x, HWAGENT_DTYPE_I32, 1, four),
            HWAGENT_INVALID_ARGUMENT);
  EXPECT_EQ(hwagent_step_bind(step, "z", x, HWAGENT_DTYPE_F32, 1, four),
            HWAGENT_NOT_FOUND);
  ASSERT_EQ(hwagent_step_bind(step, "x", x, HWAGENT_DTYPE_F32, 1, four),
            HWAGENT_OK);
  EXPECT_EQ(hwagent_step_run(step), HWAGENT_INVALID_ARGUMENT); // w unbound
  ASSERT_EQ(hwagent_step_bind(step, "w", w, HWAGENT_DTYPE_F32, 1, two),
            HWAGENT_OK);
  hwagent_buffer_stats_t before, after;
  hwagent_buffer_stats(&before);
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(hwagent_step_run(step), HWAGENT_OK) << hwagent_error_message();
  // The parameter's buffer holds the third update; the output is readable.
  EXPECT_EQ(w[0], 13);
  EXPECT_EQ(w[1], 23);
  hwagent_tensor_t y;
  ASSERT_EQ(hwagent_step_result(step, "y", &y), HWAGENT_OK);
  EXPECT_EQ(y.rank, 1);
  EXPECT_EQ(y.shape[0], 4);
  EXPECT_EQ(static_cast<float *>(y.data)[3], 8);
  hwagent_step_destroy(step);
  // Every buffer the function returned was released.
  hwagent_buffer_stats(&after);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
}

} // namespace
