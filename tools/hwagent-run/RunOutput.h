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

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <string>

namespace mlir::hwagent {

/// The temporary files the page needs when the run keeps none of its own:
/// the partition's report, and the log unless --log keeps one. Removed
/// when the run ends.
struct PageFiles {
  std::string report, log;
  /// Checks that `htmlPath` can be written and creates the temporaries
  /// (the log too when `withLog`); false with the error on `errs`.
  bool create(const std::string &htmlPath, bool withLog,
              llvm::raw_ostream &errs);
  ~PageFiles();
};

/// The options the output depends on, as given.
struct RunShow {
  std::string inputFile, entry, target, dataPath, initPath, resumePath;
  bool shuffle = true, simulateCpu = false, adaptive = false;
  bool kernelStats = false, printParams = false;
  /// --no-updates: the arguments after the inputs are fixed, not updated.
  bool noUpdates = false;
  /// A redrawn bar (at most 4 times a second) instead of lines; a line
  /// every `printEvery` steps (0: none; -1: about 20 lines a run).
  bool bar = false;
  int printEvery = -1;
  /// The per-step CSV (empty: none).
  std::string csvPath;
  /// The page (empty: none), the partition report and log it reads, and
  /// whether the log is a temporary file.
  std::string htmlPath, reportPath, logPath;
  bool temporaryLog = false;
  /// HWAGENT_MAX_STEPS (-1: none).
  int64_t maxSteps = -1;
};

/// Progress lines or a bar, the epochs, the re-partitions as they happen,
/// and the per-step CSV.
class RunProgress : public TrainerObserver {
public:
  RunProgress(const RunShow &show, const Trainer &trainer)
      : show(show), trainer(trainer),
        started(std::chrono::steady_clock::now()) {}
  ~RunProgress() override;
  /// Opens the CSV (show.csvPath); false with the error on stderr.
  bool open();
  void onStep(const StepRecord &step) override;
  void onEpoch(const EpochRecord &epoch) override;
  void onRepartition(const RepartitionRecord &event) override;
  /// Ends the bar's line and writes the CSV's last row.
  void onStepsDone() override;

private:
  void drawBar(const StepRecord &step);
  void printLine(const StepRecord &step);
  /// Seconds since the run started, and the estimate of those left.
  double elapsed() const;
  double eta(int64_t done) const;
  /// Writes the pending CSV row, with the epoch's figures when given.
  void flushRow(const EpochRecord *epoch);
  const RunShow &show;
  const Trainer &trainer;
  std::chrono::steady_clock::time_point started;
  double lastDraw = -1;
  int64_t steps = 0;
  bool barShown = false;
  std::unique_ptr<llvm::raw_fd_ostream> csv;
  std::string pendingRow;
};

void printHeader(const RunShow &show, Trainer &trainer);

/// A run with no step to take (--steps 0, or resumed at --steps): scores
/// the parameters as given when there is held-out data, says there is
/// nothing to run otherwise. The exit status.
int runWithoutSteps(const RunShow &show, Trainer &trainer);
/// After the run: where the parameters (--save) and the outputs
/// (--outputs) were written, and the signal (`signalName`) that stopped it.
void printWhatWasWritten(const TrainingSummary &summary,
                         llvm::StringRef savePath, llvm::StringRef outputsPath,
                         llvm::StringRef signalName);
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
