//===- Trainer.cpp - the training loop: data, epochs, checkpoints ---------===//

#include "Trainer/Trainer.h"

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
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
  if (!std::isnan(options.learningRate) &&
      !t->setLearningRate(module.get(), runnerOptions.entry, errs))
    return nullptr;
  // Re-partitions reach the observer as the runtime applies them.
  RunnerOptions withEvents = runnerOptions;
  withEvents.runtime.on_repartition = &Trainer::onRepartitionEvent;
  withEvents.runtime.on_repartition_user = t.get();
  // Everything given is checked against the step's signature before the
  // step is compiled.
  t->runner = TrainingRunner::prepare(std::move(module), withEvents, errs);
  if (!t->runner || !t->bindData(errs) || !t->loadParameters(errs))
    return nullptr;
  if (t->evalSamples == 0)
    t->runner->dropEvaluation();
  if (options.batchSize > 0 && !t->runner->getInputs().empty()) {
    const ArgBuffer &input = t->runner->getArgs()[t->runner->getInputs()[0]];
    int64_t batch = input.shape.empty() ? 1 : input.shape.front();
    if (batch != options.batchSize) {
      error(errs,
            llvm::formatv(
                "--batch-size {0}: @{1} takes batches of {2} (argument '{3}' "
                "{5} {4}); the batch is part of the compiled step's shapes: "
                "export the step again from a batch of {0} (hwagent-import "
                "takes it from the model file's example_batch(); "
                "docs/training.md)",
                options.batchSize, t->runner->getEntry(), batch, input.name,
                shapeText(input.shape.data(), input.shape.size()),
                hwagent_dtype_name(input.dtype)));
      return nullptr;
    }
  }
  t->totalSteps = options.steps >= 0 ? options.steps : 10;
  if (options.epochs > 0 && options.steps < 0)
    t->totalSteps = options.epochs * t->batchesPerEpoch;
  // What the command asks for, before HWAGENT_MAX_STEPS caps it.
  if (!t->checkSaveNotAhead(t->totalSteps, errs))
    return nullptr;
  if (options.maxSteps >= 0)
    t->totalSteps = std::min(t->totalSteps, t->firstStep + options.maxSteps);
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
  // The buffers the dataset feeds and those the parameters came from are
  // the caller's; only the rest get seeded contents.
  size_t numArgs = t->runner->getArgs().size();
  size_t numEvalArgs = t->runner->getEvalArgs().size();
  std::vector<bool> supplied(numArgs, false), evalSupplied(numEvalArgs, false);
  if (t->dataset) {
    supplied = t->dataset->feeds(false, numArgs);
    evalSupplied = t->dataset->feeds(true, numEvalArgs);
  }
  // Every parameter the file loaded (loadParameters reads the arguments
  // whose role is parameter: with --no-updates those are no step's
  // updates, so getParams() is empty and the file's values must not be
  // seeded over).
  if (!options.initPath.empty() || !options.resumePath.empty())
    for (size_t a = 0; a < numArgs; ++a)
      if (t->runner->getArgs()[a].role == HWAGENT_ROLE_PARAMETER)
        supplied[a] = true;
  if (!t->runner->compile(supplied, evalSupplied, errs))
    return nullptr;
  return t;
}

/// The learning rate is a constant of the compiled step; the step names it
/// with `{hwagent.hyper = "lr"}` on its arith.constant (hwagent-import and
/// the examples do), and --lr replaces every value so marked in the entry
/// function (the evaluation function updates nothing).
bool Trainer::setLearningRate(ModuleOp module, llvm::StringRef entry,
                              llvm::raw_ostream &errs) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  int64_t marked = 0;
  if (fn)
    fn.walk([&](arith::ConstantOp constant) {
      auto hyper = constant->getAttrOfType<StringAttr>("hwagent.hyper");
      auto type = dyn_cast<FloatType>(constant.getType());
      if (!hyper || hyper.getValue() != "lr" || !type)
        return;
      constant.setValueAttr(FloatAttr::get(type, options.learningRate));
      ++marked;
    });
  if (marked)
    return true;
  return error(errs,
               llvm::formatv("--lr: @{0} marks no learning rate; mark the "
                             "constant it scales the updates by with "
                             "{{hwagent.hyper = \"lr\"} (`arith.constant "
                             "{{hwagent.hyper = \"lr\"} 0.1 : f32`), or export "
                             "the step again with hwagent-import --lr "
                             "(docs/training.md)",
                             entry));
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
      evalBatch = b.shape.front();
      evalSamples = dataset->numValidation();
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

