//===- Page.cpp - the page and its tables ---------------------------------===//
//
// Server-side HTML (the headline, the legend, the programs and timeline,
// every function's totals and programs) so that the page reads without its
// script; the embedded script shows a program's regions next to what was
// clicked from the embedded JSON, using DOM text nodes only.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace hwreport;
using namespace hwreport::html;
namespace json = llvm::json;

std::string hwreport::escapeHtml(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

namespace {

/// "cpu 1.2 ms, 3.1 mJ; ane 0.4 ms, 0.9 mJ (reload); gpu illegal: ..."
std::string alternatives(const ProgramReport &program) {
  std::vector<std::string> parts;
  for (const BackendCost &cost : program.onBackends) {
    std::string backend = hwcore::backendName(cost.backend);
    if (!cost.legal) {
      parts.push_back(backend + " illegal: " + cost.text);
      continue;
    }
    parts.push_back(backend + " " + secondsText(cost.seconds) + ", " +
                    joulesText(cost.joules) +
                    (cost.weightUpdate == hwcore::WeightUpdate::none
                         ? ""
                         : std::string(" (") +
                               hwcore::weightUpdateName(cost.weightUpdate) +
                               ")"));
  }
  return llvm::join(parts, "; ");
}

/// A region as the script shows it: readable names, FLOPs and bytes in
/// units, its cost on every backend.
json::Value regionData(const RegionReport &region, const RegionNames &names) {
  json::Object costs;
  for (const BackendCost &cost : region.costs)
    costs[hwcore::backendName(cost.backend)] =
        json::Object{{"legal", cost.legal},
                     {"text", secondsText(cost.legal ? cost.seconds : NAN)},
                     {"reason", cost.legal ? std::string() : cost.text}};
  const std::optional<RegionFeatures> &fe = region.features;
  return json::Object{
      {"id", region.id},
      {"program", region.program},
      {"phase", region.phase ? hwcore::phaseName(*region.phase) : ""},
      {"layers", names.layers},
      {"source", names.source},
      {"ops", names.ops},
      {"flops", formatFlops(fe ? double(fe->flops) : 0)},
      {"bytes", formatBytes(fe ? double(fe->bytesRead + fe->bytesWritten) : 0)},
      {"costs", std::move(costs)},
      {"explanation", region.explanation}};
}

} // namespace

std::string hwreport::html::programsByBackend(const FunctionReport &f) {
  std::map<std::string, int> perBackend;
  for (const ProgramReport &p : f.programs)
    ++perBackend[hwcore::backendName(p.backend)];
  std::vector<std::string> split;
  for (const auto &[backend, n] : perBackend)
    split.push_back(std::to_string(n) + " " + backend);
  return llvm::join(split, ", ");
}

/// The data the script reads: per function its programs (with their
/// boundaries) and (up to kMaxDetailedRegions) regions.
json::Value hwreport::html::scriptData(const PartitionReport &report) {
  json::Array out;
  for (const FunctionReport &f : report.functions) {
    std::vector<RegionNames> names = regionNames(f);
    json::Array programs, regions;
    for (const ProgramReport &program : f.programs) {
      ProgramNames p = programNames(f, program, names);
      json::Array boundaries;
      for (const BoundaryReport &b : f.boundaries)
        if (b.from == program.id || b.to == program.id)
          boundaries.push_back(json::Object{
              {"from", b.from},
              {"to", b.to},
              {"bytes", formatBytes(double(b.bytes))},
              {"seconds", b.seconds > 0 ? secondsText(b.seconds) : ""}});
      programs.push_back(
          json::Object{{"backend", hwcore::backendName(program.backend)},
                       {"description", program.description},
                       {"time", secondsText(program.seconds)},
                       {"phase", programPhases(f, program)},
                       {"layers", p.layers},
                       {"ops", p.ops},
                       {"regions", int64_t(program.regions.size())},
                       {"boundaries", std::move(boundaries)}});
    }
    for (auto [region, name] : llvm::zip(f.regions, names)) {
      if (regions.size() >= kMaxDetailedRegions)
        break;
      regions.push_back(regionData(region, name));
    }
    out.push_back(json::Object{{"name", f.name},
                               {"programs", std::move(programs)},
                               {"regions", std::move(regions)}});
  }
  return out;
}

namespace {

/// JSON that is safe inside a <script> element: '<' only ever occurs in
/// strings, where \u003c means the same.
std::string scriptSafeJson(const json::Value &value) {
  std::string raw;
  llvm::raw_string_ostream os(raw);
  os << value;
  std::string out;
  for (char c : raw) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

/// The headline: what was partitioned for what, which times are
/// simulated, and the legend.
void writeHead(const PartitionReport &report, llvm::raw_ostream &os) {
  std::vector<std::string> names, simulated;
  for (const FunctionReport &f : report.functions)
    names.push_back("@" + f.name);
  for (hwcore::BackendKind b : report.simulated)
    simulated.push_back(hwcore::backendName(b));
  std::string title = "hwagent partition of " + llvm::join(names, ", ") +
                      " for " + report.target;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"generator\" content=\"hwagent\"><title>"
     << escapeHtml(title) << "</title><style>" << style()
     << "</style></head>\n<body>\n<h1>" << escapeHtml(title) << "</h1>\n";
  os << "<p class=\"note\">Strategy "
     << escapeHtml(hwcore::strategyName(report.strategy))
     << ". Every ANE and GPU time on this page is a prediction of the "
        "simulated device model";
  if (!simulated.empty())
    os << " (simulated here: " << escapeHtml(llvm::join(simulated, ", "))
       << ")";
  os << "; CPU times are predicted by the same model unless a run below "
        "measured them. Energy is modelled from the target's power "
        "values.</p>\n";
  os << "<div id=\"legend\">Backends:";
  for (hwcore::BackendKind backend : hwcore::kAllBackends)
    os << "<span class=\"swatch\" style=\"background:"
       << hwcore::backendColor(backend) << "\"></span>"
       << hwcore::backendName(backend);
  os << " &nbsp; <span style=\"color:#d62828\">&#8212;</span> a boundary "
        "between backends on the timeline (copy, conversion, sync)</div>\n";
}

/// The value a strategy is ranked by under the function's objective.
double objectiveValue(const FunctionReport &f, double seconds, double joules) {
  switch (f.objective) {
  case hwcore::Objective::energy:
    return joules;
  case hwcore::Objective::edp:
    return joules * seconds;
  default:
    return seconds;
  }
}

std::string objectiveText(const FunctionReport &f, double value) {
  if (f.objective == hwcore::Objective::energy)
    return joulesText(value);
  if (f.objective == hwcore::Objective::edp)
    return llvm::formatv("{0:e3} J s", value).str();
  return secondsText(value);
}

/// "14.4x faster and 2.7 J less than all-CPU": the chosen plan against one
/// other strategy.
std::string comparison(const FunctionReport &f, const StrategyTotals &t,
                       llvm::StringRef label) {
  if (!std::isfinite(t.seconds) || t.seconds <= 0)
    return (label + ": no placement the target can run").str();
  double ratio = t.seconds / f.seconds, saved = t.joules - f.joules;
  bool sameTime = std::fabs(ratio - 1) < 0.005;
  bool sameEnergy = std::fabs(saved) <= 1e-3 * std::fabs(f.joules);
  std::string name = escapeHtml(label.str());
  if (sameTime && sameEnergy)
    return "the same time and energy as " + name;
  std::string energy = sameEnergy  ? "the same energy"
                       : saved > 0 ? "<b>" + joulesText(saved) + " less</b>"
                                   : joulesText(-saved) + " more";
  if (sameTime)
    return "as fast as " + name + ", with " + energy;
  std::string speed =
      ratio > 1 ? llvm::formatv("<b>{0:f1}&times; faster</b>", ratio).str()
                : llvm::formatv("{0:f2}&times; as fast", ratio).str();
  return speed + " and " + energy + " than " + name;
}

/// The first screen: which plan was chosen, how much faster and how much
/// less energy than all-CPU, all-ANE and greedy, and what limits it.
void writeHeadline(size_t index, const FunctionReport &f,
                   llvm::raw_ostream &os) {
  os << "<div class=\"headline\" id=\"headline-" << index << "\"><p>@"
     << escapeHtml(f.name) << ": the <b>"
     << escapeHtml(hwcore::strategyName(f.chosen)) << "</b> plan, "
     << hwreport::formatCount(f.programs.size(), "program") << " ("
     << escapeHtml(programsByBackend(f)) << "), <b>" << secondsText(f.seconds)
     << "</b> and <b>" << joulesText(f.joules)
     << "</b> per step (predicted; energy modelled).</p>\n<ul>";
  struct Other {
    hwcore::Strategy strategy;
    const char *label;
  } others[] = {{hwcore::Strategy::cpu, "all-CPU"},
                {hwcore::Strategy::ane, "all-ANE"},
                {hwcore::Strategy::greedy, "greedy"}};
  for (const Other &o : others)
    if (o.strategy != f.chosen)
      if (const StrategyTotals *t = f.totals(o.strategy))
        os << "<li>" << comparison(f, *t, o.label) << "</li>";
  os << "</ul>\n<p>Limit: no placement's "
     << escapeHtml(hwcore::objectiveName(f.objective))
     << " is below the lower bound " << objectiveText(f, f.lowerBound)
     << llvm::formatv("; this plan is within {0:f2}% of it.</p></div>\n",
                      f.gapPercent);
}

/// Every strategy's time and energy, the lower bound, the energy split.
void writeTotals(size_t index, const FunctionReport &f, llvm::raw_ostream &os) {
  os << "<table id=\"totals-" << index
     << "\"><tr><th class=\"l\">strategy</th><th>step time</th><th>step "
        "energy (modelled)</th></tr>\n";
  // Best first under the objective (no placement: last); the chosen plan
  // highlighted.
  std::vector<StrategyTotals> sorted = f.strategies;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const StrategyTotals &a, const StrategyTotals &b) {
                     double x = objectiveValue(f, a.seconds, a.joules);
                     double y = objectiveValue(f, b.seconds, b.joules);
                     if (!std::isfinite(x) || !std::isfinite(y))
                       return std::isfinite(x) && !std::isfinite(y);
                     return x < y;
                   });
  for (const StrategyTotals &t : sorted) {
    bool chosen = t.strategy == f.chosen;
    os << "<tr" << (chosen ? " class=\"chosen\"" : "") << "><td class=\"l\">"
       << escapeHtml(hwcore::strategyName(t.strategy))
       << (chosen ? " (chosen)" : "") << "</td><td>" << secondsText(t.seconds)
       << "</td><td>" << joulesText(t.joules) << "</td></tr>\n";
  }
  std::string objective = hwcore::objectiveName(f.objective);
  os << "<tr><td class=\"l\">lower bound (" << escapeHtml(objective)
     << ")</td><td colspan=\"2\">" << objectiveText(f, f.lowerBound)
     << llvm::formatv(", chosen plan within {0:f2}% of it", f.gapPercent)
     << "</td></tr></table>\n";
  os << "<p class=\"note\">Energy of the chosen plan (modelled): programs "
     << joulesText(f.programJoules) << ", boundaries "
     << joulesText(f.boundaryJoules) << ", static "
     << joulesText(f.staticJoules) << ", idle " << joulesText(f.idleJoules)
     << llvm::formatv("; average power {0:f2} W", f.averagePower())
     << (f.powerCap > 0
             ? std::string(llvm::formatv("; power cap {0:f2} W", f.powerCap))
             : std::string())
     << ".</p>\n";
}

/// One row per program; a click shows its regions next to the row.
void writePrograms(size_t index, const FunctionReport &f,
                   llvm::raw_ostream &os) {
  os << "<table id=\"programs-" << index
     << "\" class=\"programs\"><tr><th>program</th><th "
        "class=\"l\">backend</th><th>regions</th><th "
        "class=\"l\">phases</th><th>time</th><th>energy</th><th>launch</"
        "th><th>compute</th><th>memory</th><th>weights</th><th "
        "class=\"l\">weight handling</th><th class=\"l\">bound "
        "by</th><th class=\"l\">on each backend</th></tr>\n";
  for (const ProgramReport &p : f.programs)
    os << "<tr data-function=\"" << index << "\" data-program=\"" << p.id
       << "\"><td>" << p.id << "</td><td class=\"l\"><span "
       << "style=\"background:" << hwcore::backendColor(p.backend)
       << ";padding:0 6px\">" << escapeHtml(hwcore::backendName(p.backend))
       << "</span></td><td>" << p.regions.size() << "</td><td class=\"l\">"
       << escapeHtml(programPhases(f, p)) << "</td><td>"
       << secondsText(p.seconds) << "</td><td>"
       << joulesText(p.joules + p.hostJoules) << "</td><td>"
       << secondsText(p.launch) << "</td><td>" << secondsText(p.compute)
       << "</td><td>" << secondsText(p.memory) << "</td><td>"
       << secondsText(p.weights) << "</td><td class=\"l\">"
       << escapeHtml(hwcore::weightUpdateName(p.weightUpdate))
       << (p.weightBytes > 0 ? " (" + formatBytes(double(p.weightBytes)) + ")"
                             : std::string())
       << "</td><td class=\"l\">" << escapeHtml(p.binding)
       << "</td><td class=\"l\">" << escapeHtml(alternatives(p))
       << "</td></tr>\n";
  os << "</table>\n";
  if (f.regions.size() > kMaxDetailedRegions)
    os << "<p class=\"note\">Details of the first " << kMaxDetailedRegions
       << " of " << f.regions.size()
       << " regions are embedded; the JSON report (report=) has all.</p>\n";
}

} // namespace

