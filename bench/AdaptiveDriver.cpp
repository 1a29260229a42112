//===- AdaptiveDriver.cpp - the adaptive runtime driven without code ------===//

#include "AdaptiveDriver.h"

#include "HwAgent/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <cstdio>

namespace mlir::hwagent::bench {

std::optional<ModelTable> partitionedTable(MLIRContext &context,
                                           const std::string &path,
                                           const std::string &target) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
  if (!module)
    return std::nullopt;
  PassManager pm(&context);
  PartitionBackendsOptions partition;
  partition.target = target;
  buildPartitionBackendsPipeline(pm, partition);
  if (failed(pm.run(*module)))
    return std::nullopt;
  FailureOr<ModelTable> built = buildModelTable(*module);
  if (failed(built))
    return std::nullopt;
  return std::move(*built);
}

std::optional<AdaptiveRun> runAdaptive(const ModelTable &table,
                                       hwagent_options_t options, int steps) {
  options.simulate_cpu = 1;
  hwagent_model_info_t info = table.info();
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(&info, &options, &session) != HWAGENT_OK) {
    std::fprintf(stderr, "hwagent: %s\n", hwagent_error_message());
    return std::nullopt;
  }
  hwagent_session_make_current(session);
  AdaptiveRun run;
  run.programs = hwagent_session_num_programs(session);
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    for (uint32_t p = 0; p < run.programs; ++p) {
      int32_t backend = hwagent_rt_select(p);
      hwagent_rt_begin(p, backend);
      hwagent_rt_end(p, backend, 0);
    }
    hwagent_session_end_step(session, 0.0);
  }
  run.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  hwagent_session_regret(session, &run.regret);
  run.outcomes.resize(hwagent_session_event_outcomes(session, nullptr, 0));
  hwagent_session_event_outcomes(session, run.outcomes.data(),
                                 run.outcomes.size());
  run.switchSteps.resize(hwagent_session_switch_steps(session, nullptr, 0));
  hwagent_session_switch_steps(session, run.switchSteps.data(),
                               run.switchSteps.size());
  hwagent_session_make_current(nullptr);
  if (hwagent_session_destroy(session) != HWAGENT_OK) {
    std::fprintf(stderr, "hwagent: %s\n", hwagent_error_message());
    return std::nullopt;
  }
  return run;
}

} // namespace mlir::hwagent::bench
