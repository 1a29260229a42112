//===- hwagent-run.cpp - JIT a training step and train with the runtime ---===//
//
//   hwagent-run train_step.mlir [--steps N] [--target apple-m4] [--seed S]
//       [--strategy optimal] [--backend auto|cpu|ane|gpu] [--log run.jsonl]
//       [--trace trace.json] [--scenario s.txt] [--fault-program P]
//       [--no-updates] [--outputs out.safetensors]
//       [--allow-unregistered-dialect]
//
// Partitions the step (unless it already is), lowers it to the runtime and
// LLVM, JIT-compiles it and runs N steps, feeding the updated parameters
// back (the step's signature: docs/runtime.md). Inputs are deterministic
// from the seed. Every ANE/GPU time it prints is simulated; CPU times are
// measured unless --simulate-cpu. SIGINT/SIGTERM finish the step in
// progress, then write the log, trace and profile.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Config/RunReport.h"
#include "HwAgent/Core/Vocabulary.h"
#include "HwAgent/Tools/Dataset.h"
#include "HwAgent/Tools/TrainingRunner.h"
#include "hwagent_rt/hwagent_kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("hwagent-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<train_step.mlir>"),
                                      cl::Required, cl::cat(runCategory));
static cl::opt<std::string> entry("entry", cl::desc("Function to run"),
                                  cl::init("train_step"), cl::cat(runCategory));
static cl::opt<int> steps(
    "steps",
    cl::desc("Train until this many steps have run, resumed ones included "
             "(default 10, or --epochs' worth with a dataset)"),
    cl::init(10), cl::cat(runCategory));
static cl::opt<std::string>
    dataPath("data",
             cl::desc("Dataset (.npz or .npy): arrays named like the "
                      "step's inputs, samples along dimension 0"),
             cl::init(""), cl::cat(runCategory));
static cl::opt<std::string>
    valDataPath("val-data",
                cl::desc("Held-out dataset (default: --val-split of --data)"),
                cl::init(""), cl::cat(runCategory));
static cl::opt<double>
    valSplit("val-split",
             cl::desc("Share of --data held out for evaluation, in [0, 1)"),
             cl::init(0.0), cl::cat(runCategory));
static cl::opt<int> epochs("epochs", cl::desc("Passes over the training data"),
                           cl::init(0), cl::cat(runCategory));
static cl::opt<bool> shuffle("shuffle",
                             cl::desc("Shuffle the training data every epoch "
                                      "(seeded by --seed)"),
                             cl::init(true), cl::cat(runCategory));
static cl::opt<std::string>
    evalEntry("eval",
              cl::desc("Evaluation function, run on the held-out "
                       "data every epoch when the module has it"),
              cl::init("eval_step"), cl::cat(runCategory));
static cl::opt<std::string>
    initPath("init", cl::desc("Initial parameters (safetensors, by name)"),
             cl::init(""), cl::cat(runCategory));