bool Trainer::checkSaveNotAhead(int64_t lastStep, llvm::raw_ostream &errs) {
  // Nothing is written by a run with no step to run (resumed at or past
  // --steps), nor by one that continues the file itself.
  bool same = false;
  if (options.savePath.empty() || options.overwrite || firstStep >= lastStep ||
      (!options.resumePath.empty() &&
       (options.resumePath == options.savePath ||
        (!llvm::sys::fs::equivalent(options.resumePath, options.savePath,
                                    same) &&
         same))))
    return true;
  std::optional<int64_t> existing = checkpointStep(options.savePath);
  if (!existing || *existing <= lastStep)
    return true;
  return error(errs,
               llvm::formatv("--save {0} holds a checkpoint at step {1}, ahead "
                             "of the {2} steps this run ends at: it would be "
                             "replaced by an earlier one; pass --resume {0} to "
                             "continue it, another --save file, or --overwrite "
                             "to replace it",
                             options.savePath, *existing, lastStep));
}

bool Trainer::evaluateBatch(double &loss, double &correct,
                            llvm::raw_ostream &errs) {
  std::vector<std::pair<std::string, double>> results;
  if (!runner->evaluate(results, errs))
    return false;
  // The loss: the result named "loss", else the first other than
  // `correct` (TrainingRunner::prepare checked that there is a scalar f32).
  loss = NAN;
  correct = 0;
  bool named = false;
  for (const auto &[name, value] : results) {
    if (name == "correct") {
      correct = value;
      hasCorrect = true;
    } else if (name == "loss" || (!named && std::isnan(loss))) {
      loss = value;
      named |= name == "loss";
    }
  }
  return true;
}

/// Every held-out row counts. The full batches run as they are; the last
/// `r` rows run padded with copies of the last row (batch A), and the
/// padding's share is measured on a batch of copies of that row only
/// (batch Z) and taken away: the rows' sum is B * A - (B - r) * Z for a
/// loss that is a batch's mean, A - (B - r) / B * Z for a count. Exact for
/// a function whose rows do not interact (no batch statistics), which an
/// evaluation is; two more batches per evaluation, and no second compiled
/// shape.
bool Trainer::evaluate(EvaluationRecord &record, llvm::raw_ostream &errs) {
  int64_t full = evalSamples / evalBatch, rest = evalSamples % evalBatch;
  std::vector<ArgBuffer> &evalArgs = runner->getEvalArgs();
  double lossSum = 0, correct = 0, loss, count;
  for (int64_t b = 0; b < full; ++b) {
    dataset->fill(evalArgs, true, 0, b);
    if (!evaluateBatch(loss, count, errs))
      return false;
    lossSum += loss * evalBatch;
    correct += count;
  }
  if (rest) {
    double padLoss, padCount;
    dataset->fillPadded(evalArgs, evalSamples - 1, 1);
    if (!evaluateBatch(padLoss, padCount, errs))
      return false;
    dataset->fillPadded(evalArgs, full * evalBatch, rest);
    if (!evaluateBatch(loss, count, errs))
      return false;
    double padding = double(evalBatch - rest) / evalBatch;
    lossSum += (loss - padding * padLoss) * evalBatch;
    correct += std::round(count - padding * padCount);
  }
  record.samples = evalSamples;
  record.loss = lossSum / evalSamples;
  record.accuracy = hasCorrect ? correct / double(evalSamples) : NAN;
  const char *keys[] = {"epoch", "val_loss", "val_accuracy", "samples"};
  double values[] = {double(record.epoch), record.loss, record.accuracy,
                     double(record.samples)};
  if (hwagent_session_log_metrics(runner->getSession(), "eval", keys, values,
                                  4) != HWAGENT_OK)
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
  return true;
}

bool Trainer::evaluateOnly(EvaluationRecord &record, llvm::raw_ostream &errs) {
  if (!evalSamples) {
    error(errs, "there is no held-out data to evaluate on (--val-data or "
                "--val-split)");
    return false;
  }
  record.epoch = batchesPerEpoch ? firstStep / batchesPerEpoch : 0;
  return evaluate(record, errs);
}

