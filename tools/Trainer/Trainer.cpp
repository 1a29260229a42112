//===- Trainer.cpp - the training loop: data, epochs, checkpoints ---------===//

#include "Trainer/Trainer.h"

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::hwagent;

static bool error(llvm::raw_ostream &errs, const llvm::Twine &message) {
  errs << "hwagent-run: " << message << "\n";
  return false;
}

std::unique_ptr<Trainer> Trainer::create(OwningOpRef<ModuleOp> module,
                                         const RunnerOptions &runnerOptions,
                                         const TrainerOptions &options,
                                         llvm::raw_ostream &errs) {
  std::unique_ptr<Trainer> t(new Trainer());
  t->options = options;
  if (options.data.path.empty() &&
      (!options.data.validationPath.empty() || options.data.split > 0 ||
       options.epochs > 0)) {
    error(errs, "--val-data, --val-split and --epochs need --data");
    return nullptr;
  }
  if (!options.initPath.empty() && !options.resumePath.empty()) {
    error(errs, "--init and --resume cannot be combined");
    return nullptr;
  }
  if (options.saveEvery < 0) {
    error(errs, "--save-every must be >= 0");
    return nullptr;
  }
  // Everything given is checked against the step's signature before the
  // step is compiled.
  t->runner = TrainingRunner::prepare(std::move(module), runnerOptions, errs);
  if (!t->runner || !t->bindData(errs) || !t->loadParameters(errs))
    return nullptr;
  if (!options.savePath.empty() &&
      (!checkWritable(options.savePath, errs) ||
       !checkCheckpoint(options.savePath, t->runner->getArgs(), t->checkpoint,
                        errs)))
    return nullptr;
  if (runnerOptions.noUpdates &&
      (!options.savePath.empty() || !options.resumePath.empty())) {
    error(errs, "--save and --resume need parameters that the step updates; "
                "with --no-updates write the results with --outputs");
    return nullptr;
  }
  if (!options.outputsPath.empty() && !checkWritable(options.outputsPath, errs))
    return nullptr;
  t->totalSteps = options.steps >= 0 ? options.steps : 10;
  if (options.epochs > 0 && options.steps < 0)
    t->totalSteps = options.epochs * t->batchesPerEpoch;
  if (options.maxSteps >= 0)
    t->totalSteps = std::min(t->totalSteps, t->firstStep + options.maxSteps);
  // The buffers the dataset feeds and those the parameters came from are
  // the caller's; only the rest get seeded contents.
  size_t numArgs = t->runner->getArgs().size();
  size_t numEvalArgs = t->runner->getEvalArgs().size();
  std::vector<bool> supplied(numArgs, false), evalSupplied(numEvalArgs, false);
  if (t->dataset) {
    supplied = t->dataset->feeds(false, numArgs);
    evalSupplied = t->dataset->feeds(true, numEvalArgs);
  }
  if (!options.initPath.empty() || !options.resumePath.empty())
    for (unsigned p : t->runner->getParams())
      supplied[p] = true;
  if (!t->runner->compile(supplied, evalSupplied, errs))
    return nullptr;
  return t;
}

bool Trainer::bindData(llvm::raw_ostream &errs) {
  if (options.data.path.empty())
    return true;
  const std::string &entry = runner->getEntry();
  std::vector<ArgBuffer> &args = runner->getArgs();
  dataset = Dataset::open(options.data, errs);
  if (!dataset || !dataset->bind(args, entry, false, errs))
    return false;
  int64_t batch = args[runner->getInputs().front()].shape.front();
  batchesPerEpoch = dataset->batchesPerEpoch(batch);
  if (batchesPerEpoch == 0)
    return error(errs,
                 llvm::formatv("{0} holds {1} training samples, fewer "
                               "than one batch of {2}",
                               options.data.path, dataset->numTrain(), batch));
  if (!runner->hasEval() || dataset->numValidation() == 0)
    return true;
  std::vector<ArgBuffer> &evalArgs = runner->getEvalArgs();
  if (!dataset->bind(evalArgs, runner->getEvalEntry(), true, errs))
    return false;
  for (const ArgBuffer &b : evalArgs)
    if (!b.shared && !b.shape.empty()) {
      evalBatches = dataset->numValidation() / b.shape.front();
      break;
    }
  return true;
}

bool Trainer::loadParameters(llvm::raw_ostream &errs) {
  const std::string &entry = runner->getEntry();
  std::vector<ArgBuffer> &args = runner->getArgs();
  checkpoint.entry = entry;
  if (!options.initPath.empty() &&
      !hwagent::loadParameters(options.initPath, args, checkpoint, errs))
    return false;
  if (!options.resumePath.empty()) {
    if (!hwagent::loadParameters(options.resumePath, args, checkpoint, errs))
      return false;
    if (checkpoint.entry != entry)
      return error(errs,
                   llvm::formatv("{0} is a checkpoint of @{1}, not @{2}",
                                 options.resumePath, checkpoint.entry, entry));
    firstStep = checkpoint.step;
  }
  checkpoint.entry = entry;
  return true;
}

