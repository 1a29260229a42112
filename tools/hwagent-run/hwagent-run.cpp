//===- hwagent-run.cpp - JIT a training step and train with the runtime ---===//
//
//   hwagent-run train_step.mlir [--steps N] [--target apple-m4] [--seed S]
//       [--strategy optimal] [--backend auto|cpu|ane] [--log run.jsonl]
//       [--trace trace.json] [--scenario s.txt] [--fault-region R [--fault-step K]]
//
// Partitions the step (unless it already is), lowers it to the runtime and
// LLVM, JIT-compiles it and runs N steps, feeding the updated parameters
// back (convention: docs/workloads.md). Inputs are deterministic from the
// seed. Every ANE/GPU time it prints is simulated; CPU times are measured.
//
//===----------------------------------------------------------------------===//

#include "hwagent/Runner/TrainingRunner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<train_step.mlir>"),
                                      cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("Function to run"),
                                  cl::init("train_step"));
static cl::opt<int> steps("steps", cl::desc("Training steps"), cl::init(10));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of inputs and noise"),
                              cl::init(1));
static cl::opt<std::string> target("target", cl::desc("Target for partitioning"),
                                   cl::init("apple-m4"));
static cl::opt<std::string> strategy("strategy",
                                     cl::desc("optimal|greedy|local|cpu|ane"),
                                     cl::init("optimal"));
static cl::opt<std::string> backend("backend",
                                    cl::desc("auto (the partition), cpu or ane"),
                                    cl::init("auto"));
static cl::opt<std::string> logPath("log", cl::desc("JSON Lines log"),
                                    cl::init(""));
static cl::opt<std::string> tracePath("trace", cl::desc("Chrome trace file"),
                                      cl::init(""));
static cl::opt<std::string> scenarioPath(
    "scenario", cl::desc("Scenario file scripting contention/thermal events"),
    cl::init(""));
static cl::opt<int64_t> faultRegion("fault-region",
                                    cl::desc("Inject an ANE fault on this region"),
                                    cl::init(-1));
static cl::opt<int64_t> faultStep("fault-step",
                                  cl::desc("... at this step (-1 = every step)"),
                                  cl::init(-1));
static cl::opt<double> simNoise("sim-noise",
                                cl::desc("Relative noise of simulated times"),
                                cl::init(0.0));
static cl::opt<bool> adaptive("adaptive",
                              cl::desc("Learn costs online and re-partition"),
                              cl::init(false));
static cl::opt<bool> simulateCpu(
    "simulate-cpu",
    cl::desc("Charge the CPU its predicted time too (deterministic; enables regret)"),
    cl::init(false));
static cl::opt<int> exploreEvery("explore-every",
                                 cl::desc("Consider probing the least recently measured backend every N steps"),
                                 cl::init(0));
static cl::opt<double> exploreBudget(
    "explore-budget",
    cl::desc("Share of the predicted run time probes may cost (default 0.02)"),
    cl::init(0.02));
static cl::opt<bool> useTelemetry(
    "adaptive-telemetry",
    cl::desc("Let telemetry changes (load, thermal state) shift the online model "
             "(=false: learn from measurements only)"),
    cl::init(true));
static cl::opt<double> horizon("horizon", cl::desc("Steps a switch must pay off over"),
                               cl::init(50));
static cl::opt<std::string> profileOut("profile-out",
                                       cl::desc("Write the measured profile DB here"),
                                       cl::init(""));
static cl::list<std::string> pins("pin",
                                  cl::desc("Pin a region: <id>=cpu|ane|gpu"),
                                  cl::CommaSeparated);
static cl::opt<float> inputScale("input-scale",
                                 cl::desc("Scale of the generated inputs"),
                                 cl::init(1.0f));
static cl::opt<int> printEvery("print-every", cl::desc("Progress every N steps"),
                               cl::init(1));
