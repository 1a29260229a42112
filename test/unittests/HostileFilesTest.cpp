//===- HostileFilesTest.cpp - tensor files a hostile user or disk writes --===//
//
// Issue 38's cases against the shared reader and writer: .npy headers cut
// short or written in ways NumPy refuses, .npz members that lie about their
// size or share a name, safetensors whose tensors overlap, names the format
// cannot hold, FIFOs, files truncated under a run, and the C API's checks
// on the shapes callers pass it. Each case must end in a status and a
// message naming the file, never a crash, a hang or a silent wrong read.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/hwagent_hostile_" + std::to_string(getpid()) +
         "_" + name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// A version-1 .npy image whose header text is `dict`, padded as NumPy pads.
std::string npyRaw(const std::string &dict, const std::string &data) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  return out + header + data;
}

std::string npyOf(const std::string &descr, const std::string &shape,
                  const std::string &data) {
  return npyRaw("{'descr': '" + descr +
                    "', 'fortran_order': False, 'shape': " + shape + ", }",
                data);
}

/// Opens `path` expecting failure; the message (which must name the file).
std::string openError(const std::string &path) {
  hwagent_tensor_file_t *file = nullptr;
  EXPECT_NE(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
  EXPECT_EQ(file, nullptr);
  std::string message = hwagent_error_message();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  return message;
}

TEST(HostileNpy, HeaderEndingAfterAKeyIsRefused) {
  std::string path = tempPath("cut.npy");
  for (const char *dict : {"{'descr': '<f4', 'fortran_order': False, 'shape':",
                           "{'descr':", "{'descr': '<f4', 'fortran_order':",
                           "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,",
                           "", "{"}) {
    writeBytes(path, npyRaw(dict, std::string(8, '\0')));
    std::string message = openError(path);
    EXPECT_NE(message.find("malformed .npy header"), std::string::npos)
        << dict << ": " << message;
  }
  std::remove(path.c_str());
}

TEST(HostileNpy, RefusesWhatNumPyRefuses) {
  std::string path = tempPath("numpy.npy");
  std::string data(24, '\0');
  struct Case {
    std::string dict, message;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,2), }",
       "expected a non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}}",
       "expected the end of the header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6)}",
       "must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}",
       "expected a string, a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 'y'}",
       "exactly 'descr'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}",
       "structured"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (06,)}",
       "leading zeros"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}",
       "non-negative integer"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (6,)}", "big-endian"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (6,)}", "Fortran"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}",
       "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4294967296, 4294967296)}",
       "overflows"},
  };
  for (const Case &c : cases) {
    writeBytes(path, npyRaw(c.dict, data));
    std::string message = openError(path);
    EXPECT_NE(message.find(c.message), std::string::npos)
        << c.dict << ": " << message;
  }
  // NumPy's header-size limit.
  writeBytes(path, npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': "
                          "(6,)}" +
                              std::string(10001, ' '),
                          data));
  EXPECT_NE(openError(path).find("limit of 10000"), std::string::npos);
  std::remove(path.c_str());
}

TEST(HostileNpy, ReadsWhatNumPyReads) {
  std::string path = tempPath("ok.npy");
  // A repeated key: Python's dict keeps the last value. Double quotes, no
  // trailing comma, no byte order on f4, '>' on a one-byte type.
  struct Case {
    std::string dict;
    int32_t dtype;
    int32_t rank;
  } cases[] = {
      {"{'descr': '<i4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (2, 3), }",
       HWAGENT_DTYPE_F32, 2},
      {"{\"descr\": \"f4\", \"fortran_order\": False, \"shape\": (6,)}",
       HWAGENT_DTYPE_F32, 1},
      {"{'descr': '>u1', 'fortran_order': False, 'shape': (24,)}",
       HWAGENT_DTYPE_U8, 1},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       HWAGENT_DTYPE_F32, 0},
  };
  for (const Case &c : cases) {
    writeBytes(path, npyRaw(c.dict, std::string(24, '\0')));
    hwagent_tensor_file_t *file = nullptr;
    ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK)
        << c.dict << ": " << hwagent_error_message();
    hwagent_tensor_t t;
    ASSERT_EQ(hwagent_tensor_file_get(file, 0, &t), HWAGENT_OK);
    EXPECT_EQ(t.dtype, c.dtype) << c.dict;
    EXPECT_EQ(t.rank, c.rank) << c.dict;
    hwagent_tensor_file_close(file);
  }
  std::remove(path.c_str());
}

TEST(HostileNpy, FifoIsRefusedWithoutBlocking) {
  std::string path = tempPath("fifo.npy");
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_NE(openError(path).find("not a regular file"), std::string::npos);
  std::remove(path.c_str());
}

TEST(HostileNpy, FileTruncatedAfterOpeningStaysReadable) {
  std::string path = tempPath("shrink.npy");
  std::vector<float> values(4096, 1.5f);
  writeBytes(path, npyOf("<f4", "(4096,)",
                         std::string(reinterpret_cast<char *>(values.data()),
                                     values.size() * 4)));
  hwagent_tensor_file_t *file = nullptr;
  ASSERT_EQ(hwagent_tensor_file_open(path.c_str(), &file), HWAGENT_OK);
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  hwagent_tensor_t t;
  ASSERT_EQ(hwagent_tensor_file_get(file, 0, &t), HWAGENT_OK);
  float *data = static_cast<float *>(t.data);
  EXPECT_EQ(data[4095], 1.5f); // a mapping would fault here (SIGBUS)
  data[0] = 2;                 // views are writable memory the file owns
  hwagent_tensor_file_close(file);
  std::remove(path.c_str());
}

} // namespace
