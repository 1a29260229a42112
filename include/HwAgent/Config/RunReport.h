//===- RunReport.h - the HTML page of a partition and a run -----*- C++ -*-===//
//
// What hwagent-run --html and hwagent-report write: the partition's JSON
// report and a session log (JSON Lines) turned into one self-contained
// page (hwconfig::writeHtmlReport, docs/report.md).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_RUNREPORT_H
#define HWAGENT_CONFIG_RUNREPORT_H

#include "HwAgent/Config/HtmlReport.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace hwconfig {

/// Reads the partition report at `reportPath` and the session log at
/// `logPath` (empty: no run) into `input` (its summary rows, the name it
/// shows the log by, default its path, and the graph options as given) and
/// writes the page to `htmlPath`. Errors name the file and what is wrong;
/// false then.
bool writeRunReport(const std::string &htmlPath, const std::string &reportPath,
                    const std::string &logPath, HtmlReportInput input,
                    llvm::raw_ostream &errs);

} // namespace hwconfig

#endif // HWAGENT_CONFIG_RUNREPORT_H
