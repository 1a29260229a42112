//===- Page.h - what the page's parts share ---------------------*- C++ -*-===//
//
// Private to lib/ReportHtml: the page's unit formatting (tables read
// "12.220 ms"), its charts, its assets and the run's section.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_LIB_REPORTHTML_PAGE_H
#define HWAGENT_LIB_REPORTHTML_PAGE_H

#include "HwAgent/Report/Format.h"
#include "HwAgent/ReportHtml/HtmlReport.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hwreport::html {

/// The page's units (HwAgent/Report/Format.h).
using hwreport::formatBytes;
inline std::string secondsText(double s) {
  return hwreport::formatScaled(s, "s", 2);
}
inline std::string joulesText(double j) {
  return hwreport::formatScaled(j, "J", 3);
}

/// How many of `f`'s programs each backend runs: "1 ane, 4 cpu, 2 gpu".
std::string programsByBackend(const FunctionReport &f);

/// One line of a chart: its points (step, y) and, when a chart has
/// several, the name its legend gives it.
struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;
};

/// A line chart as inline SVG: `points` (step, y), event markers and
/// epoch boundaries (step, label) and its title; every label escaped. The
/// y axis spans the data, not 0 (outliers such as a warm-up step drawn at
/// the edge and counted), the x axis whole steps; the raw series and a
/// copy the script smooths (polyline.raw, polyline.smooth).
std::string
lineChart(const std::string &id, const std::string &title,
          const std::string &yUnit,
          const std::vector<std::pair<double, double>> &points,
          const std::vector<std::pair<double, std::string>> &marks,
          const std::vector<std::pair<double, std::string>> &epochs = {});
/// The same with several series on one pair of axes (a comparison's two
/// runs), each coloured and named in the title line.
std::string
lineChart(const std::string &id, const std::string &title,
          const std::string &yUnit, const std::vector<Series> &series,
          const std::vector<std::pair<double, std::string>> &marks,
          const std::vector<std::pair<double, std::string>> &epochs = {});

/// What a person recognises a region by (Names.cpp): the layer names of its
/// `loc`, its source lines relative to the function's common folder, its
/// op kinds ("ConvOp, matmul x2").
struct RegionNames {
  std::vector<std::string> layerList;
  std::string layers, source, ops;
};
/// A program's layers (first ... last), its busiest op kinds, and the words
/// the page's search matches.
struct ProgramNames {
  std::string layers, ops, search;
};
/// "linalg.matmul" -> "matmul", "func.call @f" -> "@f".
std::string shortOpName(llvm::StringRef op);
/// One per region of `f`, in its order.
std::vector<RegionNames> regionNames(const FunctionReport &f);
ProgramNames programNames(const FunctionReport &f, const ProgramReport &program,
                          const std::vector<RegionNames> &names);

/// The step's programs as cards grouped by phase (collapsible, searchable)
/// and the timeline of one step per backend with the boundaries drawn
/// (Graph.cpp); laid out here, no external layout program.
void writeProgramView(const HtmlReportInput &input, llvm::raw_ostream &os);

/// The page's style sheet and script (assets/, embedded at build time).
const char *style();
const char *script();

/// One program's executions on one backend in a run.
struct ProgramRunStats {
  int64_t n = 0;
  double seconds = 0, predicted = 0, joules = 0;
  bool simulated = true;
  double meanSeconds() const { return n ? seconds / double(n) : NAN; }
};

/// What a session log says, collected once for the run's section and the
/// comparison: per (program, backend) its executions, the per-step series
/// (step time in ms, loss, validation accuracy in %), the events marked on
/// the charts and the epoch ends.
struct RunData {
  std::map<std::pair<int64_t, std::string>, ProgramRunStats> programs;
  std::vector<std::pair<double, double>> stepTimes, losses, accuracy;
  std::vector<std::pair<double, std::string>> marks, epochs;
  /// Modelled joules of every step (the log's `modelled_joules`).
  std::vector<double> stepJoules;
  /// The median step time in seconds (NaN without steps).
  double medianStepSeconds() const;
};
RunData collectRun(const std::vector<llvm::json::Value> &records);

/// The run's section: its summary, the step-time, loss and accuracy
/// charts, and predicted against measured per program.
void writeRun(const HtmlReportInput &input, llvm::raw_ostream &os);

/// The comparison (Compare.cpp), first on the page when there is one: per
/// function both sides' step time and energy, predicted and from their
/// runs, and the difference; per program predicted against measured on
/// both sides; both runs' step times on one chart.
void writeComparisonHeadline(const HtmlReportInput &input,
                             llvm::raw_ostream &os);
void writeComparison(const HtmlReportInput &input, llvm::raw_ostream &os);
/// The data the script reads for a report's programs and regions.
llvm::json::Value scriptData(const PartitionReport &report);

} // namespace hwreport::html

#endif // HWAGENT_LIB_REPORTHTML_PAGE_H
