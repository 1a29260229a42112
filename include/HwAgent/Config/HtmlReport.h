//===- HtmlReport.h - one self-contained HTML page of a partition -*- C++
//-*-===//
//
// The page people look at (docs/report.md): the step graph with programs
// coloured by backend and boundaries marked, drawn by Graphviz (`dot
// -Tsvg` at report time, inlined), per-program tables, the totals against
// the lower bound and the other strategies and, after a run, predicted
// against measured per program, the step-time curve with events and
// re-partitions, and the loss. Everything is inlined (no network, no CDN);
// every text that comes from the input is escaped, and the data the page's
// script reads is embedded as JSON it parses (never markup).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CONFIG_HTMLREPORT_H
#define HWAGENT_CONFIG_HTMLREPORT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace hwconfig {

struct HtmlReportInput {
  /// The partition report (schema hwagent.partition, version >= 4).
  llvm::json::Value partition = nullptr;
  /// A run: the session log's records (JSON Lines, docs/runtime.md) and the
  /// file they came from; empty without a run.
  std::vector<llvm::json::Value> run;
  std::string runSource;
  /// Figures of the run the log does not hold (regret, ...), shown as
  /// given: name -> text.
  std::vector<std::pair<std::string, std::string>> runSummary;
  /// Graphviz's `dot` (empty: looked up on PATH).
  std::string dotProgram;
  /// The most programs drawn as a graph (kMaxGraphPrograms by default).
  size_t maxGraphPrograms = 2000;
};

/// The most programs the page draws as a graph by default; above it the
/// page says so and keeps the tables.
constexpr size_t kMaxGraphPrograms = 2000;
/// The most regions whose details the page embeds per function (the JSON
/// report has all of them).
constexpr size_t kMaxDetailedRegions = 5000;

/// Writes the page. Fails only on a malformed partition report; a graph
/// Graphviz cannot draw (not installed, too large) is said on the page.
llvm::Error writeHtmlReport(const HtmlReportInput &input,
                            llvm::raw_ostream &os);

/// `text` with &, <, >, " and ' replaced by entities.
std::string escapeHtml(llvm::StringRef text);

/// The program-level graph of the report's functions in DOT: one node per
/// program (id "prog-<function>-<program>") and the host, one edge per
/// boundary; every label escaped.
std::string programGraphDot(const llvm::json::Object &partition);

/// SVG of `dot` drawn by Graphviz, or an error saying why not.
llvm::Expected<std::string> renderGraphviz(llvm::StringRef dot,
                                           llvm::StringRef dotProgram = "");

} // namespace hwconfig

#endif // HWAGENT_CONFIG_HTMLREPORT_H