void hwreport::writeHtmlReport(const HtmlReportInput &input,
                               llvm::raw_ostream &os) {
  const PartitionReport &report = input.partition;
  writeHead(report, os);
  if (input.compared)
    writeComparisonHeadline(input, os);
  for (auto [index, f] : llvm::enumerate(report.functions))
    writeHeadline(index, f, os);
  if (input.compared)
    writeComparison(input, os);
  writeProgramView(input, os);
  for (auto [index, f] : llvm::enumerate(report.functions)) {
    os << "<h2>@" << escapeHtml(f.name) << "</h2>\n";
    writeTotals(index, f, os);
    writePrograms(index, f, os);
  }
  // A comparison shows both runs itself.
  if (!input.run.empty() && !input.compared)
    writeRun(input, os);
  // The details of what was clicked, placed next to it by the script.
  os << "<div id=\"popover\" class=\"popover\" role=\"dialog\" "
        "hidden></div><div id=\"hover\" class=\"hover\" hidden></div>\n";
  os << "<script type=\"application/json\" id=\"hwagent-data\">"
     << scriptSafeJson(json::Object{
            {"functions", scriptData(report)},
            {"compared", input.compared ? scriptData(input.compared->partition)
                                        : json::Array()}})
     << "</script>\n<script>" << script() << "</script>\n</body></html>\n";
}