static cl::opt<bool> printParams("print-params",
                                 cl::desc("Print a checksum of every parameter at the end"),
                                 cl::init(false));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "hwagent-run: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "hwagent JIT training runner\n");

  DialectRegistry registry;
  hwagent::registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");

  hwagent::RunnerOptions options;
  options.entry = entry;
  options.target = target;
  options.strategy = strategy;
  options.seed = seed;
  options.inputScale = inputScale;
  hwagent_options_t &rt = options.runtime;
  rt.seed = seed;
  rt.sim_noise = simNoise;
  rt.log_path = logPath.empty() ? nullptr : logPath.c_str();
  rt.trace_path = tracePath.empty() ? nullptr : tracePath.c_str();
  rt.scenario_path = scenarioPath.empty() ? nullptr : scenarioPath.c_str();
  rt.fault_region = faultRegion;
  rt.adaptive = adaptive;
  rt.simulate_cpu = simulateCpu;
  rt.explore_every = exploreEvery;
  rt.horizon = horizon;
  rt.use_telemetry = useTelemetry;
  rt.explore_budget = exploreBudget;
  rt.profile_out = profileOut.empty() ? nullptr : profileOut.c_str();
  rt.fault_step = faultStep;
  if (backend == "cpu")
    rt.force_backend = HWAGENT_BACKEND_CPU;
  else if (backend == "ane")
    rt.force_backend = HWAGENT_BACKEND_ANE;
  else if (backend != "auto")
    return fail("--backend must be auto, cpu or ane");

  std::unique_ptr<hwagent::TrainingRunner> runner =
      hwagent::TrainingRunner::create(std::move(module), options, llvm::errs());
  if (!runner)
    return 1;
  hwagent_session_t *session = runner->getSession();
  for (const std::string &pin : pins) {
    auto [idText, name] = llvm::StringRef(pin).split('=');
    int64_t id;
    int32_t b = name == "cpu" ? 0 : name == "ane" ? 1 : name == "gpu" ? 2 : -1;
    if (idText.getAsInteger(10, id) || b < 0)
      return fail("--pin expects <id>=cpu|ane|gpu, got '" + pin + "'");
    if (hwagent_session_pin(session, id, b) != HWAGENT_OK)
      return fail(llvm::Twine("--pin ") + pin + ": " +
                  hwagent_session_last_error(session));
  }

  llvm::outs() << llvm::formatv(
      "hwagent-run: @{0} from {1}: {2} inputs, {3} parameters; target {4}; "
      "compiled in {5:f2} s\n",
      entry, inputFile, runner->getNumInputs(), runner->getNumParams(), target,
      runner->getCompileSeconds());
  llvm::outs() << "  times: cpu measured on this machine; ane/gpu simulated by the "
                  "target's device model\n";
  double firstLoss = NAN, lastLoss = NAN;
  for (int step = 0; step < steps; ++step) {
    float loss = runner->step(llvm::errs());
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(session, &stats);
    if (step == 0)
      firstLoss = loss;
    lastLoss = loss;
    if (!std::isfinite(loss))
      llvm::errs() << "hwagent-run: warning: loss is not finite at step " << step
                   << "\n";
    if (printEvery > 0 && (step % printEvery == 0 || step == steps - 1))
      llvm::outs() << llvm::formatv(
          "step {0,4}  loss {1,12:e4}  step {2,10:f3} ms (cpu {3,5:f1}% measured, "
          "ane {4,5:f1}% simulated, gpu {5,5:f1}% simulated)  wall {6,9:f2} ms"
          "  faults {7}\n",
          step, loss, stats.last_step_seconds * 1e3, stats.share[0] * 100,
          stats.share[1] * 100, stats.share[2] * 100,
          stats.last_wall_seconds * 1e3, stats.faults);
  }
  llvm::outs() << llvm::formatv("hwagent-run: loss {0:e4} -> {1:e4} over {2} steps\n",
                                firstLoss, lastLoss, steps);
  hwagent_regret_t regret;
  if ((adaptive || simulateCpu) &&
      hwagent_session_regret(session, &regret) == HWAGENT_OK) {
    int64_t switchSteps[256];
    uint32_t n = hwagent_session_switch_steps(session, switchSteps, 256);
    llvm::outs() << llvm::formatv("hwagent-run: {0} re-partitions", n);
    if (n) {
      llvm::outs() << " at steps";
      for (uint32_t i = 0; i < std::min<uint32_t>(n, 256); ++i)
        llvm::outs() << " " << switchSteps[i];
    }
    llvm::outs() << llvm::formatv(", {0} vetoed, {1} explorations\n",
                                  regret.vetoes, regret.explorations);
    // Reaction to each scripted event: the first re-partition from the end
    // of the step before it (where telemetry announces it) on; 0 steps
    // means the event's first step already ran on the new assignment.
    if (!scenarioPath.empty()) {
      std::vector<int64_t> events;
      auto buffer = llvm::MemoryBuffer::getFile(scenarioPath);
      if (buffer) {
        llvm::SmallVector<llvm::StringRef> lines;
        (*buffer)->getBuffer().split(lines, '\n');
        for (llvm::StringRef line : lines) {
          int64_t at;
          if (line.consume_front("at ") && !line.split(' ').first.getAsInteger(10, at))
            events.push_back(at);
        }
      }
      for (size_t e = 0; e < events.size(); ++e) {
        int64_t end = e + 1 < events.size() ? events[e + 1] - 1 : steps;
        int64_t first = -1, count = 0;
        for (uint32_t i = 0; i < std::min<uint32_t>(n, 256); ++i)
          if (switchSteps[i] >= events[e] - 1 && switchSteps[i] < end) {
            first = first < 0 ? switchSteps[i] : first;
            ++count;
          }
        if (first >= 0)
          llvm::outs() << llvm::formatv(
              "hwagent-run: event at step {0}: reacted after {1} steps, {2} "
              "re-partitions\n",
              events[e], first - events[e] + 1, count);
        else
          llvm::outs() << llvm::formatv(
              "hwagent-run: event at step {0}: no re-partition\n", events[e]);
      }
    }
    if (simulateCpu && regret.steps > 0)
      llvm::outs() << llvm::formatv(
          "hwagent-run: simulated total {0:f3} ms; regret vs per-step oracle "
          "{1:f2}% ({2:f3} ms), vs best fixed assignment in hindsight {3:f2}% "
          "({4:f3} ms)\n",
          regret.actual_seconds * 1e3,
          100 * (regret.actual_seconds / regret.oracle_seconds - 1),
          regret.oracle_seconds * 1e3,
          100 * (regret.actual_seconds / regret.best_fixed_seconds - 1),
          regret.best_fixed_seconds * 1e3);
  }
  if (printParams)
    for (unsigned p = 0; p < runner->getNumParams(); ++p) {
      auto [sum, sumAbs] = runner->paramChecksum(p);
      llvm::outs() << llvm::formatv("param {0}: sum {1:e6} sum|.| {2:e6}\n", p,
                                    sum, sumAbs);
    }
  return std::isfinite(lastLoss) ? 0 : 1;
}
