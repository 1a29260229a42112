//===- hwagent-opt.cpp - hwagent optimizer driver -------------------------===//
//
// mlir-opt with the dialects real training graphs use, the hwagent dialect and
// every hwagent pass and pipeline. `--help` is short: hwagent's pipelines and
// passes with their options, and an example; `--help-list-all` is
// mlir-opt's whole list (LLVM's options too). `--version` names hwagent's
// version and commit. An error MLIR emits while a pass runs gets a note
// naming the pass, its step, the function and the input file, and how to
// see the pass's input (Driver/PassContext.h).
//
//===----------------------------------------------------------------------===//

#include "Driver/InitAll.h"
#include "Driver/PassContext.h"
#include "Driver/Version.h"
#include "PassArguments.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace mlir;

/// hwagent's pipelines and passes, with their options, from the pass
/// registry (the names the pass-pipeline parser registered as options).
static void printShortHelp(llvm::StringRef tool) {
  PassPipelineCLParser parser("", "Compiler passes to run");
  std::vector<const PassRegistryEntry *> pipelines, passes;
  for (const auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    // hwagent's: its passes are hwagent-*, its pipelines hwagent-* and
    // the partition pipeline (MLIR registers a few pipelines of its own).
    bool ours = name.starts_with("hwagent-") || name == "partition-backends";
    if (!ours)
      continue;
    if (const PassPipelineInfo *pipeline = PassPipelineInfo::lookup(name))
      pipelines.push_back(pipeline);
    else if (const PassInfo *pass = PassInfo::lookup(name))
      passes.push_back(pass);
  }
  size_t width = 0;
  for (const auto *list : {&pipelines, &passes})
    for (const PassRegistryEntry *entry : *list)
      width = std::max({width, entry->getPassArgument().size() + 6,
                        entry->getOptionWidth() + 6});
  auto byName = [](const PassRegistryEntry *a, const PassRegistryEntry *b) {
    return a->getPassArgument() < b->getPassArgument();
  };
  std::sort(pipelines.begin(), pipelines.end(), byName);
  std::sort(passes.begin(), passes.end(), byName);
  llvm::outs() << "OVERVIEW: hwagent optimizer driver (mlir-opt with hwagent's "
                  "dialect, passes and pipelines)\n\n"
               << "USAGE: " << tool
               << " [options] <input.mlir> [-o <output.mlir>]\n\n"
               << "EXAMPLE: partition a training step for the M4 and write its "
                  "report page:\n"
               << "  " << tool
               << " examples/cnn_train_step.mlir "
                  "--partition-backends=\"target=apple-m4 html=cnn.html\" -o "
                  "cnn.partitioned.mlir\n\n"
               << "PIPELINES (options as --name=\"key=value ...\"; "
                  "docs/partitioning.md):\n";
  for (const PassRegistryEntry *pipeline : pipelines)
    pipeline->printHelpStr(2, width);
  llvm::outs() << "\nPASSES:\n";
  for (const PassRegistryEntry *pass : passes)
    pass->printHelpStr(2, width);
  llvm::outs()
      << "\nGENERAL:\n"
         "  -o <file>                           Output file (default: "
         "stdout)\n"
         "  --allow-unregistered-dialect        Accept ops of unregistered "
         "dialects (ByteIR's byre calls)\n"
         "  --mlir-print-ir-after-all           Print the IR after each "
         "pass\n"
         "  --verify-diagnostics                Check expected-error "
         "annotations (tests)\n"
         "  --version                           hwagent's version and "
         "commit\n"
         "  --help-list-all                     Every option: mlir-opt's "
         "passes, LLVM's flags (about 600 lines)\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  hwagent::registerAllDialects(registry);
  hwagent::registerAllPasses();
  hwagent::setVersionPrinter("hwagent-opt");
  // --help is short; --help-list-all is LLVM's --help, every option.
  std::vector<char *> args(argv, argv + argc);
  static char fullHelp[] = "--help";
  for (char *&arg : args) {
    llvm::StringRef a(arg);
    if (a == "--help" || a == "-help" || a == "-h" || a == "--h") {
      printShortHelp("hwagent-opt");
      return 0;
    }
    if (a == "--help-list-all" || a == "-help-list-all")
      arg = fullHelp;
  }
  if (!hwagent::checkPassArguments(args, llvm::errs()))
    return 1;
  auto [inputFile, outputFile] = registerAndParseCLIOptions(
      int(args.size()), args.data(), "hwagent optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(MlirOptMain(int(args.size()), args.data(),
                                        inputFile, outputFile, registry));
  // Errors get hwagent's context, except where a test checks the
  // diagnostics themselves (--verify-diagnostics).
  if (!config.shouldVerifyDiagnostics()) {
    MlirOptMainConfig parsed = config;
    std::string input = inputFile;
    config.setPassPipelineSetupFn([parsed, input](PassManager &pm) {
      if (failed(parsed.setupPassPipeline(pm)))
        return failure();
      hwagent::attachPassContext(
          pm, "hwagent-opt", input,
          "--mlir-print-ir-before={0} shows the IR the pass was given");
      return success();
    });
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "hwagent-opt: " << error
                 << " (the input: an MLIR file, or - for stdin)\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "hwagent-opt: " << error << " (-o names the output)\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
