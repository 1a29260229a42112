//===- hwagent-learn.cpp - train the learned cost correction --------------===//
//
// Reads profile databases the runtime wrote (version 2: each entry with its
// analytic prediction and the region's learned-cost features), trains
// gradient-boosted trees per backend on log(measured/analytic), reports the
// leave-one-model-out error of the learned model against the analytic one
// (each database is one step, held out in turn), and writes the model file
// `--hwagent-estimate-costs=learned-model=` reads (docs/cost-model.md
// "Learned correction").
//
//   hwagent-learn [-o model.json] [--include-simulated] profile.json...
//
//===----------------------------------------------------------------------===//

#include "Driver/Version.h"
#include "HwAgent/Config/Json.h"
#include "HwAgent/Config/ProfileDB.h"
#include "HwAgent/Core/LearnedFeatures.h"
#include "HwAgent/Learn/CostLearner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

namespace cm = ::hwcore;

static llvm::cl::OptionCategory learnCategory("hwagent-learn options");

static llvm::cl::list<std::string>
    inputs(llvm::cl::Positional, llvm::cl::OneOrMore,
           llvm::cl::desc("<profile.json>... (one per step: a step is what "
                          "leave-one-model-out holds out)"),
           llvm::cl::cat(learnCategory));
static llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Write the model file here"),
               llvm::cl::init(""), llvm::cl::cat(learnCategory));
static llvm::cl::opt<bool> includeSimulated(
    "include-simulated",
    llvm::cl::desc("Also learn from simulated times (ANE/GPU on a machine "
                   "without them); off: only measured entries"),
    llvm::cl::init(false), llvm::cl::cat(learnCategory));

/// The input names every model reads: the features, then the analytic time.
static std::vector<std::string> inputNames() {
  std::vector<std::string> names(cm::learnedFeatureNames().begin(),
                                 cm::learnedFeatureNames().end());
  names.push_back(cm::kAnalyticFeatureName);
  return names;
}

/// Adds the usable entries of database `group` to `samples` (per backend);
/// false with a message naming the file and entry when one lacks a feature.
static bool
collect(const std::string &path, int group,
        const std::vector<std::string> &names,
        std::map<cm::BackendKind, std::vector<hwlearn::Sample>> &out,
        int64_t &skipped) {
  std::string error;
  std::optional<std::string> text = hwconfig::readTextFile(path, error);
  std::optional<hwconfig::ProfileDB> db;
  if (text)
    db = hwconfig::parseProfileDB(*text, error);
  if (!db) {
    llvm::errs() << "hwagent-learn: " << (text ? path + ": " : "") << error
                 << "\n";
    return false;
  }
  for (size_t i = 0; i < db->entries.size(); ++i) {
    const hwconfig::ProfileEntry &e = db->entries[i];
    if ((e.simulated && !includeSimulated) || e.predicted <= 0 ||
        e.seconds <= 0 || e.features.empty()) {
      ++skipped;
      continue;
    }
    hwlearn::Sample sample;
    for (size_t f = 0; f + 1 < names.size(); ++f) {
      auto it = e.features.find(names[f]);
      if (it == e.features.end()) {
        llvm::errs() << "hwagent-learn: " << path << ": entries[" << i
                     << "].features: no '" << names[f]
                     << "' (written by another hwagent version?)\n";
        return false;
      }
      sample.x.push_back(static_cast<float>(it->second));
    }
    sample.x.push_back(static_cast<float>(std::log10(e.predicted)));
    sample.y = std::log(e.seconds / e.predicted);
    sample.group = group;
    sample.key = e.key;
    out[e.backend].push_back(std::move(sample));
  }
  return true;
}

static void printRow(const char *backend, const hwlearn::BackendModel &m) {
  auto cell = [](const hwlearn::ErrorSummary &e) {
    return llvm::formatv("{0,6:f3} {1,6:f3} {2,5:f0}%", e.median, e.p90,
                         100 * e.withinBand)
        .str();
  };
  llvm::outs() << llvm::formatv(
      "{0,-8} {1,6} {2,7}  {3}  {4}  {5}  {6}\n", backend, m.heldOut.groups,
      m.trainingSize, cell(m.heldOut.learned), cell(m.heldOut.analytic),
      cell(m.heldOut.geometricMean),
      m.heldOut.learnedBetter() ? "learned" : "fallback");
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(learnCategory);
  mlir::hwagent::setVersionPrinter("hwagent-learn");
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "hwagent learned cost correction (XGBoost)\n");
  std::vector<std::string> names = inputNames();
  std::map<cm::BackendKind, std::vector<hwlearn::Sample>> samples;
  int64_t skipped = 0;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!collect(inputs[i], static_cast<int>(i), names, samples, skipped))
      return 1;

  hwlearn::LearnedCostModel model;
  model.featureNames = names;
  std::string error;
  for (auto &[backend, set] : samples) {
    if (set.size() < 2)
      continue;
    hwlearn::BackendModel out;
    out.backend = backend;
    out.trainingSize = set.size();
    std::optional<hwlearn::HeldOutError> heldOut =
        hwlearn::leaveOneModelOut(set, error);
    std::optional<hwlearn::Booster> booster;
    std::optional<std::string> text;
    if (!heldOut || !(booster = hwlearn::Booster::train(set, error)) ||
        !(text = booster->save(error))) {
      llvm::errs() << "hwagent-learn: " << error << "\n";
      return 1;
    }
    out.heldOut = *heldOut;
    out.booster = std::move(*text);
    model.backends.push_back(std::move(out));
  }
  if (model.backends.empty()) {
    llvm::errs() << "hwagent-learn: no backend has 2 usable entries in "
                 << inputs.size() << " file(s) (" << skipped
                 << " entries skipped: simulated, without features or "
                    "prediction)\n";
    return 1;
  }
  llvm::outs() << "leave-one-model-out |log(predicted/measured)|: median, "
                  "p90, share within 1.5x\n"
               << "backend  models regions  learned                 "
                  "analytic                geometric mean          used\n";
  for (const hwlearn::BackendModel &m : model.backends)
    printRow(cm::backendName(m.backend), m);
  llvm::outs() << skipped << " entries skipped (simulated, or version 1)\n";
  if (outputPath.empty())
    return 0;
  std::error_code ec;
  llvm::ToolOutputFile file(outputPath, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "hwagent-learn: " << outputPath << ": " << ec.message()
                 << "\n";
    return 1;
  }
  file.os() << hwlearn::writeModel(model);
  file.keep();
  return 0;
}
