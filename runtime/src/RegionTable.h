//===- RegionTable.h - the table generated code hands the runtime -*- C++ -*-===//
//
// Text, so that generated code only needs a string constant:
//
//   hwagent-region-table 1
//   target <name>
//   region <id> <key> <assigned> <legal-mask> <t_cpu> <t_ane> <t_gpu> <flops> <bytes>
//   edge <from-id|-1 for host> <to-id|-1> <bytes> [<converts 0|1>]
//   link <bandwidth B/s> <convert bandwidth B/s> <sync s>     (optional)
//   compile <backend> <seconds>                              (optional)
//
// Times are the compiler's predictions in seconds (0 where illegal).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_REGIONTABLE_H
#define HWAGENT_RT_REGIONTABLE_H

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwagent_rt {

constexpr int kNumBackends = 3;
const char *backendName(int backend);

struct RegionInfo {
  int64_t id = 0;
  std::string key;
  int32_t assigned = 0;
  uint32_t legalMask = 1;
  double predicted[kNumBackends] = {0, 0, 0};
  int64_t flops = 0;
  int64_t bytes = 0;

  bool legal(int backend) const { return (legalMask >> backend) & 1u; }
};

struct EdgeInfo {
  int64_t from = -1, to = -1, bytes = 0;
  /// Table indices of `from` and `to` (-1: the host), resolved at parse.
  int fromIndex = -1, toIndex = -1;
  /// f32 data: converted to f16 when it crosses to or from the ANE.
  bool converts = true;
};

struct RegionTable {
  std::string target;
  std::vector<RegionInfo> regions;
  std::vector<EdgeInfo> edges;
  /// Boundary price: sync + bytes / bandwidth (+ bytes / convertBandwidth
  /// when f32 data crosses to or from the ANE).
  double linkBandwidth = 1e11, linkConvertBandwidth = 5e10, linkSync = 2e-4;
  /// Ordered pairs with their own price (`pair` lines), else the above.
  struct Link {
    bool present = false;
    double bandwidth = 0, convertBandwidth = 0, sync = 0;
  };
  Link pairs[kNumBackends][kNumBackends];
  /// One-time cost of first running a backend's variant (compilation).
  double compile[kNumBackends] = {0, 0, 0};

  /// Table index of each region id.
  absl::flat_hash_map<int64_t, uint32_t> indexOf;
  /// Per region (table index), the edges (indices into `edges`) that
  /// touch it.
  std::vector<std::vector<uint32_t>> incident;
};

/// Parses the table; errors name the line.
absl::StatusOr<RegionTable> parseRegionTable(absl::string_view text);

} // namespace hwagent_rt

#endif // HWAGENT_RT_REGIONTABLE_H
