//===- RunProgress.cpp - hwagent-run's progress while it trains -----------===//
//
// The redrawn bar on a terminal (at most a few redraws a second), a line
// per step otherwise, the per-epoch line and re-partitions as they happen
// (RunOutput.h).
//
//===----------------------------------------------------------------------===//

#include "RunOutput.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::hwagent;

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

/// "42 s", "3m05s", "1h02m".
static std::string duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    return "?";
  int64_t s = int64_t(std::llround(seconds));
  if (seconds < 10)
    return llvm::formatv("{0:f2} s", seconds).str();
  if (s < 60)
    return llvm::formatv("{0:f0} s", seconds).str();
  char text[32];
  if (s < 3600)
    std::snprintf(text, sizeof(text), "%lldm%02llds", (long long)(s / 60),
                  (long long)(s % 60));
  else
    std::snprintf(text, sizeof(text), "%lldh%02lldm", (long long)(s / 3600),
                  (long long)(s / 60 % 60));
  return text;
}

RunProgress::~RunProgress() {
  if (csv)
    flushRow(nullptr);
}

bool RunProgress::open() {
  if (show.csvPath.empty())
    return true;
  std::error_code ec;
  csv = std::make_unique<llvm::raw_fd_ostream>(show.csvPath, ec);
  if (ec) {
    llvm::errs() << "hwagent-run: cannot write '" << show.csvPath
                 << "': " << ec.message() << "\n";
    return false;
  }
  *csv << "step,epoch,loss,step_ms,wall_ms,modelled_mj";
  for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
    *csv << ",share_" << hwagent_backend_name(b);
  *csv << ",train_loss,val_loss,val_accuracy\n";
  return true;
}

double RunProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       started)
      .count();
}

double RunProgress::eta(int64_t done) const {
  return (trainer.getTotalSteps() - done) * elapsed() /
         std::max<int64_t>(steps, 1);
}

void RunProgress::drawBar(const StepRecord &step) {
  int64_t done = step.step + 1, total = trainer.getTotalSteps();
  // At most 4 redraws a second (and the last step's): a long run's output
  // stays small, and a terminal is not flooded.
  double now = elapsed();
  if (done != total && lastDraw >= 0 && now - lastDraw < 0.25)
    return;
  lastDraw = now;
  barShown = true;
  int width = 24;
  int filled = int(width * double(done) / std::max<int64_t>(1, total));
  llvm::outs() << llvm::formatv(
      "\r\033[K[{0}{1}] step {2}/{3}  epoch {4}  loss {5:e4}  {6:f1} "
      "steps/s  ETA {7}",
      std::string(filled, '='), std::string(width - filled, ' '), done, total,
      step.epoch, step.loss, steps / std::max(now, 1e-9), duration(eta(done)));
  llvm::outs().flush();
}

void RunProgress::onStep(const StepRecord &step) {
  ++steps;
  const hwagent_step_stats_t &stats = step.stats;
  if (csv) {
    flushRow(nullptr);
    pendingRow = llvm::formatv(
        "{0},{1},{2:e6},{3:f6},{4:f6},{5:f6}", step.step, step.epoch, step.loss,
        stats.last_step_seconds * 1e3, stats.last_wall_seconds * 1e3,
        stats.last_step_joules * 1e3);
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
      pendingRow += llvm::formatv(",{0:f4}", stats.share[b]).str();
  }
  if (show.bar)
    return drawBar(step);
  // Lines: every --print-every steps, or about 20 in the run by default;
  // the last step always.
  int64_t every = show.printEvery;
  if (every < 0)
    every = std::max<int64_t>(
        1, (trainer.getTotalSteps() - trainer.getFirstStep()) / 20);
  if (every == 0 ||
      (step.step % every != 0 && step.step != trainer.getTotalSteps() - 1))
    return;
  printLine(step);
}

void RunProgress::printLine(const StepRecord &step) {
  // Every backend's share, named by the vocabulary; only the CPU's is ever
  // measured.
  const hwagent_step_stats_t &stats = step.stats;
  std::string shares;
  for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
    shares += llvm::formatv("{0}{1} {2,5:f1}% {3}", b ? ", " : "",
                            hwagent_backend_name(b), stats.share[b] * 100,
                            b == HWAGENT_BACKEND_CPU && stats.cpu_measured
                                ? "measured"
                                : "simulated");
  llvm::outs() << llvm::formatv(
      "step {0,4}  loss {1,12:e4}  step {2,10:f3} ms ({3})  {4:f3} mJ "
      "modelled  wall {5,9:f2} ms  launches {6}  faults {7}",
      step.step, step.loss, stats.last_step_seconds * 1e3, shares,
      stats.last_step_joules * 1e3, stats.last_wall_seconds * 1e3,
      stats.launches, stats.faults);
  if (stats.last_counter_joules >= 0)
    llvm::outs() << llvm::formatv("  package {0:f3} J measured",
                                  stats.last_counter_joules);
  if (trainer.getDataset())
    llvm::outs() << "  epoch " << step.epoch;
  llvm::outs() << "\n";
}

void RunProgress::onEpoch(const EpochRecord &e) {
  if (csv)
    flushRow(&e);
  const EvaluationRecord &v = e.evaluation;
  llvm::outs() << llvm::formatv("{0}epoch {1,3}  train loss {2:e4}",
                                barShown ? "\r\033[K" : "", e.epoch,
                                e.trainLoss);
  if (v.samples) {
    llvm::outs() << llvm::formatv("  validation loss {0:e4}", v.loss);
    if (!std::isnan(v.accuracy))
      llvm::outs() << llvm::formatv("  accuracy {0:f2}%", 100 * v.accuracy);
    llvm::outs() << llvm::formatv("  ({0} samples, @{1})", v.samples,
                                  trainer.getRunner().getEvalEntry());
  }
  llvm::outs() << llvm::formatv("  {0} steps{1} in {2}", e.steps,
                                e.partial ? " (partial epoch)" : "",
                                duration(e.seconds));
  int64_t done = trainer.getFirstStep() + steps;
  if (!e.partial && done < trainer.getTotalSteps())
    llvm::outs() << "  ETA " << duration(eta(done));
  llvm::outs() << "\n";
  lastDraw = -1;
}

void RunProgress::onRepartition(const RepartitionRecord &r) {
  llvm::outs() << llvm::formatv(
      "{0}step {1,4}  re-partition: {2} of {3} programs move, predicted "
      "{4:f3} -> {5:f3} ms per step{6}{7}\n",
      barShown ? "\r\033[K" : "", r.step, r.moved, r.programs,
      r.currentSeconds * 1e3, r.proposedSeconds * 1e3,
      r.reason.empty() ? "" : " (", r.reason.empty() ? "" : r.reason + ")");
  lastDraw = -1;
}

void RunProgress::flushRow(const EpochRecord *epoch) {
  if (pendingRow.empty())
    return;
  *csv << pendingRow;
  if (epoch) {
    const EvaluationRecord &v = epoch->evaluation;
    *csv << "," << llvm::formatv("{0:e6}", epoch->trainLoss);
    *csv << ",";
    if (v.samples)
      *csv << llvm::formatv("{0:e6}", v.loss);
    *csv << ",";
    if (v.samples && !std::isnan(v.accuracy))
      *csv << llvm::formatv("{0:f6}", v.accuracy);
  } else {
    *csv << ",,,";
  }
  *csv << "\n";
  pendingRow.clear();
}

void RunProgress::onStepsDone() {
  if (barShown)
    llvm::outs() << "\n";
  barShown = false;
}
