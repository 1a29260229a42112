//===- StepChecks.cpp - what the runner checks before compiling -----------===//

#include "RunnerSteps.h"

#include "HwAgent/Analysis/StepSignature.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::hwagent;

int64_t mlir::hwagent::detail::saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return INT64_MAX;
  return product;
}

static bool isSupportedElement(Type type) {
  return type.isF32() || type.isInteger(32) || type.isInteger(64);
}

/// Checks that every argument of `fn` is a static tensor the runner can
/// hold.
LogicalResult mlir::hwagent::detail::checkArguments(func::FuncOp fn,
                                                    llvm::raw_ostream &errs) {
  for (auto [index, t] : llvm::enumerate(fn.getFunctionType().getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() ||
        !isSupportedElement(tensor.getElementType()) ||
        tensor.getRank() > HWAGENT_MAX_RANK) {
      errs << "hwagent-run: argument #" << index << " of @" << fn.getName()
           << " must be a static tensor of f32, i32 or i64 (rank <= "
           << HWAGENT_MAX_RANK << "), got " << t << "\n";
      return failure();
    }
  }
  return success();
}

/// Bytes of the largest set of tensors live at once in `fn`'s body (its
/// arguments included), a lower bound of what running it needs.
int64_t mlir::hwagent::detail::estimatePeakBytes(func::FuncOp fn) {
  auto bytesOf = [](Type type) -> int64_t {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        !shaped.getElementType().isIntOrFloat())
      return 0;
    int64_t n = (shaped.getElementTypeBitWidth() + 7) / 8;
    for (int64_t d : shaped.getShape())
      n = saturatingMul(n, d);
    return n;
  };
  auto add = [](int64_t a, int64_t b) {
    int64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
  };
  Block &body = fn.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;
  // The last top-level op using each value.
  auto lastUse = [&](Value value) {
    unsigned last = 0;
    for (Operation *user : value.getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      if (top)
        last = std::max(last, position[top]);
    }
    return last;
  };
  int64_t live = 0;
  for (BlockArgument arg : body.getArguments())
    live = add(live, bytesOf(arg.getType()));
  std::vector<std::vector<int64_t>> freed(index + 1);
  int64_t peak = live;
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      int64_t bytes = bytesOf(result.getType());
      live = add(live, bytes);
      freed[lastUse(result)].push_back(bytes);
    }
    peak = std::max(peak, live);
    for (int64_t bytes : freed[position[&op]])
      live -= std::min(live, bytes);
  }
  return peak;
}

/// Bytes this process may still allocate: the free memory, or less when a
/// limit on its address space (`ulimit -v`, as containers and CI set) leaves
/// less room above what it already maps. `limited` says which applies.
static int64_t availableMemory(bool &limited) {
  limited = false;
  int64_t available = INT64_MAX;
  hwagent_telemetry_t telemetry = {};
  if (hwagent_telemetry_read(&telemetry) == HWAGENT_OK &&
      telemetry.free_memory_bytes > 0)
    available = telemetry.free_memory_bytes;
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    long pages = 0;
    if (std::FILE *statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1)
        pages = 0;
      std::fclose(statm);
    }
    int64_t mapped = int64_t(pages) * sysconf(_SC_PAGESIZE);
    int64_t room = std::max<int64_t>(0, int64_t(limit.rlim_cur) - mapped);
    if (room < available) {
      available = room;
      limited = true;
    }
  }
  return available;
}

/// Fails (with both figures) when `peakBytes` cannot be allocated.
LogicalResult mlir::hwagent::detail::checkMemory(const std::string &entry,
                                                 int64_t peakBytes,
                                                 llvm::raw_ostream &errs) {
  bool limited;
  int64_t available = availableMemory(limited);
  if (peakBytes <= available)
    return success();
  errs << llvm::formatv(
      "hwagent-run: @{0} needs at least {1:f1} MiB of live tensors at its "
      "peak but only {2:f1} MiB {3}; run a smaller variant "
      "(scripts/gen_workloads.py --small)\n",
      entry, peakBytes / double(1 << 20), available / double(1 << 20),
      limited ? "fit under this process's memory limit (ulimit -v)"
              : "of memory are available");
  return failure();
}
