//===- RunOutput.cpp - what hwagent-run prints and writes -----------------===//

#include "RunOutput.h"

#include "Driver/Jit.h"
#include "HwAgent/ReportHtml/HtmlReport.h"
#include "Trainer/Checkpoint.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <sys/resource.h>

using namespace mlir;
using namespace mlir::hwagent;

bool PageFiles::create(const std::string &htmlPath, bool withLog,
                       llvm::raw_ostream &errs) {
  if (!checkWritable(htmlPath, errs))
    return false;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("hwagent-report", "json", path)) {
    errs << "hwagent-run: cannot create a temporary file for the report\n";
    return false;
  }
  report = std::string(path);
  if (withLog) {
    if (llvm::sys::fs::createTemporaryFile("hwagent-run", "jsonl", path)) {
      errs << "hwagent-run: cannot create a temporary file for the log\n";
      return false;
    }
    log = std::string(path);
  }
  return true;
}

PageFiles::~PageFiles() {
  if (!report.empty())
    llvm::sys::fs::remove(report);
  if (!log.empty())
    llvm::sys::fs::remove(log);
}

int mlir::hwagent::runWithoutSteps(const RunShow &show, Trainer &trainer) {
  if (trainer.getEvalSamples() > 0) {
    EvaluationRecord v;
    if (!trainer.evaluateOnly(v, llvm::errs()))
      return 1;
    std::string of = !show.resumePath.empty() ? show.resumePath
                     : !show.initPath.empty() ? show.initPath
                                              : "the step's initial values";
    llvm::outs() << llvm::formatv("hwagent-run: no steps to run; evaluated "
                                  "{0}: validation loss {1:e4}",
                                  of, v.loss);
    if (!std::isnan(v.accuracy))
      llvm::outs() << llvm::formatv("  accuracy {0:f2}%", 100 * v.accuracy);
    llvm::outs() << llvm::formatv("  ({0} samples, @{1})\n", v.samples,
                                  trainer.getRunner().getEvalEntry());
    if (!trainer.getRunner().finish(llvm::errs()))
      return 1;
    return std::isfinite(v.loss) ? 0 : 1;
  }
  if (show.resumePath.empty())
    llvm::outs() << "hwagent-run: nothing to run: --steps is 0\n";
  else
    llvm::outs() << llvm::formatv(
        "hwagent-run: nothing to run: {0} is at step {1}, --steps is {2}\n",
        show.resumePath, trainer.getFirstStep(), trainer.getTotalSteps());
  return 0;
}

void mlir::hwagent::printHeader(const RunShow &show, Trainer &trainer) {
  TrainingRunner &runner = trainer.getRunner();
  hwagent_session_t *session = runner.getSession();
  llvm::outs() << llvm::formatv(
      "hwagent-run: @{0} from {1}: {2} inputs, {3} parameters, {4} "
      "program{13}; "
      "target {5}; compiled in {6:f2} s (MLIR {8:f2} s, LLVM {9:f2} s on {10} "
      "thread{11}{12}); peak live tensors {7:f1} MiB\n",
      show.entry, show.inputFile, runner.getNumInputs(),
      show.noUpdates ? llvm::formatv("{0} fixed", runner.getArgs().size() -
                                                      runner.getNumInputs())
                           .str()
                     : std::to_string(runner.getNumParams()),
      hwagent_session_num_programs(session), show.target,
      runner.getCompileSeconds(), runner.getPeakBytes() / double(1 << 20),
      runner.getPipelineSeconds(),
      runner.getCompileSeconds() - runner.getPipelineSeconds(),
      runner.getJitTimes().threads,
      runner.getJitTimes().threads == 1 ? "" : "s",
      runner.getJitTimes().cached == 0
          ? std::string()
          : llvm::formatv(", {0} of {1} parts from the JIT cache",
                          runner.getJitTimes().cached,
                          runner.getJitTimes().parts)
                .str(),
      hwagent_session_num_programs(session) == 1 ? "" : "s");
  if (const Dataset *dataset = trainer.getDataset())
    llvm::outs() << llvm::formatv(
        "hwagent-run: data {0}: {1} training samples ({2} batches per "
        "epoch{3}), {4} held out{5}\n",
        show.dataPath, dataset->numTrain(), trainer.getBatchesPerEpoch(),
        show.shuffle ? ", shuffled" : "", dataset->numValidation(),
        trainer.getEvalSamples() ? " for @" + runner.getEvalEntry()
                                 : std::string());
  if (show.maxSteps >= 0)
    llvm::outs() << llvm::formatv("hwagent-run: HWAGENT_MAX_STEPS caps the "
                                  "run at {0} steps\n",
                                  show.maxSteps);
  if (trainer.getFirstStep())
    llvm::outs() << llvm::formatv("hwagent-run: resumed from {0} at step "
                                  "{1}\n",
                                  show.resumePath, trainer.getFirstStep());
  llvm::outs() << (show.simulateCpu
                       ? "  times: every backend simulated by the "
                         "target's device model (--simulate-cpu)\n"
                       : "  times: cpu measured on this machine; "
                         "ane/gpu simulated by the target's device "
                         "model\n");
  if (const char *counter = hwagent_session_energy_counter(session))
    llvm::outs() << llvm::formatv(
        "  energy: modelled from those times and the target's power values; "
        "this machine's package counter ({0}, every process) measured per "
        "step\n",
        counter);
  else
    llvm::outs() << "  energy: modelled from those times and the target's "
                    "power values (no readable energy counter here: "
                    "powercap/RAPL or perf power events)\n";
}

