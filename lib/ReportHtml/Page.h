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

/// The run's section: its summary, the step-time, loss and accuracy
/// charts, and predicted against measured per program.
void writeRun(const HtmlReportInput &input, llvm::raw_ostream &os);

} // namespace hwreport::html

#endif // HWAGENT_LIB_REPORTHTML_PAGE_H
