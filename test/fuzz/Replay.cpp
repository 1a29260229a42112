//===- Replay.cpp - run a fuzz harness over saved inputs
//-------------------===//
//
// Without libFuzzer: calls LLVMFuzzerTestOneInput on every file of the
// folders and files given, as libFuzzer does when it replays a corpus. The
// test command runs the tensor-file harness this way over its seeds and the
// inputs a 1M-execution fuzzing run kept (test/fuzz/corpus/
// tensorfile-regression), so a regression in what the fuzzer once reached
// fails without clang (docs/building.md, "Sanitizers and fuzzing").
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);

int main(int argc, char **argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto &entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file())
          inputs.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(path, error)) {
      inputs.push_back(path);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 1;
    }
  }
  for (const std::filesystem::path &path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("replay: %zu inputs, no failure\n", inputs.size());
  return inputs.empty() ? 1 : 0;
}