//===----------------------------------------------------------------------===//
// The summary
//===----------------------------------------------------------------------===//

static void printEnergy(const TrainingSummary &s, hwagent_session_t *session) {
  hwagent_step_stats_t stats;
  hwagent_session_step_stats(session, &stats);
  llvm::outs() << llvm::formatv(
      "hwagent-run: energy {0:f4} J over {1} steps ({2:f3} mJ per step, "
      "{3:f2} W average over the target's step time; modelled), objective "
      "{4}",
      s.joules, s.ran, s.joules / s.ran * 1e3,
      s.seconds > 0 ? s.joules / s.seconds : 0.0,
      hwagent_objective_name(stats.objective));
  if (stats.power_cap > 0)
    llvm::outs() << llvm::formatv(", power cap {0:f2} W", stats.power_cap);
  if (stats.clock > 0 && stats.clock < 1)
    llvm::outs() << llvm::formatv(" (the last step at {0:f2} of the peak "
                                  "clock; modelled)",
                                  stats.clock);
  if (s.counted && hwagent_session_energy_counter(session))
    llvm::outs() << llvm::formatv("; this machine's package {0:f3} J "
                                  "(measured, {1})",
                                  s.counterJoules,
                                  hwagent_session_energy_counter(session));
  llvm::outs() << "\n";
}

/// The contraction kernels' measured throughput, per call site with
/// --kernel-stats.
static void printKernels(bool perCallSite) {
  int64_t count = hwagent_kernels_stats(nullptr, 0);
  if (!count)
    return;
  std::vector<hwagent_kernel_stat_t> kernels(count);
  hwagent_kernels_stats(kernels.data(), count);
  double flops = 0, seconds = 0;
  for (const hwagent_kernel_stat_t &k : kernels) {
    flops += k.flops;
    seconds += k.seconds;
  }
  const hwagent_kernel_stat_t &top = kernels.front();
  llvm::outs() << llvm::formatv(
      "hwagent-run: contraction kernels (measured, cpu): {0} contractions, "
      "{1:f3} GFLOP in {2:f3} s ({3:f1} GFLOP/s); largest {4:f3} GFLOP "
      "per call at {5:f1} GFLOP/s\n",
      count, flops / 1e9, seconds, seconds > 0 ? flops / seconds / 1e9 : 0.0,
      top.flops / std::max<int64_t>(top.calls, 1) / 1e9,
      top.seconds > 0 ? top.flops / top.seconds / 1e9 : 0.0);
  if (!perCallSite)
    return;
  for (const hwagent_kernel_stat_t &k : kernels) {
    // The spec: version, loop count, extents (hwagent_kernels.h).
    std::string loops;
    for (int64_t l = 0; l < k.spec[1]; ++l)
      loops += (l ? "x" : "") + std::to_string(k.spec[2 + l]);
    llvm::outs() << llvm::formatv(
        "  contraction over loops {0}: {1} calls, {2:f4} GFLOP per call, "
        "{3:f3} ms per call, {4:f1} GFLOP/s ({5})\n",
        loops, k.calls, k.flops / std::max<int64_t>(k.calls, 1) / 1e9,
        k.seconds / std::max<int64_t>(k.calls, 1) * 1e3,
        k.seconds > 0 ? k.flops / k.seconds / 1e9 : 0.0,
        k.kernel ? k.kernel : "SGEMM");
  }
}