bool Trainer::endEpoch(int64_t last, bool partial, TrainerObserver &observer,
                       llvm::raw_ostream &errs) {
  EpochRecord record;
  record.epoch = batchesPerEpoch ? last / batchesPerEpoch : 0;
  record.partial = partial;
  record.steps = epochSteps;
  record.trainLoss = epochSteps ? epochLoss / epochSteps : NAN;
  record.evaluation.epoch = record.epoch;
  if (evalSamples && !evaluate(record.evaluation, errs))
    return false;
  record.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - epochStart)
                       .count();
  // Every epoch's end is in the log, evaluated or not, so that the page
  // marks it (docs/training.md).
  const char *keys[] = {"epoch", "train_loss", "seconds", "steps", "partial"};
  double values[] = {double(record.epoch), record.trainLoss, record.seconds,
                     double(record.steps), record.partial ? 1.0 : 0.0};
  if (hwagent_session_log_metrics(runner->getSession(), "epoch", keys, values,
                                  5) != HWAGENT_OK)
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
  observer.onEpoch(record);
  epochSteps = 0;
  epochLoss = 0;
  epochStart = std::chrono::steady_clock::now();
  return true;
}

/// Seconds measured in the contraction kernels since their last reset.
static double kernelSeconds() {
  int64_t count = hwagent_kernels_stats(nullptr, 0);
  std::vector<hwagent_kernel_stat_t> kernels(count);
  hwagent_kernels_stats(kernels.data(), count);
  double seconds = 0;
  for (const hwagent_kernel_stat_t &k : kernels)
    seconds += k.seconds;
  return seconds;
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
  hwagent_parallel_stats_t loopsBefore, loopsAfter;
  hwagent_parallel_stats(&loopsBefore);
  double kernelsBefore = kernelSeconds();
  record.loss = runner->step(errs);
  double kernelsAfter = kernelSeconds();
  hwagent_parallel_stats(&loopsAfter);
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
  if (!first || totalSteps - firstStep == 1) {
    s.walls.push_back(record.stats.last_wall_seconds);
    s.work.kernelSeconds += kernelsAfter - kernelsBefore;
    s.work.loopSeconds += loopsAfter.seconds - loopsBefore.seconds;
    s.work.loopCalls += loopsAfter.calls - loopsBefore.calls;
    s.work.threadedLoopCalls +=
        loopsAfter.threaded_calls - loopsBefore.threaded_calls;
    s.work.loopThreads += loopsAfter.threads - loopsBefore.threads;
  }
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
  if (!s.diverged) {
    epochLoss += record.loss;
    ++epochSteps;
    observer.onStep(record);
  }
  return true;
}

bool Trainer::checkpointAfter(int64_t step, llvm::raw_ostream &errs) {
  checkpoint.step = step + 1;
  if (options.savePath.empty() || options.saveEvery <= 0 ||
      (step + 1) % options.saveEvery != 0)
    return true;
  return saveCheckpoint(options.savePath, runner->getArgs(), checkpoint, errs);
}

int32_t Trainer::onRepartitionEvent(void *user,
                                    const hwagent_repartition_t *event) {
  auto *trainer = static_cast<Trainer *>(user);
  if (!trainer->observer)
    return 0;
  RepartitionRecord record;
  record.step = event->step;
  record.programs = event->num_programs;
  for (uint32_t p = 0; p < event->num_programs; ++p)
    record.moved += event->old_backends[p] != event->new_backends[p];
  record.currentSeconds = event->current_seconds;
  record.proposedSeconds = event->proposed_seconds;
  record.reason = event->reason ? event->reason : "";
  trainer->observer->onRepartition(record);
  return 0;
}

bool Trainer::run(TrainerObserver &observer, const std::atomic<bool> &stop,
                  llvm::raw_ostream &errs) {
  this->observer = &observer;
  epochStart = std::chrono::steady_clock::now();
  bool endedLast = false;
  for (int64_t s = firstStep; s < totalSteps && !stop.load(); ++s) {
    if (!step(s, observer, errs))
      return false;
    if (summary.diverged)
      break;
    if (!checkpointAfter(s, errs))
      return false;
    endedLast = false;
    if (dataset && (s + 1) % batchesPerEpoch == 0) {
      if (!endEpoch(s, false, observer, errs))
        return false;
      endedLast = true;
    }
  }
  summary.stopped = stop.load();
  observer.onStepsDone();
  int64_t ran = summary.ran;
  if (dataset && !endedLast && !summary.diverged && ran > 0 &&
      !endEpoch(firstStep + ran - 1, true, observer, errs))
    return false;
  this->observer = nullptr;
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
