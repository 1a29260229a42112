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

/// A line chart as inline SVG: `points` (x, y), vertical markers (x,
/// label) and its title; every label escaped.
std::string lineChart(const std::string &id, const std::string &title,
                      const std::string &yUnit,
                      const std::vector<std::pair<double, double>> &points,
                      const std::vector<std::pair<double, std::string>> &marks);

/// The page's style sheet and script (assets/, embedded at build time).
const char *style();
const char *script();

/// The run's section: its summary, the step-time, loss and accuracy
/// charts, and predicted against measured per program.
void writeRun(const HtmlReportInput &input, llvm::raw_ostream &os);

} // namespace hwreport::html

#endif // HWAGENT_LIB_REPORTHTML_PAGE_H