/// Where the measured steps' wall time went: the contraction kernels, the
/// loops on the runtime's threads, and the rest (loops left inline, copies,
/// the runtime's own work). Every figure is over the same steps (the
/// trainer sums the kernels' and loops' time of the steps it times only).
static void printStepSplit(const TrainingSummary &s) {
  double wall = 0;
  for (double w : s.walls)
    wall += w;
  const auto &work = s.work;
  if (wall <= 0 || work.loopCalls + (work.kernelSeconds > 0) == 0)
    return;
  auto share = [&](double seconds) { return 100.0 * seconds / wall; };
  llvm::outs() << llvm::formatv(
      "hwagent-run: step wall time (measured, cpu, {0} steps): contraction "
      "kernels {1:f1}%, parallel loops {2:f1}% ({3:f1} calls per step, {4} "
      "on more than one thread, {5:f2} threads on average), the rest "
      "{6:f1}%\n",
      s.walls.size(), share(work.kernelSeconds), share(work.loopSeconds),
      double(work.loopCalls) / s.walls.size(), work.threadedLoopCalls,
      work.loopCalls ? double(work.loopThreads) / work.loopCalls : 0.0,
      std::max(0.0,
               100.0 - share(work.kernelSeconds) - share(work.loopSeconds)));
}

/// Per change of the scenario's conditions: what a better placement was
/// worth and the reaction (steps from the change to the first re-partition;
/// 0: the change's first step already ran on the new placement, announced
/// by telemetry).
static void printReactions(hwagent_session_t *session) {
  uint32_t count = hwagent_session_event_outcomes(session, nullptr, 0);
  std::vector<hwagent_event_outcome_t> outcomes(count);
  hwagent_session_event_outcomes(session, outcomes.data(), count);
  for (const hwagent_event_outcome_t &o : outcomes) {
    llvm::outs() << llvm::formatv(
        "hwagent-run: change at step {0} ({1} steps, best placement {2:f1}% "
        "faster than the one in use): ",
        o.step, o.steps, 100 * o.best_gain);
    if (o.reaction_steps >= 0)
      llvm::outs() << llvm::formatv(
          "reacted after {0} steps, {1} re-partitions, {2} probes\n",
          o.reaction_steps, o.switches, o.probes);
    else
      llvm::outs() << llvm::formatv("no re-partition, {0} probes\n", o.probes);
  }
}

/// Re-partitions, probes and builds; with --simulate-cpu the reactions and
/// the regret against the oracle and the best fixed assignment.
static void printAdaptive(const RunShow &show, const TrainingSummary &s,
                          hwagent_session_t *session) {
  hwagent_regret_t regret;
  if (hwagent_session_regret(session, &regret) != HWAGENT_OK)
    return;
  uint32_t n = hwagent_session_switch_steps(session, nullptr, 0);
  std::vector<int64_t> switchSteps(n);
  hwagent_session_switch_steps(session, switchSteps.data(), n);
  llvm::outs() << llvm::formatv("hwagent-run: {0} re-partitions", n);
  if (n) {
    llvm::outs() << " at steps";
    for (int64_t step : switchSteps)
      llvm::outs() << " " << step;
  }
  llvm::outs() << llvm::formatv(
      ", {0} vetoed, {1} probes, {2} variants built\n", regret.vetoes,
      regret.explorations, regret.compiles);
  if (!show.simulateCpu)
    return;
  printReactions(session);
  if (regret.steps > 0)
    llvm::outs() << llvm::formatv(
        "hwagent-run: simulated total {0:f3} ms (switching {1:f3} ms); "
        "regret vs clairvoyant oracle {2:f2}% ({3:f3} ms), vs best fixed "
        "assignment in hindsight {4:f2}% ({5:f3} ms)\n",
        regret.actual_seconds * 1e3, regret.switch_seconds * 1e3,
        100 * (regret.actual_seconds / regret.oracle_seconds - 1),
        regret.oracle_seconds * 1e3,
        100 * (regret.actual_seconds / regret.best_fixed_seconds - 1),
        regret.best_fixed_seconds * 1e3);
  if (regret.steps > 0 && !s.onlyTime)
    llvm::outs() << llvm::formatv(
        "hwagent-run: the oracle and the best fixed assignment minimize "
        "time; this run also optimized energy or kept a cap: {0:f4} J "
        "(modelled)\n",
        regret.actual_joules);
}

