//===- hwagent-calibrate.cpp - measure the host CPU, write a target -------===//
//
// Measures what the CPU backend will run: linalg kernels lowered with the
// same pipeline (hwagent::getBufferLoweringPipeline) and JIT-compiled by the
// host JIT training runs with (Driver/Jit.h). Reports matmul and convolution
// throughput at several sizes, memory bandwidth and per-call overhead, fits the
// cost model's utilization ramp, and writes a target file (docs/targets.md).
//
//   hwagent-calibrate [-o host.json] [--name host] [--quick]
//
//===----------------------------------------------------------------------===//

#include "Driver/Jit.h"
#include "Driver/Version.h"
#include "HwAgent/Config/TargetFile.h"
#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <vector>

using namespace mlir;

static llvm::cl::OptionCategory calibrateCategory("hwagent-calibrate options");

static llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Write the target JSON here ('-' = stdout)"),
               llvm::cl::init(""), llvm::cl::cat(calibrateCategory));
static llvm::cl::opt<std::string>
    targetName("name", llvm::cl::desc("Name of the written target"),
               llvm::cl::init("host"), llvm::cl::cat(calibrateCategory));
static llvm::cl::opt<std::string> printTarget(
    "print-target",
    llvm::cl::desc("Print a built-in target (or a target file, resolved) as "
                   "JSON and exit: a starting point for a custom target"),
    llvm::cl::value_desc("name-or-path"), llvm::cl::init(""),
    llvm::cl::cat(calibrateCategory));
static llvm::cl::opt<int> cpuThreads(
    "cpu-threads",
    llvm::cl::desc("Threads the contraction kernels may use (the target "
                   "describes that many cores' worth of throughput)"),
    llvm::cl::init(1), llvm::cl::cat(calibrateCategory));
static llvm::cl::opt<bool>
    quick("quick", llvm::cl::desc("Fewer sizes and repetitions (for tests)"),
          llvm::cl::init(false), llvm::cl::cat(calibrateCategory));

namespace {

using Clock = std::chrono::steady_clock;

/// One JIT-compiled kernel taking three rank-N f32 memrefs.
class Kernel {
public:
  static std::unique_ptr<Kernel> compile(MLIRContext &context,
                                         const std::string &source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    if (failed(parsePassPipeline(mlir::hwagent::getBufferLoweringPipeline(), pm,
                                 llvm::errs())) ||
        failed(pm.run(*module)))
      return nullptr;
    if (getenv("HWAGENT_CALIBRATE_DEBUG"))
      module->dump();
    std::string error;
    auto kernel = std::make_unique<Kernel>();
    kernel->engine = mlir::hwagent::createHostJit(*module, error);
    if (!kernel->engine) {
      llvm::errs() << "hwagent-calibrate: " << error << "\n";
      return nullptr;
    }
    auto entry = kernel->engine->lookup("_mlir_ciface_kernel");
    if (!entry) {
      llvm::errs() << "hwagent-calibrate: " << llvm::toString(entry.takeError())
                   << "\n";
      return nullptr;
    }
    kernel->entry = *entry;
    return kernel;
  }

  /// Calls the kernel through its C interface, looked up once (as compiled
  /// trainers call regions); `args` point to the memref descriptors.
  template <typename... Args> void call(Args... args) {
    reinterpret_cast<void (*)(Args...)>(entry)(args...);
  }

  /// Seconds per call: the median of repetitions, calling at least `minTime`
  /// seconds in all.
  template <typename... Args> double time(double minTime, Args... args) {
    std::vector<double> samples;
    auto start = Clock::now();
    do {
      auto t0 = Clock::now();
      call(args...);
      samples.push_back(
          std::chrono::duration<double>(Clock::now() - t0).count());
    } while (samples.size() < 3 ||
             std::chrono::duration<double>(Clock::now() - start).count() <
                 minTime);
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                     samples.end());
    return samples[samples.size() / 2];
  }

  std::unique_ptr<mlir::hwagent::HostJit> engine;
  void *entry = nullptr;
};

template <int N>
StridedMemRefType<float, N> view(std::vector<float> &data,
                                 std::array<int64_t, N> sizes) {
  StridedMemRefType<float, N> ref;
  ref.basePtr = ref.data = data.data();
  ref.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    ref.sizes[i] = sizes[i];
    ref.strides[i] = stride;
    stride *= sizes[i];
  }
  return ref;
}

struct Point {
  std::string what;
  double flops;
  double seconds;
};

} // namespace