static cl::opt<std::string>
    resumePath("resume",
               cl::desc("Continue from this checkpoint (its "
                        "parameters and step)"),
               cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> savePath(
    "save",
    cl::desc("Checkpoint file (safetensors), written atomically at the end "
             "and every --save-every steps"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<int> saveEvery("save-every",
                              cl::desc("Checkpoint every N steps (0 = at the "
                                       "end only)"),
                              cl::init(0), cl::cat(runCategory));
enum class ProgressStyle { automatic, bar, lines };
static cl::opt<ProgressStyle> progress(
    "progress", cl::desc("Progress display"),
    cl::init(ProgressStyle::automatic),
    cl::values(clEnumValN(ProgressStyle::automatic, "auto",
                          "a bar on a terminal, lines otherwise"),
               clEnumValN(ProgressStyle::bar, "bar", "a progress bar"),
               clEnumValN(ProgressStyle::lines, "lines", "a line per step")),
    cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of inputs and noise"),
                              cl::init(1), cl::cat(runCategory));
static cl::opt<std::string> target("target",
                                   cl::desc("Target for partitioning"),
                                   cl::init(hwcore::kDefaultTarget),
                                   cl::cat(runCategory));
static cl::opt<hwcore::Strategy> strategy("strategy",
                                          cl::desc("Partition strategy"),
                                          cl::init(hwcore::Strategy::optimal),
                                          hwagent::strategyValues(),
                                          cl::cat(runCategory));
static cl::opt<hwcore::Objective>
    objective("objective",
              cl::desc("What the optimal placement minimizes (modelled energy "
                       "from the target's power values)"),
              cl::init(hwcore::Objective::time), hwagent::objectiveValues(),
              cl::cat(runCategory));
static cl::opt<double>
    powerCap("power-cap",
             cl::desc("Most average watts the placement may draw over the "
                      "step (modelled; 0 = no cap)"),
             cl::init(0.0), cl::cat(runCategory));
static cl::opt<std::string> partitionOptions(
    "partition-options",
    cl::desc("Further partition-backends options, e.g. \"backends=cpu,ane\""),
    cl::init(""), cl::cat(runCategory));
static cl::opt<int64_t> kernelMinFlops(
    "kernel-min-flops",
    cl::desc("Contractions of at least this many FLOPs run in the packed "
             "SGEMM kernel (-1 = none: every op as compiled loops)"),
    cl::init(mlir::hwagent::kDefaultKernelMinFlops), cl::cat(runCategory));
static cl::opt<int64_t> parallelMinWork(
    "parallel-min-work",
    cl::desc("Parallel loops with at least this much work (body ops x "
             "iterations) run on the runtime's threads (-1 = none: every "
             "loop on the calling thread)"),
    cl::init(mlir::hwagent::kDefaultParallelMinWork), cl::cat(runCategory));
static cl::opt<bool> kernelStats(
    "kernel-stats",
    cl::desc("List every contraction kernel call site with its measured "
             "throughput"),
    cl::init(false), cl::cat(runCategory));
/// --backend: "auto" or a backend of the vocabulary (its hwagent_backend_t
/// value, so that it goes to the runtime's force_backend as is).
enum class ForcedBackend : int { autoChoice = -1 };
struct ForcedBackendValues {
  template <typename Opt> void apply(Opt &option) const {
    option.getParser().addLiteralOption("auto", ForcedBackend::autoChoice,
                                        "the partition's choice (default)");
    // Described as the fixed strategy for that backend.
    for (hwcore::Strategy s : hwcore::kAllStrategies)
      if (std::optional<hwcore::BackendKind> kind = hwcore::fixedBackend(s))
        option.getParser().addLiteralOption(
            hwcore::backendName(*kind),
            static_cast<ForcedBackend>(hwcore::index(*kind)),
            hwcore::strategyDescription(s));
  }
};
static cl::opt<ForcedBackend> backend(
    "backend",
    cl::desc("Partition for one backend (where legal) and keep it there"),
    cl::init(ForcedBackend::autoChoice), ForcedBackendValues(),
    cl::cat(runCategory));
static cl::opt<std::string> logPath("log", cl::desc("JSON Lines log"),
                                    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> tracePath("trace", cl::desc("Chrome trace file"),
                                      cl::init(""), cl::cat(runCategory));
static cl::opt<std::string>
    scenarioPath("scenario",
                 cl::desc("Scenario file scripting contention/thermal events"),
                 cl::init(""), cl::cat(runCategory));
static cl::opt<int64_t>
    faultProgram("fault-program",
                 cl::desc("Inject an ANE fault on this program"), cl::init(-1),
                 cl::cat(runCategory));
static cl::opt<int64_t>
    faultStep("fault-step", cl::desc("... at this step (-1 = every step)"),
              cl::init(-1), cl::cat(runCategory));
static cl::opt<double> simNoise("sim-noise",
                                cl::desc("Relative noise of simulated times"),
                                cl::init(0.0), cl::cat(runCategory));
static cl::opt<bool> adaptive("adaptive",
                              cl::desc("Learn costs online and re-partition"),
                              cl::init(false), cl::cat(runCategory));
static cl::opt<bool>
    simulateCpu("simulate-cpu",
                cl::desc("Charge the CPU its predicted time too "
                         "(deterministic; enables regret)"),
                cl::init(false), cl::cat(runCategory));
static cl::opt<int> exploreEvery(
    "explore-every",
    cl::desc("With --adaptive: at most one probe that is expected to cost "
             "time every N steps (0 = never probe; docs/adaptive.md)"),
    cl::init(10), cl::cat(runCategory));
static cl::opt<double> exploreBudget(
    "explore-budget",
    cl::desc("Share of the predicted run time probes may cost (default 0.02)"),
    cl::init(0.02), cl::cat(runCategory));
static cl::opt<bool> useTelemetry(
    "adaptive-telemetry",
    cl::desc(
        "Let telemetry changes (load, thermal state) shift the online model "
        "(=false: learn from measurements only)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<double> horizon("horizon",
                               cl::desc("Steps a switch must pay off over"),
                               cl::init(50), cl::cat(runCategory));
static cl::opt<std::string>
    profileOut("profile-out", cl::desc("Write the measured profile DB here"),
               cl::init(""), cl::cat(runCategory));
static cl::opt<std::string>
    htmlPath("html",
             cl::desc("Write one self-contained HTML page of the partition "
                      "and the run here (docs/report.md)"),
             cl::init(""), cl::cat(runCategory));
static cl::list<std::string>
    pins("pin", cl::desc("Pin a program: <index>=cpu|ane|gpu"),
         cl::CommaSeparated, cl::cat(runCategory));
static cl::list<int64_t> paramArgs(
    "params",
    cl::desc("Argument updated by each result after the loss (e.g. 2,3,4)"),
    cl::CommaSeparated, cl::cat(runCategory));
static cl::opt<int64_t>
    classes("classes", cl::desc("Classes of integer labels (0 = infer)"),
            cl::init(0), cl::cat(runCategory));
static cl::opt<bool> noUpdates(
    "no-updates",
    cl::desc("The results after the loss are outputs (e.g. gradients), not "
             "updated parameters: every step runs on the same arguments"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<std::string> outputsPath(
    "outputs",
    cl::desc("Write the last step's loss and outputs (the results that "
             "update no parameter) here, as safetensors"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<bool> allowUnregistered(
    "allow-unregistered-dialect",
    cl::desc("Accept ops of unregistered dialects (ByteIR's "
             "byre.compute_on_tensor library calls are compiled; "
             "docs/byteir.md)"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<int>
    cpuThreads("cpu-threads",
               cl::desc("Threads the CPU kernels and parallel loops may use "
                        "(0 = the runtime chooses: all, fewer under "
                        "contention)"),
               cl::init(0), cl::cat(runCategory));
static cl::opt<float> inputScale("input-scale",
                                 cl::desc("Scale of the generated inputs"),
                                 cl::init(1.0f), cl::cat(runCategory));
static cl::opt<int> printEvery("print-every",
                               cl::desc("Progress every N steps"), cl::init(1),
                               cl::cat(runCategory));
static cl::opt<bool>
    printParams("print-params",
                cl::desc("Print a checksum of every parameter at the end"),
                cl::init(false), cl::cat(runCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "hwagent-run: " << message << "\n";
  return 1;
}

/// Set by SIGINT/SIGTERM: the loop stops after the step in progress.
static volatile std::sig_atomic_t stopRequested = 0;
extern "C" void requestStop(int) { stopRequested = 1; }

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

namespace {
/// One run of hwagent-run, step by step: start (options, the runner, pins),
/// prepare (data, parameters, checkpoints: every check before the first
/// step), train (the loop, evaluations, checkpoints), then the summary and
/// the report page.
struct Run {
  ~Run() {
    if (!reportTemp.empty())
      llvm::sys::fs::remove(reportTemp);
    if (!logTemp.empty())
      llvm::sys::fs::remove(logTemp);
  }
  bool start(OwningOpRef<ModuleOp> module);
  bool prepare();
  void printHeader();
  /// One pass of the evaluation function over the held-out batches.
  bool evaluate(int64_t epoch);
  bool train();
  void printSummary();
  void printStepSplit();
  bool writePage();

  std::unique_ptr<hwagent::TrainingRunner> runner;
  hwagent_session_t *session = nullptr;
  std::unique_ptr<hwagent::Dataset> dataset;
  int64_t batchesPerEpoch = 0, evalBatches = 0;
  hwagent::CheckpointInfo checkpoint;
  int64_t firstStep = 0, totalSteps = 0;
  bool bar = false;
  /// The page needs the partition's report and the run's log: temporary
  /// files unless the log was asked for.
  std::string reportTemp, logTemp, runLog;
  // What the steps gave.
  double firstLoss = NAN, lastLoss = NAN;
  int ran = 0;
  std::vector<double> walls;
  int64_t peakStepBytes = 0;
  bool diverged = false, evaluatedLast = false;
  /// The run's energy: modelled, and the package counter's where readable.
  double runJoules = 0, runSeconds = 0, counterJoules = 0;
  bool counted = true, onlyTime = true;
  hwagent_regret_t regret = {};
};
} // namespace

static bool error(const llvm::Twine &message) {
  fail(message);
  return false;
}

bool Run::start(OwningOpRef<ModuleOp> module) {
  hwagent::RunnerOptions options;
  options.entry = entry;
  options.target = target;
  options.strategy = strategy;
  // Forcing a backend partitions for it too (programs formed on that backend
  // where legal, the rest on the CPU); the runtime then never moves them.
  if (backend != ForcedBackend::autoChoice) {
    if (strategy.getNumOccurrences())
      return error("--backend and --strategy cannot be combined");
    auto kind =
        static_cast<hwcore::BackendKind>(static_cast<int>(backend.getValue()));
    for (hwcore::Strategy s : hwcore::kAllStrategies)
      if (hwcore::fixedBackend(s) == kind)
        options.strategy = s;
  }
  options.objective = objective;
  options.powerCap = powerCap;
  options.partitionOptions = partitionOptions;
  options.kernelMinFlops = kernelMinFlops;
  options.parallelMinWork = parallelMinWork;
  options.seed = seed;
  options.inputScale = inputScale;
  options.paramArgs.assign(paramArgs.begin(), paramArgs.end());
  options.classes = classes;
  options.noUpdates = noUpdates;
  options.evalEntry = evalEntry;
  // The page needs the partition's report and the run's log: temporary
  // files unless the log was asked for.
  if (!htmlPath.empty()) {
    if (!hwagent::checkWritable(htmlPath, llvm::errs()))
      return false;
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("hwagent-report", "json", path))
      return error("cannot create a temporary file for the report");
    reportTemp = std::string(path);
    options.partitionReport = reportTemp;
    if (logPath.empty()) {
      if (llvm::sys::fs::createTemporaryFile("hwagent-run", "jsonl", path))
        return error("cannot create a temporary file for the log");
      logTemp = std::string(path);
    }
  }
  runLog = logPath.empty() ? logTemp : logPath;
  hwagent_options_t &rt = options.runtime;
  rt.seed = seed;
  rt.sim_noise = simNoise;
  rt.log_path = runLog.empty() ? nullptr : runLog.c_str();
  rt.trace_path = tracePath.empty() ? nullptr : tracePath.c_str();
  rt.scenario_path = scenarioPath.empty() ? nullptr : scenarioPath.c_str();
  rt.fault_program = faultProgram;
  rt.fault_step = faultStep;
  rt.adaptive = adaptive;
  rt.simulate_cpu = simulateCpu;
  rt.explore_every = exploreEvery;
  rt.horizon = horizon;
  rt.use_telemetry = useTelemetry;
  rt.explore_budget = exploreBudget;
  rt.profile_out = profileOut.empty() ? nullptr : profileOut.c_str();
  rt.force_backend = static_cast<int32_t>(backend.getValue());
  rt.cpu_threads = cpuThreads;

  runner =
      hwagent::TrainingRunner::create(std::move(module), options, llvm::errs());
  if (!runner)
    return false;
  session = runner->getSession();
  for (const std::string &pin : pins) {
    auto [indexText, name] = llvm::StringRef(pin).split('=');
    int64_t index;
    std::optional<hwcore::BackendKind> kind = hwcore::parseBackendName(name);
    int32_t b = kind ? static_cast<int32_t>(*kind) : -1;
    if (indexText.getAsInteger(10, index) || !kind)
      return error("--pin expects <program>=cpu|ane|gpu, got '" + pin + "'");
    if (hwagent_session_pin(session, index, b) != HWAGENT_OK)
      return error(llvm::Twine("--pin ") + pin + ": " +
                   hwagent_error_message());
  }
  return true;
}

bool Run::prepare() {
  std::vector<hwagent::ArgBuffer> &args = runner->getArgs();
  // Data, parameters and checkpoints, all checked before the first step.
  if (!dataPath.empty()) {
    hwagent::DatasetOptions data;
    data.path = dataPath;
    data.validationPath = valDataPath;
    data.split = valSplit;
    data.shuffle = shuffle;
    data.seed = seed;
    data.classes = classes;
    dataset = hwagent::Dataset::open(data, llvm::errs());
    if (!dataset || !dataset->bind(args, entry, false, llvm::errs()))
      return false;
    int64_t batch = args[runner->getInputs().front()].shape.front();
    batchesPerEpoch = dataset->batchesPerEpoch(batch);
    if (batchesPerEpoch == 0)
      return error(llvm::formatv("{0} holds {1} training samples, fewer than "
                                 "one batch of {2}",
                                 dataPath, dataset->numTrain(), batch));
    if (runner->hasEval() && dataset->numValidation() > 0) {
      std::vector<hwagent::ArgBuffer> &evalArgs = runner->getEvalArgs();
      if (!dataset->bind(evalArgs, runner->getEvalEntry(), true, llvm::errs()))
        return false;
      for (const hwagent::ArgBuffer &b : evalArgs)
        if (!b.shared && !b.shape.empty()) {
          evalBatches = dataset->numValidation() / b.shape.front();
          break;
        }
    }
  } else if (!valDataPath.empty() || valSplit > 0 || epochs > 0) {
    return error("--val-data, --val-split and --epochs need --data");
  }
  checkpoint.entry = entry;
  if (!initPath.empty() && !resumePath.empty())
    return error("--init and --resume cannot be combined");
  if (!initPath.empty() &&
      !hwagent::loadParameters(initPath, args, checkpoint, llvm::errs()))
    return false;
  if (!resumePath.empty()) {
    if (!hwagent::loadParameters(resumePath, args, checkpoint, llvm::errs()))
      return false;
    if (checkpoint.entry != entry)
      return error(llvm::formatv("{0} is a checkpoint of @{1}, not @{2}",
                                 resumePath, checkpoint.entry, entry));
    firstStep = checkpoint.step;
  }
  checkpoint.entry = entry;
  if (noUpdates && (!savePath.empty() || !resumePath.empty()))
    return error("--save and --resume need parameters that the step updates; "
                 "with --no-updates write the results with --outputs");
  if (saveEvery < 0)
    return error("--save-every must be >= 0");
  if (!outputsPath.empty() &&
      !hwagent::checkWritable(outputsPath, llvm::errs()))
    return false;
  if (!savePath.empty() && !hwagent::checkWritable(savePath, llvm::errs()))
    return false;
  totalSteps = steps;
  if (epochs > 0 && !steps.getNumOccurrences())
    totalSteps = int64_t(epochs) * batchesPerEpoch;
  if (totalSteps < 0)
    return error("--steps must be >= 0");
  return true;
}

void Run::printHeader() {
  llvm::outs() << llvm::formatv(
      "hwagent-run: @{0} from {1}: {2} inputs, {3} parameters, {4} programs; "
      "target {5}; compiled in {6:f2} s; peak live tensors {7:f1} MiB\n",
      entry, inputFile, runner->getNumInputs(),
      noUpdates ? llvm::formatv("{0} fixed", runner->getArgs().size() -
                                                 runner->getNumInputs())
                      .str()
                : std::to_string(runner->getNumParams()),
      hwagent_session_num_programs(session), target,
      runner->getCompileSeconds(), runner->getPeakBytes() / double(1 << 20));
  if (dataset)
    llvm::outs() << llvm::formatv(
        "hwagent-run: data {0}: {1} training samples ({2} batches per "
        "epoch{3}), {4} held out{5}\n",
        dataPath, dataset->numTrain(), batchesPerEpoch,
        shuffle ? ", shuffled" : "", dataset->numValidation(),
        evalBatches ? " for @" + runner->getEvalEntry() : std::string());
  if (firstStep)
    llvm::outs() << llvm::formatv("hwagent-run: resumed from {0} at step "
                                  "{1}\n",
                                  resumePath, firstStep);
  llvm::outs() << (simulateCpu ? "  times: every backend simulated by the "
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
  bar = progress == ProgressStyle::bar ||
        (progress == ProgressStyle::automatic && isatty(STDOUT_FILENO));
}

bool Run::evaluate(int64_t epoch) {
  if (!evalBatches)
    return true;
  double lossSum = 0, correct = 0;
  bool hasCorrect = false;
  std::vector<hwagent::ArgBuffer> &evalArgs = runner->getEvalArgs();
  int64_t batch = 0;
  for (int64_t b = 0; b < evalBatches; ++b) {
    dataset->fill(evalArgs, true, 0, b);
    std::vector<std::pair<std::string, double>> results;
    if (!runner->evaluate(results, llvm::errs()))
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
  for (const hwagent::ArgBuffer &b : evalArgs)
    if (!b.shared && !b.shape.empty()) {
      batch = b.shape.front();
      break;
    }
  double samples = double(evalBatches * batch);
  double loss = lossSum / evalBatches;
  double accuracy = hasCorrect ? correct / samples : NAN;
  llvm::outs() << llvm::formatv("{0}epoch {1,3}  validation loss {2:e4}",
                                bar ? "\r\033[K" : "", epoch, loss);
  if (hasCorrect)
    llvm::outs() << llvm::formatv("  accuracy {0:f2}%", 100 * accuracy);
  llvm::outs() << llvm::formatv("  ({0} samples, @{1})\n", int64_t(samples),
                                runner->getEvalEntry());
  const char *keys[] = {"epoch", "val_loss", "val_accuracy", "samples"};
  double values[] = {double(epoch), loss, accuracy, samples};
  if (hwagent_session_log_metrics(session, "eval", keys, values, 4) !=
      HWAGENT_OK)
    llvm::errs() << "hwagent-run: " << hwagent_error_message() << "\n";
  return true;
}

bool Run::train() {
  std::vector<hwagent::ArgBuffer> &args = runner->getArgs();
  auto started = std::chrono::steady_clock::now();
  for (int64_t step = firstStep; step < totalSteps && !stopRequested;
       ++step, ++ran) {
    int64_t epoch = batchesPerEpoch ? step / batchesPerEpoch : 0;
    if (dataset)
      dataset->fill(args, false, epoch, step % batchesPerEpoch);
    hwagent_buffer_reset_peak();
    hwagent_buffer_stats_t before;
    hwagent_buffer_stats(&before);
    float loss = runner->step(llvm::errs());
    hwagent_buffer_stats_t after;
    hwagent_buffer_stats(&after);
    peakStepBytes =
        std::max(peakStepBytes, after.peak_bytes - before.live_bytes);
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(session, &stats);
    // Step 0 touches every buffer for the first time: kernel figures count
    // from step 1 when there is one.
    bool first = step == firstStep;
    if (first && totalSteps - firstStep > 1) {
      hwagent_kernels_reset_stats();
      hwagent_parallel_reset_stats();
    }
    if (!first || totalSteps - firstStep == 1)
      walls.push_back(stats.last_wall_seconds);
    runJoules += stats.last_step_joules;
    runSeconds += stats.last_step_seconds;
    counterJoules += stats.last_counter_joules;
    counted &= stats.last_counter_joules >= 0;
    onlyTime &=
        stats.objective == HWAGENT_OBJECTIVE_TIME && stats.power_cap <= 0;
    if (first)
      firstLoss = loss;
    lastLoss = loss;
    if (!std::isfinite(loss)) {
      llvm::errs() << "hwagent-run: warning: loss is not finite at step "
                   << step << "\n";
      if (dataset || !savePath.empty()) {
        // Training on data stops here: the last checkpoint stays as it was.
        diverged = true;
        ++ran;
        break;
      }
    }
    if (bar) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - started)
                           .count();
      double rate = (ran + 1) / std::max(elapsed, 1e-9);
      int64_t done = step + 1;
      int width = 24;
      int filled = int(width * double(done) / std::max<int64_t>(1, totalSteps));
      llvm::outs() << llvm::formatv(
          "\r\033[K[{0}{1}] step {2}/{3}  epoch {4}  loss {5:e4}  {6:f1} "
          "steps/s  ETA {7:f0} s",
          std::string(filled, '='), std::string(width - filled, ' '), done,
          totalSteps, epoch, loss, rate, (totalSteps - done) / rate);
      llvm::outs().flush();
    } else if (printEvery > 0 &&
               (step % printEvery == 0 || step == totalSteps - 1)) {
      // Every backend's share, named by the vocabulary; only the CPU's is
      // ever measured.
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
          step, loss, stats.last_step_seconds * 1e3, shares,
          stats.last_step_joules * 1e3, stats.last_wall_seconds * 1e3,
          stats.launches, stats.faults);
      if (stats.last_counter_joules >= 0)
        llvm::outs() << llvm::formatv("  package {0:f3} J measured",
                                      stats.last_counter_joules);
      if (dataset)
        llvm::outs() << "  epoch " << epoch;
      llvm::outs() << "\n";
    }
    checkpoint.step = step + 1;
    if (!savePath.empty() && saveEvery > 0 && (step + 1) % saveEvery == 0 &&
        !hwagent::saveCheckpoint(savePath, args, checkpoint, llvm::errs()))
      return false;
    evaluatedLast = false;
    if (dataset && (step + 1) % batchesPerEpoch == 0) {
      if (!evaluate(epoch))
        return false;
      evaluatedLast = true;
    }
  }
  if (bar)
    llvm::outs() << "\n";
  if (dataset && !evaluatedLast && !diverged && ran > 0 &&
      !evaluate(batchesPerEpoch ? (firstStep + ran - 1) / batchesPerEpoch : 0))
    return false;
  if (!savePath.empty() && !diverged && ran > 0) {
    if (!hwagent::saveCheckpoint(savePath, args, checkpoint, llvm::errs()))
      return false;
    llvm::outs() << llvm::formatv("hwagent-run: saved the parameters after "
                                  "step {0} to {1}\n",
                                  checkpoint.step, savePath);
  }
  if (!outputsPath.empty() && ran > 0) {
    if (!runner->saveOutputs(outputsPath, llvm::errs()))
      return false;
    llvm::outs() << llvm::formatv("hwagent-run: wrote the outputs of step {0} "
                                  "to {1}\n",
                                  firstStep + ran - 1, outputsPath);
  }
  if (stopRequested)
    llvm::outs() << llvm::formatv("hwagent-run: stopped by a signal after {0} "
                                  "steps\n",
                                  ran);
  return true;
}

void Run::printSummary() {
  llvm::outs() << llvm::formatv(
      "hwagent-run: loss {0:e4} -> {1:e4} over {2} steps\n", firstLoss,
      lastLoss, ran);
  if (!walls.empty()) {
    std::sort(walls.begin(), walls.end());
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    llvm::outs() << llvm::formatv(
        "hwagent-run: wall per step {0:f3} ms (median of {1} steps{2}); "
        "peak step buffers {3:f1} MiB, peak RSS {4:f1} MiB (measured)\n",
        walls[walls.size() / 2] * 1e3, walls.size(),
        ran > 1 ? ", after the first" : "", peakStepBytes / double(1 << 20),
        usage.ru_maxrss / 1024.0);
  }
  if (ran > 0) {
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(session, &stats);
    llvm::outs() << llvm::formatv(
        "hwagent-run: energy {0:f4} J over {1} steps ({2:f3} mJ per step, "
        "{3:f2} W average over the target's step time; modelled), objective "
        "{4}",
        runJoules, ran, runJoules / ran * 1e3,
        runSeconds > 0 ? runJoules / runSeconds : 0.0,
        hwagent_objective_name(stats.objective));
    if (stats.power_cap > 0)
      llvm::outs() << llvm::formatv(", power cap {0:f2} W", stats.power_cap);
    if (counted && hwagent_session_energy_counter(session))
      llvm::outs() << llvm::formatv("; this machine's package {0:f3} J "
                                    "(measured, {1})",
                                    counterJoules,
                                    hwagent_session_energy_counter(session));
    llvm::outs() << "\n";
  }
  if (int64_t count = hwagent_kernels_stats(nullptr, 0)) {
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
    if (kernelStats)
      for (const hwagent_kernel_stat_t &k : kernels) {
        // The spec: version, loop count, extents (hwagent_kernels.h).
        std::string loops;
        for (int64_t l = 0; l < k.spec[1]; ++l)
          loops += (l ? "x" : "") + std::to_string(k.spec[2 + l]);
        llvm::outs() << llvm::formatv(
            "  contraction over loops {0}: {1} calls, {2:f4} GFLOP per call, "
            "{3:f3} ms per call, {4:f1} GFLOP/s\n",
            loops, k.calls, k.flops / std::max<int64_t>(k.calls, 1) / 1e9,
            k.seconds / std::max<int64_t>(k.calls, 1) * 1e3,
            k.seconds > 0 ? k.flops / k.seconds / 1e9 : 0.0);
      }
  }
  printStepSplit();
  if ((adaptive || simulateCpu) &&
      hwagent_session_regret(session, &regret) == HWAGENT_OK) {
    uint32_t n = hwagent_session_switch_steps(session, nullptr, 0);
    std::vector<int64_t> switchSteps(n);
    hwagent_session_switch_steps(session, switchSteps.data(), n);
    llvm::outs() << llvm::formatv("hwagent-run: {0} re-partitions", n);
    if (n) {
      llvm::outs() << " at steps";
      for (int64_t s : switchSteps)
        llvm::outs() << " " << s;
    }
    llvm::outs() << llvm::formatv(
        ", {0} vetoed, {1} probes, {2} variants built\n", regret.vetoes,
        regret.explorations, regret.compiles);
    if (simulateCpu) {
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
      if (regret.steps > 0 && !onlyTime)
        llvm::outs() << llvm::formatv(
            "hwagent-run: the oracle and the best fixed assignment minimize "
            "time; this run also optimized energy or kept a cap: {0:f4} J "
            "(modelled)\n",
            regret.actual_joules);
    }
  }
  if (printParams)
    for (unsigned p = 0; p < runner->getNumParams(); ++p) {
      auto checksum = runner->paramChecksum(p);
      llvm::outs() << llvm::formatv(
          "param {0}: sum {1:e6} sum|.| {2:e6} bits {3:x16}\n", p, checksum.sum,
          checksum.sumAbs, checksum.bits);
    }
}

/// Where the measured steps' wall time went: the contraction kernels, the
/// loops on the runtime's threads, and the rest (loops left inline, copies,
/// the runtime's own work).
void Run::printStepSplit() {
  double wall = 0;
  for (double w : walls)
    wall += w;
  hwagent_parallel_stats_t loops;
  hwagent_parallel_stats(&loops);
  if (wall <= 0 || loops.calls + hwagent_kernels_stats(nullptr, 0) == 0)
    return;
  int64_t count = hwagent_kernels_stats(nullptr, 0);
  std::vector<hwagent_kernel_stat_t> kernels(count);
  hwagent_kernels_stats(kernels.data(), count);
  double kernelSeconds = 0;
  for (const hwagent_kernel_stat_t &k : kernels)
    kernelSeconds += k.seconds;
  auto share = [&](double seconds) { return 100.0 * seconds / wall; };
  llvm::outs() << llvm::formatv(
      "hwagent-run: step wall time (measured, cpu, {0} steps): contraction "
      "kernels {1:f1}%, parallel loops {2:f1}% ({3:f1} calls per step, {4} "
      "on more than one thread, {5:f2} threads on average), the rest "
      "{6:f1}%\n",
      walls.size(), share(kernelSeconds), share(loops.seconds),
      double(loops.calls) / walls.size(), loops.threaded_calls,
      loops.calls ? double(loops.threads) / loops.calls : 0.0,
      std::max(0.0, 100.0 - share(kernelSeconds) - share(loops.seconds)));
}

bool Run::writePage() {
  if (htmlPath.empty())
    return true;
  hwconfig::HtmlReportInput page;
  std::vector<std::pair<std::string, std::string>> &summary = page.runSummary;
  summary = {
      {"step", "@" + entry + " from " + inputFile + ", target " + target},
      {"loss", llvm::formatv("{0:e4} -> {1:e4} over {2} steps", firstLoss,
                             lastLoss, ran)},
      {"times", simulateCpu ? "every backend simulated (--simulate-cpu)"
                            : "cpu measured here; ane/gpu simulated"},
      {"energy", llvm::formatv("{0:f4} J modelled ({1:f3} mJ per step)",
                               runJoules, ran ? runJoules / ran * 1e3 : 0.0)},
  };
  if ((adaptive || simulateCpu) && regret.steps > 0 && simulateCpu)
    summary.push_back(
        {"regret (time)",
         llvm::formatv(
             "{0:f2}% vs the clairvoyant oracle, "
             "{1:f2}% vs the best fixed assignment; {2} "
             "switches, {3} probes",
             100 * (regret.actual_seconds / regret.oracle_seconds - 1),
             100 * (regret.actual_seconds / regret.best_fixed_seconds - 1),
             regret.switches, regret.explorations)});
  if (!logTemp.empty())
    page.runSource = "this run's session log (--log keeps it)";
  if (!hwconfig::writeRunReport(htmlPath, reportTemp, runLog, std::move(page),
                                llvm::errs()))
    return false;
  llvm::outs() << "hwagent-run: wrote the report page " << htmlPath << "\n";

  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv, "hwagent JIT training runner\n");

  DialectRegistry registry;
  hwagent::registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects(allowUnregistered);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");
  // Without --entry, a module without @train_step runs its only public
  // function (a step exported by another compiler: ByteIR's @main).
  if (!entry.getNumOccurrences() && !module->lookupSymbol(entry)) {
    SmallVector<func::FuncOp> candidates;
    for (auto fn : module->getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        candidates.push_back(fn);
    if (candidates.size() == 1)
      entry = candidates.front().getName().str();
  }

  Run run;
  if (!run.start(std::move(module)) || !run.prepare())
    return 1;
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  run.printHeader();
  if (!run.train())
    return 1;
  run.printSummary();
  if (!run.runner->finish(llvm::errs()) || !run.writePage())
    return 1;
  return std::isfinite(run.lastLoss) ? 0 : 1;
}