bool Trainer::evaluate(int64_t epoch, TrainerObserver &observer,
                       llvm::raw_ostream &errs) {
  if (!evalBatches)
    return true;
  double lossSum = 0, correct = 0;
  bool hasCorrect = false;
  std::vector<ArgBuffer> &evalArgs = runner->getEvalArgs();
  for (int64_t b = 0; b < evalBatches; ++b) {
    dataset->fill(evalArgs, true, 0, b);
    std::vector<std::pair<std::string, double>> results;
    if (!runner->evaluate(results, errs))
      return false;
    // The loss: the result named "loss", else the first scalar.
    const std::pair<std::string, double> *loss =
        results.empty() ? nullptr : &results.front();
    for (const auto &result : results) {
      if (result.first == "loss")
        loss = &result;
      if (result.first == "correct") {
        correct += result.second;
        hasCorrect = true;
      }
    }
    if (loss)
      lossSum += loss->second;
  }
  int64_t batch = 0;
  for (const ArgBuffer &b : evalArgs)
    if (!b.shared && !b.shape.empty()) {
      batch = b.shape.front();
      break;
    }
  EvaluationRecord record;
  record.epoch = epoch;
  record.samples = evalBatches * batch;
  record.loss = lossSum / evalBatches;
  record.accuracy = hasCorrect ? correct / double(record.samples) : NAN;
  observer.onEvaluation(record);
  const char *keys[] = {"epoch", "val_loss", "val_accuracy", "samples"};
  double values[] = {double(epoch), record.loss, record.accuracy,
                     double(record.samples)};
  if (hwagent_session_log_metrics(runner->getSession(), "eval", keys, values,
                                  4) != HWAGENT_OK)
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
  return true;
}

bool Trainer::step(int64_t step, TrainerObserver &observer,
                   llvm::raw_ostream &errs) {
  StepRecord record;
  record.step = step;
  record.epoch = batchesPerEpoch ? step / batchesPerEpoch : 0;
  if (dataset)
    dataset->fill(runner->getArgs(), false, record.epoch,
                  step % batchesPerEpoch);
  hwagent_buffer_reset_peak();
  hwagent_buffer_stats_t before, after;
  hwagent_buffer_stats(&before);
  record.loss = runner->step(errs);
  hwagent_buffer_stats(&after);
  TrainingSummary &s = summary;
  s.peakStepBytes =
      std::max(s.peakStepBytes, after.peak_bytes - before.live_bytes);
  hwagent_session_step_stats(runner->getSession(), &record.stats);
  // Step 0 touches every buffer for the first time: kernel figures count
  // from step 1 when there is one.
  bool first = step == firstStep;
  if (first && totalSteps - firstStep > 1) {
    hwagent_kernels_reset_stats();
    hwagent_parallel_reset_stats();
  }
  if (!first || totalSteps - firstStep == 1)
    s.walls.push_back(record.stats.last_wall_seconds);
  s.joules += record.stats.last_step_joules;
  s.seconds += record.stats.last_step_seconds;
  s.counterJoules += record.stats.last_counter_joules;
  s.counted &= record.stats.last_counter_joules >= 0;
  s.onlyTime &= record.stats.objective == HWAGENT_OBJECTIVE_TIME &&
                record.stats.power_cap <= 0;
  if (first)
    s.firstLoss = record.loss;
  s.lastLoss = record.loss;
  ++s.ran;
  if (!std::isfinite(record.loss)) {
    errs << "hwagent-run: warning: loss is not finite at step " << step << "\n";
    // Training on data stops here: the last checkpoint stays as it was.
    s.diverged = dataset || !options.savePath.empty();
  }
  if (!s.diverged)
    observer.onStep(record);
  return true;
}

bool Trainer::checkpointAfter(int64_t step, llvm::raw_ostream &errs) {
  checkpoint.step = step + 1;
  if (options.savePath.empty() || options.saveEvery <= 0 ||
      (step + 1) % options.saveEvery != 0)
    return true;
  return saveCheckpoint(options.savePath, runner->getArgs(), checkpoint, errs);
}

bool Trainer::run(TrainerObserver &observer, const std::atomic<bool> &stop,
                  llvm::raw_ostream &errs) {
  bool evaluatedLast = false;
  for (int64_t s = firstStep; s < totalSteps && !stop.load(); ++s) {
    if (!step(s, observer, errs))
      return false;
    if (summary.diverged)
      break;
    if (!checkpointAfter(s, errs))
      return false;
    evaluatedLast = false;
    if (dataset && (s + 1) % batchesPerEpoch == 0) {
      if (!evaluate(s / batchesPerEpoch, observer, errs))
        return false;
      evaluatedLast = true;
    }
  }
  summary.stopped = stop.load();
  observer.onStepsDone();
  int64_t ran = summary.ran;
  if (dataset && !evaluatedLast && !summary.diverged && ran > 0 &&
      !evaluate(batchesPerEpoch ? (firstStep + ran - 1) / batchesPerEpoch : 0,
                observer, errs))
    return false;
  if (!options.savePath.empty() && !summary.diverged && ran > 0) {
    if (!saveCheckpoint(options.savePath, runner->getArgs(), checkpoint, errs))
      return false;
    summary.savedStep = checkpoint.step;
  }
  if (!options.outputsPath.empty() && ran > 0) {
    if (!runner->saveOutputs(options.outputsPath, errs))
      return false;
    summary.outputsStep = firstStep + ran - 1;
  }
  return true;
}
