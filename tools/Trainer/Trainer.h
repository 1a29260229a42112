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
#include <chrono>
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
  /// Replace a `savePath` checkpoint that is ahead of this run (a larger
  /// step than it ends at) instead of refusing to start.
  bool overwrite = false;
  /// The last step's loss and outputs (results that update no parameter)
  /// as safetensors (a step that returns gradients: --no-updates); empty:
  /// none.
  std::string outputsPath;
  /// At most this many steps from the first (-1: no cap): hwagent-run's
  /// HWAGENT_MAX_STEPS, with which the docs check runs the README's
  /// training commands in seconds.
  int64_t maxSteps = -1;
  /// --lr: the value of the step's f32 constants marked
  /// `{hwagent.hyper = "lr"}` (NaN: as compiled).
  double learningRate = NAN;
  /// --batch-size: the step's batch, which its shapes fix (0: any); a
  /// mismatch is an error saying how to get another.
  int64_t batchSize = 0;
};

/// One training step as it ran.
struct StepRecord {
  int64_t step = 0, epoch = 0;
  float loss = NAN;
  /// The session's figures of the step (simulated and measured times,
  /// modelled and counted joules).
  hwagent_step_stats_t stats = {};
};

/// One pass of the evaluation function over the held-out data: every row,
/// the last incomplete batch included (see Trainer::evaluate).
struct EvaluationRecord {
  int64_t epoch = 0;
  /// The mean of the loss over the rows (the function returns a batch's
  /// mean).
  double loss = NAN;
  /// Share of correct predictions (NaN when the function returns no
  /// `correct` count).
  double accuracy = NAN;
  int64_t samples = 0;
};

/// The end of an epoch (or of the run, in the middle of one).
struct EpochRecord {
  int64_t epoch = 0;
  /// Steps of this epoch that ran in this run, and their mean loss.
  int64_t steps = 0;
  double trainLoss = NAN;
  /// Wall seconds of those steps and of the evaluation.
  double seconds = 0;
  /// The run ended before the epoch's last batch.
  bool partial = false;
  /// The evaluation, when there is held-out data (evaluation.samples > 0).
  EvaluationRecord evaluation;
};

/// A re-partition the adaptive runtime applies (hwagent_repartition_t).
struct RepartitionRecord {
  int64_t step = 0;
  /// Programs that change backend, of `programs`.
  int64_t moved = 0, programs = 0;
  /// Predicted step seconds of the old and the new assignment.
  double currentSeconds = 0, proposedSeconds = 0;
  std::string reason;
};

/// What a run's caller shows; the trainer calls it as the run goes.
class TrainerObserver {
public:
  virtual ~TrainerObserver() = default;
  virtual void onStep(const StepRecord &step) {}
  /// After an epoch's last step and its evaluation, and at the end of a
  /// run that stopped in the middle of an epoch.
  virtual void onEpoch(const EpochRecord &epoch) {}
  /// As the runtime applies it, during a step.
  virtual void onRepartition(const RepartitionRecord &event) {}
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
  /// The same steps' measured time inside the contraction kernels and the
  /// parallel loops, and the loops' calls (summed over those steps only:
  /// evaluations and the first step call the same kernels, and counted
  /// against the training steps' walls they made a split of over 100%).
  struct {
    double kernelSeconds = 0, loopSeconds = 0;
    int64_t loopCalls = 0, threadedLoopCalls = 0, loopThreads = 0;
  } work;
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

  /// One evaluation of the parameters as they are (--steps 0 with
  /// held-out data: a checkpoint scored without training it); logged as
  /// the run's "eval" record. Needs getEvalSamples() > 0.
  bool evaluateOnly(EvaluationRecord &record, llvm::raw_ostream &errs);

  TrainingRunner &getRunner() { return *runner; }
  const TrainingRunner &getRunner() const { return *runner; }
  const Dataset *getDataset() const { return dataset.get(); }
  int64_t getFirstStep() const { return firstStep; }
  int64_t getTotalSteps() const { return totalSteps; }
  int64_t getBatchesPerEpoch() const { return batchesPerEpoch; }
  /// Held-out samples per evaluation (0: no evaluation).
  int64_t getEvalSamples() const { return evalSamples; }
  const TrainingSummary &getSummary() const { return summary; }

private:
  Trainer() = default;
  /// Sets the learning rate the step marks (options.learningRate).
  bool setLearningRate(ModuleOp module, llvm::StringRef entry,
                       llvm::raw_ostream &errs);
  /// Binds the dataset to the step's and the evaluation function's inputs.
  bool bindData(llvm::raw_ostream &errs);
  /// Loads the initial parameters or the checkpoint to resume.
  bool loadParameters(llvm::raw_ostream &errs);
  /// Refuses a --save file holding a checkpoint past `lastStep` (the run
  /// would replace it by an earlier one) unless the run continues it or
  /// options.overwrite says so.
  bool checkSaveNotAhead(int64_t lastStep, llvm::raw_ostream &errs);
  /// Runs one step and accounts for it.
  bool step(int64_t step, TrainerObserver &observer, llvm::raw_ostream &errs);
  /// One pass of the evaluation function over the held-out rows.
  bool evaluate(EvaluationRecord &record, llvm::raw_ostream &errs);
  /// Runs the evaluation function on the batch the dataset filled; the
  /// loss and the correct count (0 when it returns none).
  bool evaluateBatch(double &loss, double &correct, llvm::raw_ostream &errs);
  /// Ends the epoch of step `last`: evaluates and tells the observer.
  bool endEpoch(int64_t last, bool partial, TrainerObserver &observer,
                llvm::raw_ostream &errs);
  static int32_t onRepartitionEvent(void *user,
                                    const hwagent_repartition_t *event);
  /// The checkpoint after `step`'s when the cadence asks for one.
  bool checkpointAfter(int64_t step, llvm::raw_ostream &errs);

  TrainerOptions options;
  std::unique_ptr<TrainingRunner> runner;
  std::unique_ptr<Dataset> dataset;
  CheckpointInfo checkpoint;
  int64_t firstStep = 0, totalSteps = 0;
  int64_t batchesPerEpoch = 0, evalBatch = 0, evalSamples = 0;
  TrainingSummary summary;
  /// The observer of the run in progress (re-partitions arrive during a
  /// step, from the runtime).
  TrainerObserver *observer = nullptr;
  /// The epoch in progress: steps, their loss sum, its start.
  int64_t epochSteps = 0;
  double epochLoss = 0;
  std::chrono::steady_clock::time_point epochStart;
  /// Whether the evaluation function has a `correct` result.
  bool hasCorrect = false;
};

} // namespace mlir::hwagent

#endif // HWAGENT_TRAINER_TRAINER_H
