//===- PassContext.cpp - hwagent's context on MLIR's errors ---------------===//
//
// Which pass runs is tracked per thread by a pass instrumentation; the
// context's diagnostic handler reads it when an error is emitted. Errors of
// passes nested under a parallel adaptor are collected by MLIR and emitted
// again from the adaptor's thread once the workers are done: those get the
// pass that failed in a worker.
//
//===----------------------------------------------------------------------===//

#include "Driver/PassContext.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mlir;

namespace {

/// What the handler and the instrumentation share; kept alive by both.
struct State {
  std::string tool, input, hint;
  /// The top-level passes' arguments, in order: the pipeline's steps.
  std::vector<std::string> steps;
  std::mutex mutex;
  std::map<std::thread::id, std::vector<std::pair<Pass *, Operation *>>>
      running;
  /// The first pass that failed (nested passes fail on worker threads).
  std::string failed;

  /// "the pass 'x' (step 2 of 4: a, x, b, c) on 'func.func @f' of in.mlir;
  /// hint".
  std::string describe(Pass *pass, Operation *op) const {
    std::string out =
        llvm::formatv("while {0} ran the pass '{1}'", tool, pass->getArgument())
            .str();
    // A short pipeline is listed; a long one (the lowering's 28) counted.
    for (auto [i, step] : llvm::enumerate(steps))
      if (step == pass->getArgument()) {
        out += llvm::formatv(" (step {0} of {1}{2})", i + 1, steps.size(),
                             steps.size() <= 8 ? ": " + llvm::join(steps, ", ")
                                               : std::string());
        break;
      }
    out += " on '" + op->getName().getStringRef().str();
    if (auto name =
            op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      out += " @" + name.getValue().str();
    out += "' of " + input;
    if (!hint.empty())
      out += "; " + llvm::formatv(hint.c_str(), pass->getArgument()).str();
    return out;
  }

  /// The innermost named pass this thread runs; for an error re-emitted by
  /// a parallel adaptor, the pass that failed in a worker.
  std::string current() {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = running.find(std::this_thread::get_id());
    if (it == running.end() || it->second.empty())
      return failed;
    auto [pass, op] = it->second.back();
    if (pass->getArgument().empty())
      return failed;
    return describe(pass, op);
  }
};

class PassContextInstrumentation : public PassInstrumentation {
public:
  explicit PassContextInstrumentation(std::shared_ptr<State> state)
      : state(std::move(state)) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->running[std::this_thread::get_id()].push_back({pass, op});
  }
  void runAfterPass(Pass *pass, Operation *op) override { pop(); }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      if (state->failed.empty() && !pass->getArgument().empty())
        state->failed = state->describe(pass, op);
    }
    pop();
  }

private:
  void pop() {
    std::lock_guard<std::mutex> lock(state->mutex);
    auto &stack = state->running[std::this_thread::get_id()];
    if (!stack.empty())
      stack.pop_back();
  }
  std::shared_ptr<State> state;
};

} // namespace

void mlir::hwagent::attachPassContext(PassManager &pm, llvm::StringRef tool,
                                      llvm::StringRef inputFile,
                                      llvm::StringRef hint) {
  auto state = std::make_shared<State>();
  state->tool = tool.str();
  state->input = inputFile == "-" ? "<stdin>" : inputFile.str();
  state->hint = hint.str();
  for (Pass &pass : pm.getPasses())
    if (!pass.getArgument().empty())
      state->steps.push_back(pass.getArgument().str());
  pm.addInstrumentation(std::make_unique<PassContextInstrumentation>(state));
  pm.getContext()->getDiagEngine().registerHandler(
      [state](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() == DiagnosticSeverity::Error) {
          std::string where = state->current();
          if (!where.empty())
            diag.attachNote() << where;
        }
        return failure(); // the tool's handler prints it
      });
}

mlir::hwagent::ErrorsOnlyDiagnostics::ErrorsOnlyDiagnostics(
    llvm::SourceMgr &sourceMgr, MLIRContext *context)
    : printer(sourceMgr, context), errorsOnly(context, [](Diagnostic &diag) {
        return success(diag.getSeverity() != DiagnosticSeverity::Error);
      }) {
  context->printOpOnDiagnostic(false);
}