/// Writes `target` as JSON to `path` ('-': stdout); false (with the reason
/// on stderr) when it cannot be written.
static bool writeTarget(const ::hwcore::TargetDescription &target,
                        const std::string &path) {
  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "hwagent-calibrate: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return false;
  }
  file.os() << ::hwconfig::printTarget(target) << "\n";
  file.os().flush();
  if (file.os().has_error()) {
    llvm::errs() << "hwagent-calibrate: cannot write '" << path
                 << "': " << file.os().error().message() << "\n";
    file.os().clear_error();
    return false;
  }
  file.keep();
  return true;
}

/// --print-target: a built-in target (or a file, resolved) as JSON.
static int printResolvedTarget() {
  std::string error;
  std::optional<::hwcore::TargetDescription> target =
      ::hwconfig::resolveTarget(printTarget, error);
  if (!target) {
    llvm::errs() << "hwagent-calibrate: " << error << "\n";
    return 1;
  }
  return writeTarget(*target, outputPath.empty() ? std::string("-")
                                                 : outputPath.getValue())
             ? 0
             : 1;
}

namespace {
/// What the measurements give.
struct Measured {
  double fmaPeak = 0;
  std::vector<Point> matmuls, convs;
  double bandwidth = 0;
  double overhead = 0;
};

/// The CPU's throughput curve fitted on the matmuls.
struct Fit {
  double peak = 0, rampFlops = 1, exponent = 1;
};
} // namespace

/// A function `@kernel(params)` with `body` (MLIR lines) and the C
/// interface the timing harness calls.
static std::string kernelSource(llvm::StringRef params, llvm::StringRef body) {
  return ("func.func @kernel(" + params +
          ") attributes {llvm.emit_c_interface} {\n" + body + "  return\n}\n")
      .str();
}

/// The FMA peak of one core as the JIT targets it: 12 independent chains of
/// 16-lane fused multiply-adds (enough in flight for two FMA pipes of
/// latency 4 at any vector width up to 512 bits). 0 when it fails.
static double measureFmaPeak(MLIRContext &context, double minTime) {
  const int64_t iterations = quick ? 200000 : 2000000;
  std::string chains, yields, types, inits, sums;
  for (int i = 0; i < 12; ++i) {
    chains += llvm::formatv("    %b{0} = vector.fma %a{0}, %x, %y : "
                            "vector<16xf32>\n",
                            i)
                  .str();
    yields += llvm::formatv("{0}%b{1}", i ? ", " : "", i).str();
    types += llvm::formatv("{0}vector<16xf32>", i ? ", " : "").str();
    inits += llvm::formatv("{0}%a{1} = %z", i ? ", " : "", i).str();
    sums += llvm::formatv("  %s{0} = arith.addf %s{1}, %r#{1} : "
                          "vector<16xf32>\n",
                          i + 1, i)
                .str();
  }
  std::string source = kernelSource(
      "%out: memref<16xf32>",
      llvm::formatv(
          "  %c0 = arith.constant 0 : index\n"
          "  %c1 = arith.constant 1 : index\n"
          "  %n = arith.constant {0} : index\n"
          "  %x = arith.constant dense<1.0000001> : vector<16xf32>\n"
          "  %y = arith.constant dense<0.5> : vector<16xf32>\n"
          "  %z = arith.constant dense<0.0> : vector<16xf32>\n"
          "  %r:12 = scf.for %i = %c0 to %n step %c1 iter_args({1}) -> ({2}) "
          "{{\n"
          "{3}    scf.yield {4} : {2}\n"
          "  }\n"
          "  %s0 = arith.constant dense<0.0> : vector<16xf32>\n"
          "{5}"
          "  vector.store %s12, %out[%c0] : memref<16xf32>, vector<16xf32>\n",
          iterations, inits, types, chains, yields, sums)
          .str());
  std::unique_ptr<Kernel> kernel = Kernel::compile(context, source);
  if (!kernel)
    return 0;
  std::vector<float> out(16, 0.0f);
  auto vout = view<1>(out, {16});
  double seconds = kernel->time(minTime, &vout);
  return static_cast<double>(iterations) * 12 * 16 * 2 / seconds;
}

/// Square matmuls: 2 N^3 FLOPs each.
static bool measureMatmuls(MLIRContext &context, double minTime,
                           std::vector<Point> &matmuls) {
  std::vector<int64_t> sizes =
      quick ? std::vector<int64_t>{16, 64}
            : std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024};
  for (int64_t n : sizes) {
    std::string t = llvm::formatv("memref<{0}x{0}xf32>", n).str();
    std::string source = kernelSource(
        llvm::formatv("%a: {0}, %b: {0}, %c: {0}", t).str(),
        llvm::formatv("  linalg.matmul ins(%a, %b : {0}, {0}) outs(%c : {0})\n",
                      t)
            .str());
    std::unique_ptr<Kernel> kernel = Kernel::compile(context, source);
    if (!kernel)
      return false;
    std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, 0.0f);
    auto va = view<2>(a, {n, n}), vb = view<2>(b, {n, n}),
         vc = view<2>(c, {n, n});
    double seconds = kernel->time(minTime, &va, &vb, &vc);
    matmuls.push_back({llvm::formatv("matmul {0}x{0}x{0}", n).str(),
                       2.0 * n * n * n, seconds});
  }
  return true;
}

