//===- RunOutput.h - what hwagent-run prints and writes ---------*- C++ -*-===//
//
// hwagent-run parses options (hwagent-run.cpp) and shows the run the
// trainer (tools/Trainer) makes: the header, the progress (a redrawn bar on
// a terminal, a line per step otherwise) and evaluations, the summary
// (losses, wall times, energy, kernels, re-partitions and regret) and the
// report page. Every ANE/GPU time it prints is simulated and says so.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_HWAGENT_RUN_RUNOUTPUT_H
#define HWAGENT_TOOLS_HWAGENT_RUN_RUNOUTPUT_H

#include "Trainer/Trainer.h"

#include <chrono>
#include <string>

namespace mlir::hwagent {

/// The options the output depends on, as given.
struct RunShow {
  std::string inputFile, entry, target, dataPath, resumePath;
  bool shuffle = true, simulateCpu = false, adaptive = false;
  bool kernelStats = false, printParams = false;
  /// --no-updates: the arguments after the inputs are fixed, not updated.
  bool noUpdates = false;
  /// A redrawn bar instead of lines; a line every `printEvery` steps.
  bool bar = false;
  int printEvery = 1;
  /// The page (empty: none), the partition report and log it reads, and
  /// whether the log is a temporary file.
  std::string htmlPath, reportPath, logPath;
  bool temporaryLog = false;
  /// HWAGENT_MAX_STEPS (-1: none).
  int64_t maxSteps = -1;
};

/// Progress lines or a bar, and the evaluations.
class RunProgress : public TrainerObserver {
public:
  RunProgress(const RunShow &show, const Trainer &trainer)
      : show(show), trainer(trainer),
        started(std::chrono::steady_clock::now()) {}
  void onStep(const StepRecord &step) override;
  void onEvaluation(const EvaluationRecord &evaluation) override;
  /// Ends the bar's line.
  void onStepsDone() override;

private:
  void drawBar(const StepRecord &step);
  const RunShow &show;
  const Trainer &trainer;
  std::chrono::steady_clock::time_point started;
  int64_t steps = 0;
};

void printHeader(const RunShow &show, Trainer &trainer);
/// After the run: losses, wall times and memory, energy, the kernels'
/// throughput, where the wall time went, re-partitions and regret.
void printSummary(const RunShow &show, Trainer &trainer);
/// The page of the partition and the run (show.htmlPath), after the
/// session ended (its log is complete) with the regret it had; false with
/// the error on stderr.
bool writePage(const RunShow &show, Trainer &trainer,
               const hwagent_regret_t &regret);

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_HWAGENT_RUN_RUNOUTPUT_H
