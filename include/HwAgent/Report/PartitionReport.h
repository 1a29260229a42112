//===- PartitionReport.h - one typed model of a partition -------*- C++ -*-===//
//
// What every report of a partition shows, collected once from the
// partitioned IR (dialects/HwAgent/Analysis/ReportModel.h) or read back
// from a saved JSON report, and written by one renderer per format: JSON
// (schema hwagent.partition v4), DOT, the text summary (this library) and
// the HTML page (HwAgent/ReportHtml). Renderers never recompute or re-parse
// each other's numbers: the summary and the page print the same numbers
// because they read this struct. MLIR-free (LLVM Support for JSON and
// streams). docs/partitioning.md, docs/report.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_REPORT_PARTITIONREPORT_H
#define HWAGENT_REPORT_PARTITIONREPORT_H

#include "HwAgent/Core/Vocabulary.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hwreport {

/// Version of the partition report schema (docs/partitioning.md).
constexpr int64_t kPartitionSchemaVersion = 4;

/// A program or a region on one backend.
struct BackendCost {
  hwcore::BackendKind backend = hwcore::BackendKind::cpu;
  bool legal = true;
  /// Predicted seconds (infinite when the step cannot run).
  double seconds = 0;
  /// Programs: joules of an execution (the backend's and the host's).
  double joules = 0;
  /// Programs: how the backend takes new weights.
  hwcore::WeightUpdate weightUpdate = hwcore::WeightUpdate::none;
  /// Illegal: why; a legal region's: the cost model's note.
  std::string text;
};

struct ProgramReport {
  int64_t id = 0;
  hwcore::BackendKind backend = hwcore::BackendKind::cpu;
  /// Its regions' ids, ascending.
  std::vector<int64_t> regions;
  /// Its regions' nodes (indices into FunctionReport::regions).
  std::vector<unsigned> nodes;
  double seconds = 0, launch = 0, compute = 0, memory = 0, weights = 0;
  double utilization = 1, joules = 0, hostJoules = 0;
  hwcore::WeightUpdate weightUpdate = hwcore::WeightUpdate::none;
  int64_t weightBytes = 0;
  /// "compute", "memory", "launch" or "weights".
  std::string binding;
  /// One sentence: backend, regions, launch, weights (the remark's text).
  std::string description;
  /// The same program on every backend of the target, in label order.
  std::vector<BackendCost> onBackends;
};

struct RegionFeatures {
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0, params = 0;
  int64_t paramBytes = 0, rows = 0, maxDim = 0, dynamicDims = 0;
  bool hasLoops = false;
};

struct RegionReport {
  int64_t id = 0;
  /// Structural key (the profile's).
  std::string key;
  hwcore::BackendKind backend = hwcore::BackendKind::cpu;
  int64_t program = 0;
  /// Its `#hwagent.costs` entries, in their order.
  std::vector<BackendCost> costs;
  /// Seconds as a program of its own on each label (infinite: illegal).
  std::vector<double> alone;
  std::string explanation;
  std::string location;
  std::optional<hwcore::Phase> phase;
  std::optional<RegionFeatures> features;
  /// Its ops by name, in order of first appearance, with their counts
  /// ("linalg.conv_2d_nchw_fchw", 1); a call names its callee
  /// ("func.call @Unknown3"). Constants, empty tensors and the terminator
  /// are left out: they say nothing about the work.
  std::vector<std::pair<std::string, int64_t>> ops;
};

/// Data between two programs (-1: the host), summed per ordered pair.
struct BoundaryReport {
  int64_t from = -1, to = -1;
  int64_t bytes = 0, convertedBytes = 0;
  double seconds = 0;
};

/// A value flowing between two regions (node `regions.size()` is the host)
/// and its price under the placement (0 on one backend).
struct FlowReport {
  unsigned from = 0, to = 0;
  int64_t bytes = 0;
  double seconds = 0;
};

struct StrategyTotals {
  hwcore::Strategy strategy = hwcore::Strategy::optimal;
  /// Infinite when the strategy found no placement the target can run.
  double seconds = 0;
  double joules = 0;
};

struct FunctionReport {
  std::string name;
  /// The strategy whose placement was applied.
  hwcore::Strategy chosen = hwcore::Strategy::optimal;
  /// The target's backends in label order, and which are simulated here.
  std::vector<hwcore::BackendKind> labels;
  std::vector<bool> simulated;
  /// Every strategy's step time and energy, in the vocabulary's order.
  std::vector<StrategyTotals> strategies;
  /// The chosen plan: seconds and joules by part (modelled).
  double seconds = 0, programSeconds = 0, boundarySeconds = 0;
  double programJoules = 0, boundaryJoules = 0, staticJoules = 0;
  double idleJoules = 0, joules = 0;
  hwcore::Objective objective = hwcore::Objective::time;
  double powerCap = 0;
  /// The clock of the backends that scale under the cap, a share of their
  /// peak (1: full; hwcore::StepPlan::clock).
  double clock = 1;
  /// No placement's objective is below it; how far above it the chosen
  /// plan's objective is, in percent (0 over a power cap: unknown).
  double lowerBound = 0, gapPercent = 0;
  unsigned evaluations = 0;
  std::vector<ProgramReport> programs;
  std::vector<RegionReport> regions;
  std::vector<BoundaryReport> boundaries;
  std::vector<FlowReport> flows;

  double averagePower() const { return seconds > 0 ? joules / seconds : 0; }
  /// The label of `backend` (labels.size() when the target lacks it).
  unsigned labelOf(hwcore::BackendKind backend) const;
  const StrategyTotals *totals(hwcore::Strategy strategy) const;
};

struct PartitionReport {
  std::string target;
  hwcore::Strategy strategy = hwcore::Strategy::optimal;
  /// Backends this machine simulates.
  std::vector<hwcore::BackendKind> simulated;
  std::vector<FunctionReport> functions;
};

/// Writes the report as JSON (schema hwagent.partition, version 4).
void writeJson(const PartitionReport &report, llvm::raw_ostream &os);
/// Reads a saved report (version 4); the error names what is malformed.
llvm::Expected<PartitionReport> readJson(const llvm::json::Value &value);

/// The region graph in DOT (`dot=`): one cluster per function and per
/// program, regions coloured by backend, boundaries in red.
void writeRegionGraph(const PartitionReport &report, llvm::raw_ostream &os);
/// The program-level graph in DOT: one node per program (id
/// "prog-<function>-<program>") and the host, one edge per boundary. (The
/// HTML page lays out its own view and no longer draws this.)
std::string programGraph(const PartitionReport &report);
/// The phases of a program's regions ("forward, backward").
std::string programPhases(const FunctionReport &f,
                          const ProgramReport &program);
/// A quoted DOT string's contents: backslashes, quotes and line breaks
/// escaped (a name from the input cannot end the string or add
/// attributes). The one escaper of every DOT hwagent writes.
std::string escapeDot(llvm::StringRef text);

/// The text summary (`summary=true`): per function the regions, programs,
/// every strategy's time and energy, the lower bound.
void writeSummary(const PartitionReport &report, llvm::raw_ostream &os);

} // namespace hwreport

#endif // HWAGENT_REPORT_PARTITIONREPORT_H
