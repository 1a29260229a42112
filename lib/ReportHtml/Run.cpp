//===- Run.cpp - a run on the page, and pages of saved files -------------===//
//
// After a run, the page shows it: the step-time curve with re-partitions,
// objective and telemetry events marked, the loss and validation accuracy,
// and predicted against measured per program (from the session log, JSON
// Lines: docs/runtime.md). hwagent-report and hwagent-run --html build the
// page from a saved partition report and log.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "HwAgent/Config/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace hwreport;
using namespace hwreport::html;
namespace json = llvm::json;

namespace {
double number(const json::Object &o, llvm::StringRef key, double fallback = 0) {
  if (std::optional<double> v = o.getNumber(key))
    return *v;
  return fallback;
}

std::string text(const json::Object &o, llvm::StringRef key) {
  if (std::optional<llvm::StringRef> v = o.getString(key))
    return v->str();
  return "";
}
} // namespace

RunData hwreport::html::collectRun(const std::vector<json::Value> &records) {
  RunData out;
  // The chip's clock under a power cap (the step records' `clock`): marked
  // where it changes.
  double clock = 1;
  for (const json::Value &v : records) {
    const json::Object *r = v.getAsObject();
    if (!r)
      continue;
    std::string type = text(*r, "type");
    double step = number(*r, "step");
    if (type == "program") {
      ProgramRunStats &s =
          out.programs[{int64_t(number(*r, "program")), text(*r, "backend")}];
      ++s.n;
      s.seconds += number(*r, "seconds");
      s.predicted += number(*r, "predicted_seconds", NAN);
      s.joules += number(*r, "joules");
      s.simulated = r->getBoolean("simulated").value_or(true);
    } else if (type == "step") {
      out.stepTimes.push_back({step, number(*r, "step_seconds") * 1e3});
      out.losses.push_back({step, number(*r, "loss", NAN)});
      out.stepJoules.push_back(number(*r, "modelled_joules", NAN));
      double stepClock = number(*r, "clock", 1);
      if (std::abs(stepClock - clock) > 5e-3) {
        out.marks.push_back(
            {step, llvm::formatv("clock {0:f2} of the peak", stepClock)});
        clock = stepClock;
      }
    } else if (type == "eval" || type == "epoch") {
      // The trainer logs an `epoch` record at the end of every epoch and an
      // `eval` record when it evaluated (docs/training.md).
      if (type == "eval")
        out.accuracy.push_back({step, 100 * number(*r, "val_accuracy", NAN)});
      if (std::optional<double> epoch = r->getNumber("epoch"))
        if (out.epochs.empty() || out.epochs.back().first != step)
          out.epochs.push_back(
              {step, "end of epoch " + std::to_string(int64_t(*epoch))});
    } else if (type == "repartition" &&
               r->getBoolean("applied").value_or(false)) {
      out.marks.push_back({step, "re-partition"});
    } else if (type == "objective") {
      std::string label = "objective " + text(*r, "objective");
      if (number(*r, "power_cap") > 0)
        label += llvm::formatv(", cap {0:f1} W", number(*r, "power_cap"));
      out.marks.push_back({step, label});
    } else if (type == "telemetry") {
      out.marks.push_back(
          {step,
           llvm::formatv("{0} x{1:f2}", text(*r, "backend"),
                         1.0 / std::max(number(*r, "speed_factor", 1), 1e-9))});
    }
  }
  return out;
}

double RunData::medianStepSeconds() const {
  std::vector<double> ms;
  for (auto [step, t] : stepTimes)
    if (std::isfinite(t))
      ms.push_back(t);
  if (ms.empty())
    return NAN;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2] / 1e3;
}

void hwreport::html::writeRun(const HtmlReportInput &input,
                              llvm::raw_ostream &os) {
  os << "<h2 id=\"run\">The run</h2>\n<p class=\"note\">From "
     << escapeHtml(input.runSource)
     << ". CPU times are measured on the machine that ran the step unless "
        "the run simulated them; ANE and GPU times are simulated by the "
        "target's device model; joules are modelled.</p>\n";
  if (!input.runSummary.empty()) {
    os << "<table id=\"run-summary\">";
    for (const auto &[name, value] : input.runSummary)
      os << "<tr><th class=\"l\">" << escapeHtml(name)
         << "</th><td class=\"l\">" << escapeHtml(value) << "</td></tr>";
    os << "</table>\n";
  }
  RunData run = collectRun(input.run);
  os << "<p class=\"toolbar\"><label>Smoothing (exponential moving "
        "average, as TensorBoard's) <input type=\"range\" id=\"smoothing\" "
        "min=\"0\" max=\"0.99\" step=\"0.01\" value=\"0\"> <span "
        "id=\"smoothing-value\">0.00</span></label> <span class=\"note\">"
        "Red: re-partitions and other events; dotted: epoch ends.</span></p>\n";
  os << lineChart("step-time-chart",
                  "Step time per step (as the target would run it)", "ms",
                  run.stepTimes, run.marks, run.epochs);
  os << "\n"
     << lineChart("loss-chart", "Training loss", "", run.losses, run.marks,
                  run.epochs);
  if (!run.accuracy.empty())
    os << "\n"
       << lineChart("accuracy-chart", "Validation accuracy", "%", run.accuracy,
                    run.marks, run.epochs);
  os << "\n<h3>Predicted against measured, per program</h3>\n"
        "<table id=\"run-programs\"><tr><th>program</th><th "
        "class=\"l\">backend</th><th>executions</th><th>mean time</th><th "
        "class=\"l\">how</th><th>predicted</th><th>measured / "
        "predicted</th><th>mean energy (modelled)</th></tr>\n";
  for (const auto &[key, s] : run.programs) {
    double mean = s.meanSeconds();
    double predicted = s.predicted / double(s.n);
    os << "<tr><td>" << key.first << "</td><td class=\"l\">"
       << escapeHtml(key.second) << "</td><td>" << s.n << "</td><td>"
       << secondsText(mean) << "</td><td class=\"l\">"
       << (s.simulated ? "simulated" : "measured") << "</td><td>"
       << secondsText(predicted) << "</td><td>"
       << (predicted > 0
               ? std::string(llvm::formatv("{0:f2}", mean / predicted))
               : std::string("-"))
       << "</td><td>" << joulesText(s.joules / double(s.n)) << "</td></tr>\n";
  }
  os << "</table>\n";
}

