//===- NumpyConformanceTest.cpp - files NumPy writes, read as NumPy does --===//
//
// The corpus is written at test time by NumPy itself
// (Inputs/numpy_corpus.py): every dtype hwagent has, in .npy versions 1-3,
// several shapes (scalar and empty included), np.savez and
// np.savez_compressed, and arrays NumPy writes that hwagent refuses. Each
// accepted array must read with NumPy's dtype, shape and values; each
// refused one must fail with a message that says why.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// Element `i` of `t` as a double.
double elementAt(const hwagent_tensor_t &t, int64_t i) {
  const char *p = static_cast<const char *>(t.data);
  switch (t.dtype) {
  case HWAGENT_DTYPE_F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case HWAGENT_DTYPE_F64: {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case HWAGENT_DTYPE_F16: {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    // Small integers only: exponent and mantissa of a normal half.
    int exponent = (h >> 10) & 0x1f;
    double mantissa = h & 0x3ff;
    return exponent ? (1 + mantissa / 1024) * std::ldexp(1.0, exponent - 15)
                    : mantissa / 1024 * std::ldexp(1.0, -14);
  }
  case HWAGENT_DTYPE_I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case HWAGENT_DTYPE_I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return double(v);
  }
  case HWAGENT_DTYPE_I8:
    return int8_t(p[i]);
  default: // u8, bool
    return uint8_t(p[i]);
  }
}

std::string shapeOf(const hwagent_tensor_t &t) {
  if (t.rank == 0)
    return "scalar";
  std::string out;
  for (int32_t d = 0; d < t.rank; ++d)
    out += (d ? "," : "") + std::to_string(t.shape[d]);
  return out;
}

TEST(NumpyConformance, ReadsWhatNumPyWritesAndRefusesWithAReason) {
  std::string dir = ::testing::TempDir() + "/hwagent_numpy_corpus_" +
                    std::to_string(getpid());
  std::string command = "/usr/bin/python3 " HWAGENT_SOURCE_DIR
                        "/test/unittests/Inputs/numpy_corpus.py " +
                        dir;
  if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream manifest(dir + "/manifest.txt");
  std::string line;
  int checked = 0;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string file, member, verdict, what, shape;
    fields >> file >> member >> verdict >> what >> shape;
    std::string path = dir + "/" + file;
    hwagent_tensor_file_t *f = nullptr;
    hwagent_status_t status = hwagent_tensor_file_open(path.c_str(), &f);
    ++checked;
    if (verdict == "refuse") {
      EXPECT_NE(status, HWAGENT_OK) << line;
      EXPECT_NE(std::string(hwagent_error_message()).find(what),
                std::string::npos)
          << line << ": " << hwagent_error_message();
      continue;
    }
    ASSERT_EQ(status, HWAGENT_OK) << line << ": " << hwagent_error_message();
    hwagent_tensor_t t;
    ASSERT_EQ(member == "-" ? hwagent_tensor_file_get(f, 0, &t)
                            : hwagent_tensor_file_find(f, member.c_str(), &t),
              HWAGENT_OK)
        << line << ": " << hwagent_error_message();
    EXPECT_STREQ(hwagent_dtype_name(t.dtype), what.c_str()) << line;
    EXPECT_EQ(shapeOf(t), shape) << line;
    int64_t n = hwagent_tensor_elements(&t);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(elementAt(t, i), what == "bool" ? double(i % 2) : double(i))
          << line << " element " << i;
    hwagent_tensor_file_close(f);
  }
  EXPECT_GT(checked, 100);
  std::system(("rm -rf '" + dir + "'").c_str());
}

} // namespace
