//===- RegionTable.h - the table generated code hands the runtime -*- C++ -*-===//
//
// Text, so that generated code only needs a string constant:
//
//   hwagent-region-table 1
//   target <name>
//   region <id> <key> <assigned> <legal-mask> <t_cpu> <t_ane> <t_gpu> <flops> <bytes>
//   edge <from-id|-1 for host> <to-id|-1> <bytes>
//
// Times are the compiler's predictions in seconds (0 where illegal).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_REGIONTABLE_H
#define HWAGENT_RT_REGIONTABLE_H

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
};

struct RegionTable {
  std::string target;
  std::vector<RegionInfo> regions;
  std::vector<EdgeInfo> edges;
};

/// Parses the table; errors name the line.
absl::StatusOr<RegionTable> parseRegionTable(absl::string_view text);

} // namespace hwagent_rt

#endif // HWAGENT_RT_REGIONTABLE_H
