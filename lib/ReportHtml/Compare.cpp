//===- Compare.cpp - two placements or two runs on one page ---------------===//
//
// hwagent-report A.json --compare B.json (each with its run's log, or not):
// the first screen says which side is faster and by how much, predicted
// and, with both runs, measured; then per function both sides' figures and
// their difference, per program predicted against measured on each side
// next to each other (a click shows the program's details, either side's),
// and both runs' step time and loss on one pair of axes. Every number is
// read from the two reports' models and the two logs (collectRun), never
// recomputed from text.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace hwreport;
using namespace hwreport::html;

namespace {

/// One side of the comparison, as the page shows it.
struct Side {
  const char *letter;
  const std::string &label;
  const PartitionReport &report;
  const std::string &runSource;
  RunData run;
  bool hasRun;
};

/// The first program id of function `index` in the runtime's numbering
/// (every function's programs in turn, the report's order).
int64_t firstProgram(const PartitionReport &report, size_t index) {
  int64_t first = 0;
  for (size_t i = 0; i < index; ++i)
    first += int64_t(report.functions[i].programs.size());
  return first;
}

const FunctionReport *findFunction(const PartitionReport &report,
                                   llvm::StringRef name, size_t &index) {
  for (auto [i, f] : llvm::enumerate(report.functions))
    if (f.name == name) {
      index = i;
      return &f;
    }
  return nullptr;
}

/// "optimal, 7 programs (1 ane, 4 cpu, 2 gpu)".
std::string planText(const FunctionReport &f) {
  return hwcore::strategyName(f.chosen) + std::string(", ") +
         hwreport::formatCount(f.programs.size(), "program") + " (" +
         programsByBackend(f) + ")";
}

/// "A is 1.07× faster and 11.7 mJ less than B" (joules NaN: time only).
std::string verdict(double aSeconds, double aJoules, double bSeconds,
                    double bJoules) {
  if (!(aSeconds > 0) || !(bSeconds > 0))
    return "no comparison (a side has no time)";
  bool aFaster = aSeconds <= bSeconds;
  double ratio = aFaster ? bSeconds / aSeconds : aSeconds / bSeconds;
  std::string out =
      std::fabs(ratio - 1) < 0.005
          ? "A and B take the same time"
          : llvm::formatv("<b>{0} is {1:f2}&times; faster</b> than {2}",
                          aFaster ? "A" : "B", ratio, aFaster ? "B" : "A")
                .str();
  if (!std::isfinite(aJoules) || !std::isfinite(bJoules))
    return out;
  double saved = bJoules - aJoules;
  if (std::fabs(saved) <= 1e-3 * std::max(std::fabs(aJoules), 1e-12))
    return out + ", the same energy";
  return out + llvm::formatv("; {0} uses <b>{1} less</b> energy",
                             saved > 0 ? "A" : "B",
                             joulesText(std::fabs(saved)))
                   .str();
}

double meanFinite(const std::vector<double> &values) {
  double sum = 0;
  int64_t n = 0;
  for (double v : values)
    if (std::isfinite(v)) {
      sum += v;
      ++n;
    }
  return n ? sum / double(n) : NAN;
}

/// A row of the figures table: both values, B − A and B / A.
void figureRow(llvm::raw_ostream &os, llvm::StringRef what, double a, double b,
               std::string (*unit)(double)) {
  std::string diff = "-", ratio = "-";
  if (std::isfinite(a) && std::isfinite(b)) {
    diff = (b >= a ? "+" : "&minus;") + unit(std::fabs(b - a));
    if (a != 0)
      ratio = llvm::formatv("{0:f3}", b / a).str();
  }
  os << "<tr><td class=\"l\">" << what << "</td><td>" << unit(a) << "</td><td>"
     << unit(b) << "</td><td>" << diff << "</td><td>" << ratio
     << "</td></tr>\n";
}

std::string plain(double v) {
  return std::isfinite(v) ? llvm::formatv("{0:e4}", v).str() : "-";
}

void writeFigures(size_t index, const FunctionReport &a,
                  const FunctionReport &b, const Side &sa, const Side &sb,
                  llvm::raw_ostream &os) {
  os << "<table id=\"compare-" << index << "\"><tr><th class=\"l\">@"
     << escapeHtml(a.name)
     << "</th><th class=\"l side-a\">A</th><th class=\"l side-b\">B</th><th>B "
        "&minus; A</th><th>B / A</th></tr>\n<tr><td class=\"l\">plan</td><td "
        "class=\"l\">"
     << escapeHtml(planText(a)) << "</td><td class=\"l\">"
     << escapeHtml(planText(b)) << "</td><td></td><td></td></tr>\n";
  figureRow(os, "step time (predicted)", a.seconds, b.seconds, secondsText);
  figureRow(os, "step energy (modelled)", a.joules, b.joules, joulesText);
  figureRow(os, "programs", a.programSeconds, b.programSeconds, secondsText);
  figureRow(os, "boundaries", a.boundarySeconds, b.boundarySeconds,
            secondsText);
  figureRow(os,
            std::string("lower bound (") + hwcore::objectiveName(a.objective) +
                ")",
            a.lowerBound, b.lowerBound,
            a.objective == hwcore::Objective::time     ? secondsText
            : a.objective == hwcore::Objective::energy ? joulesText
                                                       : plain);
  if (sa.hasRun || sb.hasRun) {
    figureRow(os, "run: median step time", sa.run.medianStepSeconds(),
              sb.run.medianStepSeconds(), secondsText);
    figureRow(os, "run: mean step energy (modelled)",
              meanFinite(sa.run.stepJoules), meanFinite(sb.run.stepJoules),
              joulesText);
    double lossA = sa.run.losses.empty() ? NAN : sa.run.losses.back().second;
    double lossB = sb.run.losses.empty() ? NAN : sb.run.losses.back().second;
    figureRow(os, "run: last loss", lossA, lossB, plain);
  }
  os << "</table>\n";
}

/// One side's programs: predicted (the report) against its run, each row
/// opening the program's details.
void writeSidePrograms(const Side &side, size_t fnIndex,
                       const FunctionReport &f, llvm::raw_ostream &os) {
  int64_t first = firstProgram(side.report, fnIndex);
  os << "<div class=\"side-" << (side.letter[0] == 'A' ? "a" : "b") << "\"><h4>"
     << side.letter << ": " << escapeHtml(side.label)
     << (side.hasRun ? ", run " + escapeHtml(side.runSource) : "")
     << "</h4>\n<table id=\"compare-programs-"
     << (side.letter[0] == 'A' ? 'a' : 'b') << "-" << fnIndex
     << "\"><tr><th>program</th><th class=\"l\">backend</th><th>regions</th>"
        "<th>predicted</th><th>run: mean</th><th class=\"l\">how</th><th>run "
        "/ predicted</th></tr>\n";
  for (const ProgramReport &p : f.programs) {
    ProgramRunStats all;
    std::vector<std::string> ranOn;
    for (const auto &[key, s] : side.run.programs)
      if (key.first == first + p.id) {
        all.n += s.n;
        all.seconds += s.seconds;
        all.predicted += s.predicted;
        all.simulated = s.simulated;
        ranOn.push_back(key.second);
      }
    // Against what the runtime predicted for the backend it ran on (the
    // log's predicted_seconds), else the report's prediction.
    double predicted = all.n && std::isfinite(all.predicted)
                           ? all.predicted / double(all.n)
                           : p.seconds;
    std::string how = !all.n          ? "not run"
                      : all.simulated ? "simulated"
                                      : "measured";
    if (ranOn.size() > 1)
      how += " (on " + llvm::join(ranOn, ", ") + ")";
    os << "<tr data-function=\"" << fnIndex << "\" data-program=\"" << p.id
       << "\" data-compare=\"" << (side.letter[0] == 'A' ? "a" : "b")
       << "\"><td>" << p.id << "</td><td class=\"l\"><span style=\"background:"
       << hwcore::backendColor(p.backend) << ";padding:0 6px\">"
       << escapeHtml(hwcore::backendName(p.backend)) << "</span></td><td>"
       << p.regions.size() << "</td><td>" << secondsText(p.seconds)
       << "</td><td>" << (all.n ? secondsText(all.meanSeconds()) : "-")
       << "</td><td class=\"l\">" << escapeHtml(how) << "</td><td>"
       << (all.n && predicted > 0
               ? llvm::formatv("{0:f2}", all.meanSeconds() / predicted).str()
               : std::string("-"))
       << "</td></tr>\n";
  }
  os << "</table></div>\n";
}

Side makeSide(const char *letter, const std::string &label,
              const PartitionReport &report,
              const std::vector<llvm::json::Value> &run,
              const std::string &runSource) {
  return Side{letter, label, report, runSource, collectRun(run), !run.empty()};
}

/// The page's report and run (A) and the compared ones (B).
std::pair<Side, Side> makeSides(const HtmlReportInput &input) {
  const ComparedReport &other = *input.compared;
  return {
      makeSide("A", input.label, input.partition, input.run, input.runSource),
      makeSide("B", other.label, other.partition, other.run, other.runSource)};
}

/// Both runs' step time and loss on one pair of axes, each side's events
/// marked with its letter.
void writeRunCharts(const Side &a, const Side &b, llvm::raw_ostream &os) {
  std::vector<std::pair<double, std::string>> marks, epochs;
  for (const Side *side : {&a, &b})
    for (const auto &[step, label] : side->run.marks)
      marks.push_back({step, std::string(side->letter) + ": " + label});
  epochs = a.run.epochs.empty() ? b.run.epochs : a.run.epochs;
  std::sort(marks.begin(), marks.end());
  os << "<p class=\"toolbar\"><label>Smoothing (exponential moving "
        "average, as TensorBoard's) <input type=\"range\" id=\"smoothing\" "
        "min=\"0\" max=\"0.99\" step=\"0.01\" value=\"0\"> <span "
        "id=\"smoothing-value\">0.00</span></label></p>\n";
  os << lineChart("step-time-chart", "Step time per step", "ms",
                  {{"A", a.run.stepTimes}, {"B", b.run.stepTimes}}, marks,
                  epochs)
     << "\n"
     << lineChart("loss-chart", "Training loss", "",
                  {{"A", a.run.losses}, {"B", b.run.losses}}, marks, epochs)
     << "\n";
}

} // namespace