/// Whether the log ran the report's programs. The runtime numbers the
/// programs of every function of the module in turn (the report's order),
/// and a run executes every program of each function it calls; so the
/// programs a log names are whole functions' blocks of that numbering. A
/// log of another model or partition names programs past the end or part
/// of a function's block.
static bool logMatchesReport(const PartitionReport &report,
                             const std::vector<json::Value> &run,
                             std::string &why) {
  std::set<int64_t> ran;
  for (const json::Value &record : run)
    if (const json::Object *o = record.getAsObject())
      if (o->getString("type") == "program")
        if (std::optional<int64_t> id = o->getInteger("program"))
          ran.insert(*id);
  if (ran.empty())
    return true;
  int64_t first = 0;
  std::string blocks;
  bool whole = true;
  for (const FunctionReport &fn : report.functions) {
    int64_t n = fn.programs.size(), last = first + n;
    auto begin = ran.lower_bound(first), end = ran.lower_bound(last);
    int64_t count = std::distance(begin, end);
    whole &= count == 0 || count == n;
    blocks +=
        llvm::formatv("{0}@{1} programs {2}..{3}", blocks.empty() ? "" : ", ",
                      fn.name, first, last - 1)
            .str();
    first = last;
  }
  if (whole && *ran.rbegin() < first)
    return true;
  why = llvm::formatv("the log ran {0} ({1}..{2}), the report has "
                      "{3}; a log of another model or placement? (both must "
                      "come from the same step and partition options: "
                      "docs/report.md)",
                      hwreport::formatCount(ran.size(), "program"),
                      *ran.begin(), *ran.rbegin(), blocks)
            .str();
  return false;
}

bool hwreport::readReportAndLog(const std::string &reportPath,
                                const std::string &logPath,
                                PartitionReport &report,
                                std::vector<json::Value> &run,
                                llvm::raw_ostream &errs) {
  std::string error;
  std::optional<std::string> reportText =
      hwconfig::readTextFile(reportPath, error);
  if (!reportText) {
    errs << "hwagent: " << error << "\n";
    return false;
  }
  int64_t version = 0;
  std::optional<json::Value> partition = hwconfig::parseDocument(
      *reportText, "hwagent.partition", kPartitionSchemaVersion,
      kPartitionSchemaVersion, version, error);
  if (!partition) {
    errs << "hwagent: " << reportPath << ": " << error << "\n";
    return false;
  }
  llvm::Expected<PartitionReport> model = readJson(*partition);
  if (!model) {
    errs << "hwagent: " << reportPath << ": "
         << llvm::toString(model.takeError()) << "\n";
    return false;
  }
  report = std::move(*model);
  if (logPath.empty())
    return true;
  std::optional<std::string> log = hwconfig::readTextFile(logPath, error);
  if (!log) {
    errs << "hwagent: " << error << "\n";
    return false;
  }
  int64_t line = 0;
  for (llvm::StringRef text : llvm::split(*log, '\n')) {
    ++line;
    if (text.trim().empty())
      continue;
    llvm::Expected<json::Value> record = json::parse(text);
    if (!record) {
      errs << "hwagent: " << logPath << ":" << line << ": "
           << llvm::toString(record.takeError()) << "\n";
      return false;
    }
    run.push_back(std::move(*record));
  }
  std::string why;
  if (!logMatchesReport(report, run, why)) {
    errs << "hwagent: " << logPath << " does not belong to " << reportPath
         << ": " << why << "\n";
    return false;
  }
  return true;
}

bool hwreport::writeRunReport(const std::string &htmlPath,
                              const std::string &reportPath,
                              const std::string &logPath, HtmlReportInput input,
                              llvm::raw_ostream &errs) {
  if (!readReportAndLog(reportPath, logPath, input.partition, input.run, errs))
    return false;
  if (!logPath.empty() && input.runSource.empty())
    input.runSource = logPath;
  if (input.label.empty())
    input.label = reportPath;
  std::error_code ec;
  auto file = std::make_unique<llvm::ToolOutputFile>(htmlPath, ec,
                                                     llvm::sys::fs::OF_Text);
  if (ec) {
    errs << "hwagent: cannot write '" << htmlPath << "': " << ec.message()
         << "\n";
    return false;
  }
  writeHtmlReport(input, file->os());
  file->os().flush();
  if (file->os().has_error()) {
    errs << "hwagent: cannot write '" << htmlPath
         << "': " << file->os().error().message() << "\n";
    file->os().clear_error();
    return false;
  }
  file->keep();
  return true;
}