/// Convolutions (NCHW, 3x3): 2 * outputs * C * 9 FLOPs.
static bool measureConvs(MLIRContext &context, double minTime,
                         std::vector<Point> &convs) {
  struct ConvShape {
    int64_t c, h, f;
  };
  std::vector<ConvShape> convShapes =
      quick ? std::vector<ConvShape>{{8, 16, 8}}
            : std::vector<ConvShape>{
                  {8, 16, 8}, {16, 32, 32}, {32, 32, 64}, {128, 34, 128}};
  for (ConvShape s : convShapes) {
    int64_t oh = s.h - 2;
    std::string in = llvm::formatv("memref<1x{0}x{1}x{1}xf32>", s.c, s.h).str();
    std::string w = llvm::formatv("memref<{0}x{1}x3x3xf32>", s.f, s.c).str();
    std::string out = llvm::formatv("memref<1x{0}x{1}x{1}xf32>", s.f, oh).str();
    std::string source = kernelSource(
        llvm::formatv("%x: {0}, %w: {1}, %y: {2}", in, w, out).str(),
        llvm::formatv("  linalg.conv_2d_nchw_fchw ins(%x, %w : {0}, {1}) "
                      "outs(%y : {2})\n",
                      in, w, out)
            .str());
    std::unique_ptr<Kernel> kernel = Kernel::compile(context, source);
    if (!kernel)
      return false;
    std::vector<float> x(s.c * s.h * s.h, 1.0f), wt(s.f * s.c * 9, 0.5f),
        y(s.f * oh * oh, 0.0f);
    auto vx = view<4>(x, {1, s.c, s.h, s.h});
    auto vw = view<4>(wt, {s.f, s.c, 3, 3});
    auto vy = view<4>(y, {1, s.f, oh, oh});
    double seconds = kernel->time(minTime, &vx, &vw, &vy);
    convs.push_back(
        {llvm::formatv("conv 1x{0}x{1}x{1} * {2}x{0}x3x3", s.c, s.h, s.f).str(),
         2.0 * s.f * oh * oh * s.c * 9, seconds});
  }
  return true;
}

/// Bytes per second of an elementwise add over 3 x 32 MiB (read 2, write
/// 1); 0 when it fails.
static double measureBandwidth(MLIRContext &context, double minTime) {
  int64_t elements = quick ? (1 << 20) : (8 << 20);
  std::string t = llvm::formatv("memref<{0}xf32>", elements).str();
  std::string source = kernelSource(
      llvm::formatv("%a: {0}, %b: {0}, %c: {0}", t).str(),
      llvm::formatv("  linalg.add ins(%a, %b : {0}, {0}) outs(%c : {0})\n", t)
          .str());
  std::unique_ptr<Kernel> kernel = Kernel::compile(context, source);
  if (!kernel)
    return 0;
  std::vector<float> a(elements, 1.0f), b(elements, 2.0f), c(elements, 0.0f);
  auto va = view<1>(a, {elements}), vb = view<1>(b, {elements}),
       vc = view<1>(c, {elements});
  double seconds = kernel->time(minTime, &va, &vb, &vc);
  return 3.0 * 4.0 * static_cast<double>(elements) / seconds;
}

/// Seconds of an empty kernel through the same call path; negative when it
/// fails.
static double measureCallOverhead(MLIRContext &context) {
  std::unique_ptr<Kernel> kernel =
      Kernel::compile(context, kernelSource("", ""));
  if (!kernel)
    return -1;
  const int calls = 1000000;
  auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i)
    kernel->call();
  return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
}

/// The peak is the sustained throughput of the largest matmul (what big
/// regions see; small ones may run faster out of cache, which the model
/// does not credit). The ramp, log(util) = e * (log flops - log R), is
/// fitted on the smaller sizes that run slower than that.
static Fit fitRamp(const std::vector<Point> &matmuls) {
  Fit fit;
  fit.peak = matmuls.back().flops / matmuls.back().seconds;
  double peakAt = matmuls.back().flops;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int count = 0;
  for (const Point &p : matmuls) {
    double util = (p.flops / p.seconds) / fit.peak;
    if (p.flops >= peakAt || util >= 0.999)
      continue;
    double x = std::log(p.flops), y = std::log(util);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++count;
  }
  fit.rampFlops = matmuls.front().flops;
  if (count >= 2 && count * sxx - sx * sx > 0) {
    double slope = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    double intercept = (sy - slope * sx) / count;
    fit.exponent = std::clamp(slope, 0.05, 1.0);
    fit.rampFlops = std::exp(-intercept / fit.exponent);
  }
  if (count == 1)
    fit.rampFlops = peakAt; // one point below the peak: a linear ramp to it
  if (count == 0)
    fit.rampFlops = 1.0; // the smallest size already ran at peak
  fit.rampFlops = std::max(fit.rampFlops, 1.0);
  return fit;
}

