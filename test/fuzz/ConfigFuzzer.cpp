//===- ConfigFuzzer.cpp - libFuzzer harness for the JSON readers ----------===//
//
// The first byte picks the reader (target, telemetry, profile DB), the rest
// is the file's text. Every reader must return a value or an error; a target
// that parses must print and parse back to the same JSON. Built and run by
// scripts/fuzz (docs/building.md).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Config/ProfileDB.h"
#include "HwAgent/Config/TargetFile.h"
#include "HwAgent/Config/Telemetry.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string error;
  switch (data[0] % 3) {
  case 0: {
    auto target = hwconfig::parseTarget(text, error);
    if (!target) {
      if (error.empty())
        std::abort(); // an error must say why
      break;
    }
    std::string printed = hwconfig::printTarget(*target);
    std::string again;
    auto reparsed = hwconfig::parseTarget(printed, again);
    if (!reparsed || hwconfig::printTarget(*reparsed) != printed)
      std::abort(); // printing must round-trip
    break;
  }
  case 1:
    if (!hwconfig::parseTelemetry(text, error) && error.empty())
      std::abort();
    break;
  case 2:
    if (!hwconfig::parseProfileDB(text, error) && error.empty())
      std::abort();
    break;
  }
  return 0;
}
