//===- Trainer.h - the training loop: data, epochs, checkpoints -*- C++ -*-===//
//
// Trains a compiled step (tools/Driver/TrainingRunner.h): owns the dataset,
// the epochs and their batches, the evaluation every epoch, the checkpoint
// cadence, resuming and when to stop (the step count, a non-finite loss on
// real data, a stop request). Everything a run is given is checked before
// the step is compiled: the data files against the step's inputs (names,
// shapes, dtypes, label range), the initial parameters or checkpoint
// against its parameters, the outputs for being writable; so a wrong file
// fails in milliseconds, not after the JIT, and no buffer is filled with
// seeded data only to be overwritten. A library: progress goes to an
// observer, errors to the given stream; hwagent-run prints.
// docs/training.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRAINER_TRAINER_H
#define HWAGENT_TRAINER_TRAINER_H

#include "Driver/TrainingRunner.h"
#include "Trainer/Checkpoint.h"
#include "Trainer/Dataset.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace mlir::hwagent {

struct TrainerOptions {
  /// Steps to run in all, resumed ones included; -1: 10, or `epochs`
  /// passes over the data when there is a dataset.
  int64_t steps = -1;
  /// The dataset (`data.path` empty: seeded inputs) and its passes.
  DatasetOptions data;
  int64_t epochs = 0;
  /// Initial parameters, or a checkpoint to continue from (its parameters
  /// and step); at most one.
  std::string initPath, resumePath;
  /// Checkpoint written at the end and every `saveEvery` steps (0: at the
  /// end only); empty: none.
  std::string savePath;
  int64_t saveEvery = 0;
  /// The last step's loss and outputs (results that update no parameter)
  /// as safetensors (a step that returns gradients: --no-updates); empty:
  /// none.
  std::string outputsPath;
  /// At most this many steps from the first (-1: no cap): hwagent-run's
  /// HWAGENT_MAX_STEPS, with which the docs check runs the README's
  /// training commands in seconds.
  int64_t maxSteps = -1;
};

/// One training step as it ran.
struct StepRecord {
  int64_t step = 0, epoch = 0;
  float loss = NAN;
  /// The session's figures of the step (simulated and measured times,
  /// modelled and counted joules).
  hwagent_step_stats_t stats = {};
};

/// One pass of the evaluation function over the held-out data.
struct EvaluationRecord {
  int64_t epoch = 0;
  double loss = NAN;
  /// Share of correct predictions (NaN when the function returns no
  /// `correct` count).
  double accuracy = NAN;
  int64_t samples = 0;
};

/// What a run's caller shows; the trainer calls it as the run goes.
class TrainerObserver {
public:
  virtual ~TrainerObserver() = default;
  virtual void onStep(const StepRecord &step) {}
  virtual void onEvaluation(const EvaluationRecord &evaluation) {}
  /// The steps are done (the last evaluation and checkpoint follow).
  virtual void onStepsDone() {}
};

/// What the steps gave.
struct TrainingSummary {
  float firstLoss = NAN, lastLoss = NAN;
  /// Steps run (the diverging one included).
  int64_t ran = 0;
  /// Wall seconds per step (measured; from the second step when more than
  /// one ran: the first touches every buffer).
  std::vector<double> walls;
  /// The most bytes a step's buffers held at once.
  int64_t peakStepBytes = 0;
  /// The run's energy: modelled, and the package counter's where every
  /// step could read it.
  double joules = 0, seconds = 0, counterJoules = 0;
  bool counted = true;
  /// Every step minimized time without a power cap.
  bool onlyTime = true;
  /// Stopped at a non-finite loss (the last checkpoint kept), or by a
  /// stop request.
  bool diverged = false, stopped = false;
  /// The step the final checkpoint was saved after (-1: none).
  int64_t savedStep = -1;
  /// The step whose outputs --outputs wrote (-1: none).
  int64_t outputsStep = -1;
};

class Trainer {
public:
  /// Checks the step, the data, the parameters' files and the outputs,
  /// then compiles the step (errors on `errs`).
  static std::unique_ptr<Trainer> create(OwningOpRef<ModuleOp> module,
                                         const RunnerOptions &runner,
                                         const TrainerOptions &options,
                                         llvm::raw_ostream &errs);

  /// Trains until the step count, a non-finite loss on real data or
  /// `stop`; false (with the error) when a step, an evaluation or a
  /// checkpoint failed.
  bool run(TrainerObserver &observer, const std::atomic<bool> &stop,
           llvm::raw_ostream &errs);

  TrainingRunner &getRunner() { return *runner; }
  const TrainingRunner &getRunner() const { return *runner; }
  const Dataset *getDataset() const { return dataset.get(); }
  int64_t getFirstStep() const { return firstStep; }
  int64_t getTotalSteps() const { return totalSteps; }
  int64_t getBatchesPerEpoch() const { return batchesPerEpoch; }
  /// Held-out batches per evaluation (0: no evaluation).
  int64_t getEvalBatches() const { return evalBatches; }
  const TrainingSummary &getSummary() const { return summary; }

private:
  Trainer() = default;
  /// Binds the dataset to the step's and the evaluation function's inputs.
  bool bindData(llvm::raw_ostream &errs);
  /// Loads the initial parameters or the checkpoint to resume.
  bool loadParameters(llvm::raw_ostream &errs);
  /// Runs one step and accounts for it.
  bool step(int64_t step, TrainerObserver &observer, llvm::raw_ostream &errs);
  /// One pass of the evaluation function over the held-out batches.
  bool evaluate(int64_t epoch, TrainerObserver &observer,
                llvm::raw_ostream &errs);
  /// The checkpoint after `step`'s when the cadence asks for one.
  bool checkpointAfter(int64_t step, llvm::raw_ostream &errs);

  TrainerOptions options;
  std::unique_ptr<TrainingRunner> runner;
  std::unique_ptr<Dataset> dataset;
  CheckpointInfo checkpoint;
  int64_t firstStep = 0, totalSteps = 0;
  int64_t batchesPerEpoch = 0, evalBatches = 0;
  TrainingSummary summary;
};

} // namespace mlir::hwagent

#endif // HWAGENT_TRAINER_TRAINER_H