static void printMeasured(const Measured &m, const Fit &fit, int threads) {
  llvm::outs() << llvm::formatv(
      "hwagent-calibrate: host CPU, measured (JIT-compiled linalg, the "
      "contraction kernels on {0} thread(s))\n",
      threads);
  llvm::outs() << llvm::formatv(
      "  {0,-34} {1,10:f2} GFLOP/s (one core; matmul peak is {2:f0}% of "
      "{3} x this)\n",
      "FMA peak (16-lane vector.fma)", m.fmaPeak / 1e9,
      100.0 * fit.peak / (m.fmaPeak * threads), threads);
  for (const std::vector<Point> *set : {&m.matmuls, &m.convs})
    for (const Point &p : *set)
      llvm::outs() << llvm::formatv(
          "  {0,-34} {1,10:f3} ms  {2,8:f2} GFLOP/s\n", p.what, p.seconds * 1e3,
          p.flops / p.seconds / 1e9);
  llvm::outs() << llvm::formatv("  {0,-34} {1,10:f2} GB/s\n",
                                "bandwidth (elementwise add)",
                                m.bandwidth / 1e9);
  llvm::outs() << llvm::formatv("  {0,-34} {1,10:f1} ns\n", "per-call overhead",
                                m.overhead * 1e9);
  llvm::outs() << llvm::formatv(
      "  fit: peak {0:e3} FLOP/s, util = min(1, (flops / {1:e3}) ^ {2:f3})\n",
      fit.peak, fit.rampFlops, fit.exponent);
}

/// The measured host as a one-backend target.
static ::hwcore::TargetDescription hostTarget(const Measured &m, const Fit &fit,
                                              int threads) {
  ::hwcore::TargetDescription target;
  target.name = targetName;
  target.description =
      llvm::formatv("host CPU measured by hwagent-calibrate (JIT-compiled "
                    "linalg, contractions through oneDNN on {0} thread(s))",
                    threads)
          .str();
  ::hwcore::BackendDescription cpu;
  cpu.kind = ::hwcore::BackendKind::cpu;
  cpu.peakFlops = {{"f32", fit.peak}, {"default", fit.peak}};
  cpu.rampFlops = fit.rampFlops;
  cpu.rampExponent = fit.exponent;
  cpu.bandwidth = m.bandwidth;
  cpu.launch = m.overhead;
  target.backends.push_back(cpu);
  target.defaultLink.bandwidth = m.bandwidth;
  target.defaultLink.convertBandwidth = m.bandwidth / 2;
  target.defaultLink.sync = 0;
  return target;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(calibrateCategory);
  mlir::hwagent::setVersionPrinter("hwagent-calibrate");
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "hwagent host CPU calibration\n");
  if (!printTarget.empty())
    return printResolvedTarget();
  // The output is checked before the measurements, not after them.
  if (!outputPath.empty() && outputPath != "-" &&
      hwagent_check_writable(outputPath.c_str()) != HWAGENT_OK) {
    llvm::errs() << "hwagent-calibrate: " << hwagent_error_message() << "\n";
    return 1;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::hwagent::registerLowerToLLVMPipeline();

  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  memref::MemRefDialect, scf::SCFDialect, vector::VectorDialect,
                  LLVM::LLVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  double minTime = quick ? 0.02 : 0.2;
  int threads = hwagent_kernels_set_threads(std::max(0, cpuThreads.getValue()));
  Measured m;
  m.fmaPeak = measureFmaPeak(context, minTime);
  if (m.fmaPeak <= 0 || !measureMatmuls(context, minTime, m.matmuls) ||
      !measureConvs(context, minTime, m.convs))
    return 1;
  m.bandwidth = measureBandwidth(context, minTime);
  m.overhead = measureCallOverhead(context);
  if (m.bandwidth <= 0 || m.overhead < 0)
    return 1;
  Fit fit = fitRamp(m.matmuls);
  printMeasured(m, fit, threads);
  if (outputPath.empty())
    return 0;
  return writeTarget(hostTarget(m, fit, threads), outputPath) ? 0 : 1;
}
