//===- StepSignature.h - names and roles of a step's values -----*- C++ -*-===//
//
// What a driver binds: every argument and result of a public function with a
// name, a role (input, label, parameter, loss, output) and, for a result that
// is the new value of a parameter, the argument it updates. The compiler
// writes it into the model info (hwagent_function_info_t), so that trainers
// bind buffers by name through the C API instead of writing memref
// descriptors by hand; hwagent-run maps datasets and checkpoints with it.
//
// A training step is `(args...) -> (loss, params'...)`. Which argument each
// result after the loss updates, first rule that applies:
//  1. an explicit list (hwagent-run --params);
//  2. `hwagent.param` argument attributes: an integer names the result
//     (1-based), a unit attribute marks a parameter taken in order;
//  3. the unique contiguous run of arguments whose types are the updated
//     results' types in order (two runs: ambiguous, both named);
//  4. no run: the arguments of each result type, in order, when there are
//     exactly as many as results of that type.
// A function marked `hwagent.no_updates` (kNoUpdatesAttr) returns its loss
// and outputs and updates no argument (a step that returns gradients).
// Names: `{hwagent.name = "..."}` on an argument or result, else a
// parameter's result takes its argument's name, result 0 of a step is
// "loss", and the rest are "arg<i>" / "result<i>". docs/training.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_STEPSIGNATURE_H
#define HWAGENT_ANALYSIS_STEPSIGNATURE_H

#include "hwagent_rt/hwagent_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::hwagent {

struct ValueSignature {
  std::string name;
  hwagent_role_t role = HWAGENT_ROLE_INPUT;
  Type type;
  /// For a result: the argument it updates, -1 if none.
  int32_t updates = -1;
};

struct StepSignature {
  std::string function;
  std::vector<ValueSignature> args, results;
  /// Result 0 is a scalar f32 loss and every further result updates an
  /// argument.
  bool isTrainingStep = false;
};

/// A unit attribute on a function whose results after the loss are outputs
/// (gradients, metrics) that update no argument: hwagent-run --no-updates
/// sets it; result 0 is then the loss and no rule maps the rest.
inline constexpr llvm::StringLiteral kNoUpdatesAttr = "hwagent.no_updates";

/// Result 0 of a training step: f32, tensor<f32> or tensor<1xf32>.
bool isLossType(Type type);

/// The argument each result after the loss updates (rules 1-4 above); the
/// error, on `errs` prefixed with the function's name, says which rule
/// failed and why. `explicitArgs` empty: rules 2-4.
FailureOr<std::vector<unsigned>>
mapStepParameters(func::FuncOp fn, ArrayRef<int64_t> explicitArgs,
                  llvm::raw_ostream &errs);

/// The signature of `fn`. A function whose results fit a training step and
/// whose parameters map (rules 2-4) is one; otherwise every result is an
/// output.
StepSignature describeFunction(func::FuncOp fn);

/// hwagent_dtype_t of an element type, -1 for one the C API cannot bind.
int32_t dtypeOf(Type elementType);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_STEPSIGNATURE_H
