//===- AdaptiveDriver.h - the adaptive runtime driven without code -*- C++
//-*-===//
//
// What the adaptive benchmarks share: a workload partitioned in process
// into the model table hwagent-lower-to-runtime would emit, and a session
// driven through it as the compiled step would (select, begin, end per
// program, then the step end) with every backend simulated so that the
// truth, and so the regret, is known.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_BENCH_ADAPTIVEDRIVER_H
#define HWAGENT_BENCH_ADAPTIVEDRIVER_H

#include "HwAgent/Analysis/ModelTable.h"
#include "hwagent_rt/hwagent_rt.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::hwagent::bench {

/// Partitions `path` for `target` (--partition-backends in process) and
/// builds its model table; diagnostics go to stderr.
std::optional<ModelTable> partitionedTable(MLIRContext &context,
                                           const std::string &path,
                                           const std::string &target);

struct AdaptiveRun {
  hwagent_regret_t regret = {};
  std::vector<hwagent_event_outcome_t> outcomes;
  std::vector<int64_t> switchSteps;
  uint32_t programs = 0;
  double wallSeconds = 0;
};

/// Runs `steps` steps of `table` under `options` (simulate_cpu is set);
/// nullopt with the runtime's message on stderr when the session fails.
std::optional<AdaptiveRun> runAdaptive(const ModelTable &table,
                                       hwagent_options_t options, int steps);

} // namespace mlir::hwagent::bench

#endif // HWAGENT_BENCH_ADAPTIVEDRIVER_H
