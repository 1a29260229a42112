//===- RunnerSteps.h - the runner's checks and buffers ----------*- C++ -*-===//
//
// Private to tools/Driver: what TrainingRunner::prepare checks before
// compiling (StepChecks.cpp: argument types, the peak of live tensors
// against the memory this process may use) and the buffers around the
// compiled step (StepBuffers.cpp: host buffers from the step's signature,
// seeded contents, binding by name).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_RUNNERSTEPS_H
#define HWAGENT_TOOLS_RUNNERSTEPS_H

#include "Driver/TrainingRunner.h"

#include "HwAgent/Analysis/StepSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <random>
#include <string>
#include <vector>

namespace mlir::hwagent::detail {

/// a * b, saturated at INT64_MAX.
int64_t saturatingMul(int64_t a, int64_t b);
/// Fails, naming the argument, when `fn` takes a type the runner cannot
/// bind.
LogicalResult checkArguments(func::FuncOp fn, llvm::raw_ostream &errs);
/// The largest sum of live tensor bytes at any point of `fn`.
int64_t estimatePeakBytes(func::FuncOp fn);
/// Fails (with both figures) when `peakBytes` cannot be allocated.
LogicalResult checkMemory(const std::string &entry, int64_t peakBytes,
                          llvm::raw_ostream &errs);

/// Host buffers (allocated, zeroed) for the arguments of `signature`, as
/// the compiled model info will describe them (the compiler writes it from
/// the same signature).
std::vector<ArgBuffer> makeBuffers(const StepSignature &signature);
/// Makes each argument of the evaluation function named like a parameter
/// of the step, of its dtype and shape, share the step's buffer.
void shareParameters(std::vector<ArgBuffer> &args,
                     const std::vector<unsigned> &params,
                     std::vector<ArgBuffer> &evalArgs);
/// Fills `b` from the seed (N(0, 1) data scaled by `inputScale`, one-hot
/// rows, labels in [0, classes), parameters N(0, 1/fan_in), biases 0).
/// `write` false: draws the same numbers from `rng` and leaves `b` as it is
/// (its contents are the caller's).
void synthesize(ArgBuffer &b, bool oneHot, int64_t classes, float inputScale,
                std::mt19937_64 &rng, bool write = true);
/// Binds every buffer to `step` by name; the error names the argument.
bool bindAll(hwagent_step_t *step, std::vector<ArgBuffer> &buffers,
             llvm::raw_ostream &errs);

} // namespace mlir::hwagent::detail

#endif // HWAGENT_TOOLS_RUNNERSTEPS_H