void hwreport::html::writeComparisonHeadline(const HtmlReportInput &input,
                                             llvm::raw_ostream &os) {
  auto [a, b] = makeSides(input);
  os << "<div class=\"headline\" id=\"compare-headline\"><p>Comparing <b "
        "class=\"side-a\">A</b> "
     << escapeHtml(a.label)
     << (a.hasRun ? " (run " + escapeHtml(a.runSource) + ")" : "")
     << " with <b class=\"side-b\">B</b> " << escapeHtml(b.label)
     << (b.hasRun ? " (run " + escapeHtml(b.runSource) + ")" : "")
     << ":</p>\n<ul>";
  for (const FunctionReport &fa : a.report.functions) {
    size_t index = 0;
    const FunctionReport *fb = findFunction(b.report, fa.name, index);
    os << "<li>@" << escapeHtml(fa.name) << ": ";
    if (!fb) {
      os << "B has no function of that name</li>";
      continue;
    }
    os << verdict(fa.seconds, fa.joules, fb->seconds, fb->joules)
       << " (predicted: " << secondsText(fa.seconds) << " vs "
       << secondsText(fb->seconds) << " per step)";
    if (a.hasRun && b.hasRun && a.report.functions.size() == 1)
      os << "; measured in the runs: "
         << verdict(a.run.medianStepSeconds(), meanFinite(a.run.stepJoules),
                    b.run.medianStepSeconds(), meanFinite(b.run.stepJoules))
         << " (median step " << secondsText(a.run.medianStepSeconds()) << " vs "
         << secondsText(b.run.medianStepSeconds()) << ")";
    os << "</li>";
  }
  os << "</ul></div>\n";
}

void hwreport::html::writeComparison(const HtmlReportInput &input,
                                     llvm::raw_ostream &os) {
  auto [a, b] = makeSides(input);
  os << "<h2 id=\"compare\">A against B</h2>\n<p class=\"note\">Predicted "
        "figures are each report's; run figures come from each side's log "
        "(CPU measured unless the run simulated it, ANE and GPU simulated, "
        "joules modelled). Click a program for its details.</p>\n";
  for (auto [index, fa] : llvm::enumerate(a.report.functions)) {
    size_t indexB = 0;
    const FunctionReport *fb = findFunction(b.report, fa.name, indexB);
    if (!fb) {
      os << "<p class=\"bad\">B has no @" << escapeHtml(fa.name) << ".</p>\n";
      continue;
    }
    writeFigures(index, fa, *fb, a, b, os);
    os << "<div class=\"compare\">\n";
    writeSidePrograms(a, index, fa, os);
    writeSidePrograms(b, indexB, *fb, os);
    os << "</div>\n";
  }
  if (a.hasRun || b.hasRun)
    writeRunCharts(a, b, os);
}
