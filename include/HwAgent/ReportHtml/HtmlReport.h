//===- HtmlReport.h - one self-contained HTML page of a partition -*- C++ -*-//
//
// The page people look at (docs/report.md), written from the partition
// report model (HwAgent/Report/PartitionReport.h): the step's programs
// grouped by phase and searchable, a timeline of one step per backend with
// the boundaries drawn (both laid out here, no layout program), per-program
// tables,
// the totals against the lower bound and the other strategies and, after a
// run, predicted against measured per program, the step-time curve with
// events and re-partitions, and the loss. Everything is inlined (no
// network, no CDN; the style and script are real files embedded at build
// time); every text that comes from the input is escaped, and the data the
// page's script reads is embedded as JSON it parses (never markup).
//
// Split by job: Page.cpp (the page and its tables), Charts.cpp (SVG line
// charts), Graph.cpp (the program cards and the timeline), Names.cpp
// (layers, sources and op kinds a person reads), Assets.cpp (style and
// script), Run.cpp (the run's section and pages of saved files).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_REPORTHTML_HTMLREPORT_H
#define HWAGENT_REPORTHTML_HTMLREPORT_H

#include "HwAgent/Report/PartitionReport.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hwreport {

/// The most programs the page draws (cards and timeline) by default; above
/// it the page says so and keeps the tables.
constexpr size_t kMaxGraphPrograms = 2000;
/// The most regions whose details the page embeds per function (the JSON
/// report has all of them).
constexpr size_t kMaxDetailedRegions = 5000;

/// The other side of a comparison (hwagent-report --compare): another
/// placement of the step and, optionally, its run.
struct ComparedReport {
  /// What the page calls each side (the reports' files).
  std::string label;
  PartitionReport partition;
  std::vector<llvm::json::Value> run;
  std::string runSource;
};

struct HtmlReportInput {
  PartitionReport partition;
  /// What the page calls this side when it compares (its report's file).
  std::string label;
  /// Another placement or run shown beside this one: both sides' step
  /// time and energy, predicted and measured, and per program predicted
  /// against measured.
  std::optional<ComparedReport> compared;
  /// A run: the session log's records (JSON Lines, docs/runtime.md) and the
  /// file they came from; empty without a run.
  std::vector<llvm::json::Value> run;
  std::string runSource;
  /// Figures of the run the log does not hold (regret, ...), shown as
  /// given: name -> text.
  std::vector<std::pair<std::string, std::string>> runSummary;
  /// The most programs drawn as cards and on the timeline.
  size_t maxGraphPrograms = kMaxGraphPrograms;
};

/// Writes the page. A step with more than maxGraphPrograms programs is
/// said on the page instead of drawn.
void writeHtmlReport(const HtmlReportInput &input, llvm::raw_ostream &os);

/// `text` with &, <, >, " and ' replaced by entities.
std::string escapeHtml(llvm::StringRef text);

/// Reads the partition report at `reportPath` and the session log at
/// `logPath` (empty: no run) into `input` (its summary rows, the name it
/// shows the log by, default its path, and the graph options as given) and
/// writes the page to `htmlPath`. Errors name the file and what is wrong;
/// false then.
bool writeRunReport(const std::string &htmlPath, const std::string &reportPath,
                    const std::string &logPath, HtmlReportInput input,
                    llvm::raw_ostream &errs);

/// Reads a partition report and, when `logPath` is not empty, the session
/// log of its run, refusing a log of another model or placement. Errors
/// name the file and what is wrong; false then.
bool readReportAndLog(const std::string &reportPath, const std::string &logPath,
                      PartitionReport &report,
                      std::vector<llvm::json::Value> &run,
                      llvm::raw_ostream &errs);

} // namespace hwreport

#endif // HWAGENT_REPORTHTML_HTMLREPORT_H
