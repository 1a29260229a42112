//===- hwagent-report.cpp - the HTML page of a partition and a run --------===//
//
//   hwagent-report report.json [--log run.jsonl] -o page.html
//   hwagent-report a.json [--log a.jsonl] --compare b.json
//       [--compare-log b.jsonl] -o page.html
//
// One self-contained page (docs/report.md) from a partition report
// (--partition-backends="report=...") and, optionally, the log of a run of
// the step (hwagent-run --log, or a trainer's hwagent_options_t.log_path).
// hwagent-run --html writes the same page in one command. With --compare,
// the page sets another placement (and its run) beside it.
//
//===----------------------------------------------------------------------===//

#include "Driver/Version.h"
#include "HwAgent/ReportHtml/HtmlReport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("hwagent-report options");
static cl::opt<std::string> reportPath(cl::Positional, cl::Required,
                                       cl::desc("<partition report JSON>"),
                                       cl::cat(category));
static cl::opt<std::string>
    logPath("log", cl::desc("A session log (JSON Lines) of a run of the step"),
            cl::init(""), cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("The page to write"),
                                   cl::Required, cl::cat(category));
static cl::opt<std::string> comparePath(
    "compare",
    cl::desc("Another partition report of the step (another placement or "
             "target), shown beside this one: step time, energy and per "
             "program predicted against measured on both sides"),
    cl::value_desc("report.json"), cl::init(""), cl::cat(category));
static cl::opt<std::string> compareLogPath(
    "compare-log", cl::desc("The session log of --compare's run"),
    cl::value_desc("run.jsonl"), cl::init(""), cl::cat(category));
static cl::opt<unsigned> maxGraphPrograms(
    "max-graph-programs",
    cl::desc("Draw the programs and the timeline only up to this "
             "many programs"),
    cl::init(hwreport::kMaxGraphPrograms), cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  mlir::hwagent::setVersionPrinter("hwagent-report");
  cl::ParseCommandLineOptions(argc, argv,
                              "hwagent-report: one self-contained HTML page of "
                              "a partition and a run\n");
  hwreport::HtmlReportInput page;
  page.maxGraphPrograms = maxGraphPrograms;
  if (!compareLogPath.empty() && comparePath.empty()) {
    errs() << "hwagent-report: --compare-log needs --compare (the report "
              "of the run it logs)\n";
    return 1;
  }
  if (!comparePath.empty()) {
    hwreport::ComparedReport &other = page.compared.emplace();
    other.label = comparePath;
    other.runSource = compareLogPath;
    if (!hwreport::readReportAndLog(comparePath, compareLogPath,
                                    other.partition, other.run, errs()))
      return 1;
  }
  if (!hwreport::writeRunReport(output, reportPath, logPath, std::move(page),
                                errs()))
    return 1;
  outs() << "hwagent-report: wrote " << output << "\n";
  return 0;
}