void hwagent::printWhatWasWritten(const TrainingSummary &summary,
                                  llvm::StringRef savePath,
                                  llvm::StringRef outputsPath,
                                  llvm::StringRef signalName) {
  if (summary.savedStep >= 0)
    llvm::outs() << llvm::formatv("hwagent-run: saved the parameters after "
                                  "step {0} to {1}\n",
                                  summary.savedStep, savePath);
  if (summary.outputsStep >= 0)
    llvm::outs() << llvm::formatv("hwagent-run: wrote the outputs of step {0} "
                                  "to {1}\n",
                                  summary.outputsStep, outputsPath);
  if (summary.stopped)
    llvm::outs() << llvm::formatv("hwagent-run: stopped by {0} after {1} "
                                  "steps\n",
                                  signalName, summary.ran);
}

void mlir::hwagent::printSummary(const RunShow &show, Trainer &trainer) {
  const TrainingSummary &s = trainer.getSummary();
  TrainingRunner &runner = trainer.getRunner();
  hwagent_session_t *session = runner.getSession();
  llvm::outs() << llvm::formatv(
      "hwagent-run: loss {0:e4} -> {1:e4} over {2} steps\n", s.firstLoss,
      s.lastLoss, s.ran);
  if (!s.walls.empty()) {
    std::vector<double> walls = s.walls;
    std::sort(walls.begin(), walls.end());
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    llvm::outs() << llvm::formatv(
        "hwagent-run: wall per step {0:f3} ms (median of {1} steps{2}); "
        "peak step buffers {3:f1} MiB, peak RSS {4:f1} MiB (measured)\n",
        walls[walls.size() / 2] * 1e3, walls.size(),
        s.ran > 1 ? ", after the first" : "", s.peakStepBytes / double(1 << 20),
        usage.ru_maxrss / 1024.0);
  }
  if (s.ran > 0)
    printEnergy(s, session);
  printKernels(show.kernelStats);
  printStepSplit(s);
  if (show.adaptive || show.simulateCpu)
    printAdaptive(show, s, session);
  if (show.printParams)
    for (unsigned p = 0; p < runner.getNumParams(); ++p) {
      auto checksum = runner.paramChecksum(p);
      llvm::outs() << llvm::formatv(
          "param {0}: sum {1:e6} sum|.| {2:e6} bits {3:x16}\n", p, checksum.sum,
          checksum.sumAbs, checksum.bits);
    }
}

bool mlir::hwagent::writePage(const RunShow &show, Trainer &trainer,
                              const hwagent_regret_t &regret) {
  if (show.htmlPath.empty())
    return true;
  const TrainingSummary &s = trainer.getSummary();
  hwreport::HtmlReportInput page;
  std::vector<std::pair<std::string, std::string>> &summary = page.runSummary;
  summary = {
      {"step", "@" + show.entry + " from " + show.inputFile + ", target " +
                   show.target},
      {"loss", llvm::formatv("{0:e4} -> {1:e4} over {2} steps", s.firstLoss,
                             s.lastLoss, s.ran)},
      {"times", show.simulateCpu ? "every backend simulated (--simulate-cpu)"
                                 : "cpu measured here; ane/gpu simulated"},
      {"energy", llvm::formatv("{0:f4} J modelled ({1:f3} mJ per step)",
                               s.joules, s.ran ? s.joules / s.ran * 1e3 : 0.0)},
  };
  if (show.simulateCpu && regret.steps > 0)
    summary.push_back(
        {"regret (time)",
         llvm::formatv(
             "{0:f2}% vs the clairvoyant oracle, "
             "{1:f2}% vs the best fixed assignment; {2} "
             "switches, {3} probes",
             100 * (regret.actual_seconds / regret.oracle_seconds - 1),
             100 * (regret.actual_seconds / regret.best_fixed_seconds - 1),
             regret.switches, regret.explorations)});
  if (show.temporaryLog)
    page.runSource = "this run's session log (--log keeps it)";
  if (!hwreport::writeRunReport(show.htmlPath, show.reportPath, show.logPath,
                                std::move(page), llvm::errs()))
    return false;
  llvm::outs() << "hwagent-run: wrote the report page " << show.htmlPath
               << "\n";
  return true;
}
