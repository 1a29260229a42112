//===- hwagent-run.cpp - JIT a training step and train with the runtime ---===//
//
//   hwagent-run train_step.mlir [--steps N] [--target apple-m4] [--seed S]
//       [--strategy optimal] [--backend auto|cpu|ane|gpu] [--log run.jsonl]
//       [--trace trace.json] [--scenario s.txt] [--fault-program P]
//       [--no-updates] [--outputs out.safetensors]
//       [--allow-unregistered-dialect] [--csv steps.csv]
//
// Parses options, hands the step to the trainer (tools/Trainer: data,
// epochs, evaluation, checkpoints, stopping; tools/Driver: partition, lower,
// JIT) and prints what it does (RunOutput.cpp). Inputs without a dataset
// are deterministic from the seed. Every ANE/GPU time it prints is
// simulated; CPU times are measured unless --simulate-cpu. SIGINT/SIGTERM
// finish the step in progress, then write the log, trace and profile.
//
//===----------------------------------------------------------------------===//

#include "Driver/PassContext.h"
#include "Driver/Version.h"
#include "RunOutput.h"

#include "HwAgent/Core/Limits.h"
#include "HwAgent/Core/Vocabulary.h"
#include "Trainer/Trainer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>

#include <unistd.h>

using namespace mlir;
using namespace mlir::hwagent;
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
static cl::opt<bool> overwrite(
    "overwrite",
    cl::desc("Let --save replace a checkpoint that is ahead of this run (a "
             "later step than it ends at; refused otherwise)"),
    cl::init(false), cl::cat(runCategory));
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
static cl::opt<bool> reassociateReductions(
    "reassociate-reductions",
    cl::desc("Reassociate floating-point reductions so that they run as "
             "vector loops (false: each sum in its sequential order)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<bool> mergeParallelLoops(
    "merge-parallel-loops",
    cl::desc("Merge contiguous innermost parallel loops (false: nested)"),
    cl::init(true), cl::cat(runCategory));
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
static cl::opt<int64_t>
    classes("classes", cl::desc("Classes of integer labels (0 = infer)"),
            cl::init(0), cl::cat(runCategory));
static cl::opt<int>
    cpuThreads("cpu-threads",
               cl::desc("Threads the CPU kernels and parallel loops may use "
                        "(0 = the runtime chooses: all, fewer under "
                        "contention)"),
               cl::init(0), cl::cat(runCategory));
static cl::opt<float> inputScale("input-scale",
                                 cl::desc("Scale of the generated inputs"),
                                 cl::init(1.0f), cl::cat(runCategory));
static cl::opt<int> printEvery(
    "print-every",
    cl::desc("Without the bar: a progress line every N steps (0 = none; "
             "default: about 20 lines a run)"),
    cl::init(-1), cl::cat(runCategory));
static cl::opt<double> learningRate(
    "lr",
    cl::desc("Learning rate: the value of the step's constants marked "
             "{hwagent.hyper = \"lr\"} (default: as compiled; "
             "docs/training.md)"),
    cl::init(NAN), cl::cat(runCategory));
static cl::opt<int64_t> batchSize(
    "batch-size",
    cl::desc("Check that the step takes batches of N (its shapes fix the "
             "batch; a mismatch says how to export another)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    csvPath("csv",
            cl::desc("Per-step CSV (step, epoch, loss, times, energy, "
                     "shares; train/validation figures on each epoch's "
                     "last step) for pandas or a spreadsheet"),
            cl::init(""), cl::cat(runCategory));
static cl::opt<bool>
    printParams("print-params",
                cl::desc("Print a checksum of every parameter at the end"),
                cl::init(false), cl::cat(runCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "hwagent-run: " << message << "\n";
  return 1;
}

/// Set by SIGINT/SIGTERM: the trainer stops after the step in progress
/// (and saves with --save); the run exits 128 + the signal, as a shell
/// reports a killed command.
static std::atomic<bool> stopRequested{false};
static std::atomic<int> stopSignal{0};
static_assert(std::atomic<bool>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "set from a signal handler");
extern "C" void requestStop(int signal) {
  stopSignal.store(signal);
  stopRequested.store(true);
}

/// The runtime's and the partition's options, as given.
static bool runnerOptions(RunnerOptions &options, PageFiles &page,
                          std::string &runLog) {
  options.entry = entry;
  options.inputFile = inputFile;
  options.target = target;
  options.strategy = strategy;
  // Forcing a backend partitions for it too (programs formed on that backend
  // where legal, the rest on the CPU); the runtime then never moves them.
  if (backend != ForcedBackend::autoChoice) {
    if (strategy.getNumOccurrences()) {
      fail("--backend and --strategy cannot be combined");
      return false;
    }
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
  options.reassociateReductions = reassociateReductions;
  options.mergeParallelLoops = mergeParallelLoops;
  options.seed = seed;
  options.inputScale = inputScale;
  options.paramArgs.assign(paramArgs.begin(), paramArgs.end());
  options.classes = classes;
  options.noUpdates = noUpdates;
  options.evalEntry = evalEntry;
  // The page needs the partition's report and the run's log: temporary
  // files unless the log was asked for.
  if (!htmlPath.empty() &&
      !page.create(htmlPath, /*withLog=*/logPath.empty(), llvm::errs()))
    return false;
  options.partitionReport = page.report;
  runLog = logPath.empty() ? page.log : logPath;
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
  return true;
}

static TrainerOptions trainerOptions() {
  TrainerOptions options;
  options.steps = steps.getNumOccurrences() ? int64_t(steps) : -1;
  options.data.path = dataPath;
  options.data.validationPath = valDataPath;
  options.data.split = valSplit;
  options.data.shuffle = shuffle;
  options.data.seed = seed;
  options.data.classes = classes;
  options.epochs = epochs;
  options.initPath = initPath;
  options.resumePath = resumePath;
  options.savePath = savePath;
  options.saveEvery = saveEvery;
  options.overwrite = overwrite;
  options.outputsPath = outputsPath;
  options.learningRate = learningRate;
  options.batchSize = batchSize;
  // The docs check runs the README's training commands capped (said in the
  // header, never silent).
  if (const char *cap = std::getenv("HWAGENT_MAX_STEPS"))
    if (!llvm::StringRef(cap).getAsInteger(10, options.maxSteps) &&
        options.maxSteps < 0)
      options.maxSteps = -1;
  return options;
}

/// Numbers out of range are refused before anything runs, not ignored.
static bool checkNumbers() {
  if (steps < 0)
    return fail("--steps must be >= 0"), false;
  if (epochs < 0)
    return fail("--epochs must be >= 0"), false;
  if (classes < 0)
    return fail("--classes must be >= 0 (0 = infer)"), false;
  if (cpuThreads < 0 || cpuThreads > hwcore::kMaxCpuThreads)
    return fail("--cpu-threads must be in [0, " +
                llvm::Twine(hwcore::kMaxCpuThreads) + "]"),
           false;
  if (faultProgram < -1 || faultStep < -1)
    return fail("--fault-program and --fault-step must be >= -1"), false;
  if (learningRate.getNumOccurrences() &&
      !(std::isfinite(learningRate) && learningRate > 0))
    return fail("--lr must be a positive number"), false;
  if (batchSize < 0)
    return fail("--batch-size must be >= 1"), false;
  return true;
}

/// The output files given: none empty (`--save ""` would save nothing,
/// silently), and --save none of the files the run reads or writes besides
/// its own checkpoint (--resume and --init may be the file it continues).
static bool checkOutputPaths() {
  for (cl::opt<std::string> *option :
       {&savePath, &logPath, &tracePath, &outputsPath, &profileOut, &htmlPath,
        &csvPath})
    if (option->getNumOccurrences() && option->getValue().empty())
      return fail("--" + option->ArgStr.str() + " needs a file name"), false;
  if (savePath.empty())
    return true;
  for (cl::opt<std::string> *other :
       {&inputFile, &dataPath, &valDataPath, &logPath, &tracePath, &outputsPath,
        &profileOut, &htmlPath, &csvPath, &scenarioPath}) {
    const std::string &path = other->getValue();
    bool same = false;
    if (!path.empty() &&
        (path == savePath.getValue() ||
         (!llvm::sys::fs::equivalent(path, savePath, same) && same)))
      return fail("--save '" + savePath + "' is also " +
                  (other == &inputFile ? std::string("the step's file")
                                       : "--" + other->ArgStr.str()) +
                  "; it would be overwritten"),
             false;
  }
  return true;
}

/// What the output depends on, as given.
static RunShow runShow(const PageFiles &page, const std::string &runLog,
                       const TrainerOptions &training) {
  RunShow show;
  show.inputFile = inputFile;
  show.entry = entry;
  show.target = target;
  show.dataPath = dataPath;
  show.resumePath = resumePath;
  show.shuffle = shuffle;
  show.simulateCpu = simulateCpu;
  show.adaptive = adaptive;
  show.kernelStats = kernelStats;
  show.printParams = printParams;
  show.noUpdates = noUpdates;
  show.printEvery = printEvery;
  show.bar = progress == ProgressStyle::bar ||
             (progress == ProgressStyle::automatic && isatty(STDOUT_FILENO));
  show.csvPath = csvPath;
  show.htmlPath = htmlPath;
  show.reportPath = page.report;
  show.logPath = runLog;
  show.temporaryLog = !page.log.empty();
  show.maxSteps = training.maxSteps;
  show.initPath = initPath;
  return show;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  mlir::hwagent::setVersionPrinter("hwagent-run");
  cl::ParseCommandLineOptions(argc, argv, "hwagent JIT training runner\n");
  if (!checkNumbers() || !checkOutputPaths() ||
      (!csvPath.empty() && !checkWritable(csvPath, llvm::errs())))
    return 1;

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects(allowUnregistered);
  // Errors quote the input's line and print their notes (hwagent's context
  // on a failing pass among them); warnings and remarks stay quiet.
  llvm::SourceMgr sourceMgr;
  ErrorsOnlyDiagnostics diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, ParserConfig(&context));
  if (!module)
    return fail("cannot parse '" + inputFile + "'");
  // Without --entry, a module without @train_step runs its only public
  // function (ByteIR's @main).
  if (!entry.getNumOccurrences())
    entry = defaultEntry(*module, entry);

  PageFiles page;
  RunnerOptions runner;
  std::string runLog;
  if (!runnerOptions(runner, page, runLog))
    return 1;
  TrainerOptions training = trainerOptions();
  std::unique_ptr<Trainer> trainer =
      Trainer::create(std::move(module), runner, training, llvm::errs());
  if (!trainer || !applyPins(trainer->getRunner().getSession(),
                             std::vector<std::string>(pins.begin(), pins.end()),
                             llvm::errs()))
    return 1;
  RunShow show = runShow(page, runLog, training);

  // Resumed at or past --steps, or --steps 0: say so, and score the
  // parameters when there is held-out data.
  if (trainer->getFirstStep() >= trainer->getTotalSteps())
    return runWithoutSteps(show, *trainer);
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  printHeader(show, *trainer);
  RunProgress progressOutput(show, *trainer);
  if (!progressOutput.open())
    return 1;
  if (!trainer->run(progressOutput, stopRequested, llvm::errs()))
    return 1;
  const TrainingSummary &summary = trainer->getSummary();
  printWhatWasWritten(summary, savePath, outputsPath,
                      stopSignal == SIGTERM ? "SIGTERM" : "SIGINT");
  printSummary(show, *trainer);
  hwagent_regret_t regret = {};
  if (adaptive || simulateCpu)
    hwagent_session_regret(trainer->getRunner().getSession(), &regret);
  if (!trainer->getRunner().finish(llvm::errs()) ||
      !writePage(show, *trainer, regret))
    return 1;
  if (summary.stopped)
    return 128 + stopSignal.load();
  return std::isfinite(summary.lastLoss) ? 0 : 1;
}
