//===- BuiltinTargets.cpp - named hardware targets ------------------------===//
//
// Every number is sourced in docs/targets.md: published measurements where
// they exist (BRIEF.md's table), vendor figures or figures derived from them
// otherwise, and modeling choices marked as such. The built-ins go through
// the same parser as user files, so they are validated the same way.
//
//===----------------------------------------------------------------------===//

#include "hwagent/CostModel/Target.h"

#include <cstdio>
#include <cstdlib>

using namespace hwcore;

namespace {
struct AppleChip {
  const char *name;
  const char *description;
  double anePeak;      // measured fp16 FLOP/s (derived for M2 Pro)
  double bandwidth;    // SoC memory bandwidth, bytes/s
  double gpuPeak;      // fp32 FLOP/s, cores x 128 ALUs x 2 x clock
};

// The ANE, CPU and link parameters shared by the Apple targets.
const char *kAppleTemplate = R"json({
  "schema": "hwagent.target", "version": 1,
  "name": "%s",
  "description": "%s",
  "backends": [
    {"backend": "ane", "simulated": true,
     "peak_flops": {"f16": %g, "f32": %g},
     "ramp_flops": 1.8e10, "ramp_exponent": 0.38,
     "bandwidth": %g, "dispatch": 1.6e-4,
     "sram_bytes": 33554432, "spill_factor": 2.0,
     "compile": 0.03, "weight_update": "input",
     "max_dim": 16384, "max_rank": 4,
     "op_kinds": ["conv", "depthwise", "matmul", "elementwise", "reduction",
                  "normalization", "pooling", "data_movement"],
     "element_types": ["f16", "f32"]},
    {"backend": "cpu",
     "peak_flops": {"f32": 1.4e12, "f16": 1.4e12, "default": 1.0e11},
     "ramp_flops": 1.0e8, "ramp_exponent": 0.5,
     "bandwidth": %g, "dispatch": 5.0e-6},
    {"backend": "gpu",
     "peak_flops": {"f32": %g, "f16": %g, "default": %g},
     "ramp_flops": 1.0e9, "ramp_exponent": 0.5,
     "bandwidth": %g, "dispatch": 1.0e-4,
     "op_kinds": ["conv", "depthwise", "matmul", "elementwise", "reduction",
                  "normalization", "pooling", "data_movement"],
     "element_types": ["f16", "f32", "i32", "i16", "i8", "i1"]}
  ],
  "default_link": {"bandwidth": %g, "convert_bandwidth": %g, "sync": 2.0e-4},
  "links": [
    {"from": "cpu", "to": "gpu", "bandwidth": %g, "convert_bandwidth": %g, "sync": 5.0e-5},
    {"from": "gpu", "to": "cpu", "bandwidth": %g, "convert_bandwidth": %g, "sync": 5.0e-5}
  ]
})json";

const AppleChip kAppleChips[] = {
    {"apple-m1", "Apple M1: 16-core ANE, 4 P-cores with AMX, 8-core GPU, 68 GB/s",
     3.3e12, 6.8e10, 2.6e12},
    {"apple-m2-pro",
     "Apple M2 Pro: 16-core ANE, P-cores with AMX, 19-core GPU, 200 GB/s",
     4.7e12, 2.0e11, 6.8e12},
    {"apple-m4", "Apple M4: 16-core ANE, P-cores with SME, 10-core GPU, 120 GB/s",
     1.09e13, 1.2e11, 4.6e12},
    {"apple-m4-max",
     "Apple M4 Max: 16-core ANE, P-cores with SME, 40-core GPU, 546 GB/s",
     1.09e13, 5.46e11, 1.84e13},
};

std::string appleTarget(const AppleChip &chip) {
  double convert = chip.bandwidth / 2;
  char buffer[4096];
  std::snprintf(buffer, sizeof(buffer), kAppleTemplate, chip.name,
                chip.description, chip.anePeak, chip.anePeak, chip.bandwidth,
                chip.bandwidth, chip.gpuPeak, chip.gpuPeak, chip.gpuPeak / 2,
                chip.bandwidth, chip.bandwidth, convert, chip.bandwidth,
                convert, chip.bandwidth, convert);
  return buffer;
}

// This machine's CPU, from `hwagent-calibrate` (docs/targets.md gives the
// run); re-run the tool on another machine to describe it.
const char *kHostTarget = R"json({
  "schema": "hwagent.target", "version": 1,
  "name": "host",
  "description": "the development machine's CPU (2-core Intel Xeon VM) measured by hwagent-calibrate on 2026-12-02: JIT-compiled linalg, one thread",
  "backends": [
    {"backend": "cpu",
     "peak_flops": {"f32": 9.7e8, "default": 9.7e8},
     "ramp_flops": 1.0, "ramp_exponent": 1.0,
     "bandwidth": 1.4e10, "dispatch": 3.4e-9}
  ],
  "default_link": {"bandwidth": 1.4e10, "convert_bandwidth": 7.0e9, "sync": 0.0}
})json";
} // namespace

std::vector<std::string> hwcore::builtinTargetNames() {
  std::vector<std::string> names;
  for (const AppleChip &chip : kAppleChips)
    names.push_back(chip.name);
  names.push_back("host");
  return names;
}

std::optional<TargetDescription>
hwcore::getBuiltinTarget(const std::string &name) {
  std::string text;
  for (const AppleChip &chip : kAppleChips)
    if (name == chip.name)
      text = appleTarget(chip);
  if (name == "host")
    text = kHostTarget;
  if (text.empty())
    return std::nullopt;
  std::string error;
  std::optional<TargetDescription> target = parseTarget(text, error);
  if (!target) {
    // A built-in that does not parse is a bug in this file.
    std::fprintf(stderr, "hwagent: built-in target '%s' is invalid: %s\n",
                 name.c_str(), error.c_str());
    std::abort();
  }
  return target;
}
