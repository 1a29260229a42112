//===- HtmlReport.cpp - one self-contained HTML page of a partition -------===//
//
// Server-side HTML and SVG (tables, the step-time and loss curves) so that
// the page reads without its script; a small inline script adds the
// details of a program's regions on click from the embedded JSON, using
// DOM text nodes only. The graph is Graphviz's SVG, inlined.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Config/HtmlReport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace hwconfig;
namespace json = llvm::json;

std::string hwconfig::escapeHtml(llvm::StringRef text) {
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

/// A quoted DOT string's contents: backslashes, quotes and line breaks
/// escaped (a name cannot end the string or add attributes).
std::string escapeDot(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n' || c == '\r') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

/// `v` in `unit` (with `digits` decimals), milli-`unit` or micro-`unit`,
/// whichever reads best; "-" when not finite.
std::string formatScaled(double v, const char *unit, int digits) {
  if (!std::isfinite(v))
    return "-";
  if (v >= 1)
    return llvm::formatv("{0} {1}", llvm::format("%.*f", digits, v), unit);
  if (v >= 1e-3)
    return llvm::formatv("{0:f3} m{1}", v * 1e3, unit);
  return llvm::formatv("{0:f1} u{1}", v * 1e6, unit);
}

std::string formatSeconds(double s) { return formatScaled(s, "s", 2); }

std::string formatJoules(double j) { return formatScaled(j, "J", 3); }

std::string formatBytes(double b) {
  if (b >= 1 << 20)
    return llvm::formatv("{0:f1} MiB", b / (1 << 20));
  if (b >= 1 << 10)
    return llvm::formatv("{0:f1} KiB", b / (1 << 10));
  return llvm::formatv("{0} B", int64_t(b));
}

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

const char *backendColor(llvm::StringRef backend) {
  if (backend == "cpu")
    return "#8ecae6";
  if (backend == "ane")
    return "#f4a261";
  if (backend == "gpu")
    return "#90be6d";
  return "#dddddd";
}

/// The phases of a program's regions ("forward, backward").
std::string programPhases(const json::Object &program,
                          const std::map<int64_t, std::string> &phaseOf) {
  std::vector<std::string> phases;
  if (const json::Array *regions = program.getArray("regions"))
    for (const json::Value &r : *regions)
      if (std::optional<int64_t> id = r.getAsInteger()) {
        auto it = phaseOf.find(*id);
        if (it != phaseOf.end() && !it->second.empty() &&
            std::find(phases.begin(), phases.end(), it->second) == phases.end())
          phases.push_back(it->second);
      }
  return llvm::join(phases, ", ");
}

/// "cpu 1.2 ms, 3.1 mJ; ane 0.4 ms, 0.9 mJ (reload); gpu illegal: ..."
std::string alternatives(const json::Object &program) {
  std::vector<std::string> parts;
  if (const json::Object *on = program.getObject("on_backends"))
    for (const char *backend : {"cpu", "ane", "gpu"})
      if (const json::Object *cost = on->getObject(backend)) {
        if (!cost->getBoolean("legal").value_or(false)) {
          parts.push_back(std::string(backend) +
                          " illegal: " + text(*cost, "reason"));
          continue;
        }
        std::string mode = text(*cost, "weight_update");
        parts.push_back(
            std::string(backend) + " " +
            formatSeconds(number(*cost, "seconds")) + ", " +
            formatJoules(number(*cost, "joules")) +
            (mode.empty() || mode == "none" ? "" : " (" + mode + ")"));
      }
  return llvm::join(parts, "; ");
}

std::map<int64_t, std::string> phasesOf(const json::Object &function) {
  std::map<int64_t, std::string> phaseOf;
  if (const json::Array *regions = function.getArray("regions"))
    for (const json::Value &r : *regions)
      if (const json::Object *region = r.getAsObject())
        phaseOf[int64_t(number(*region, "id"))] = text(*region, "phase");
  return phaseOf;
}

/// A line chart as inline SVG: `points` (x, y), vertical markers (x,
/// label) and its title; every label escaped.
std::string
lineChart(const std::string &id, const std::string &title,
          const std::string &yUnit,
          const std::vector<std::pair<double, double>> &points,
          const std::vector<std::pair<double, std::string>> &marks) {
  const double width = 900, height = 220, left = 70, right = 20, top = 28,
               bottom = 30;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "<svg id=\"" << id << "\" class=\"chart\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
     << height << "\" xmlns=\"http://www.w3.org/2000/svg\">";
  os << "<text x=\"" << left << "\" y=\"18\" class=\"chart-title\">"
     << escapeHtml(title) << "</text>";
  if (points.empty()) {
    os << "<text x=\"" << left << "\" y=\"60\">no data</text></svg>";
    return out;
  }
  double x0 = points.front().first, x1 = points.front().first;
  double y0 = 0, y1 = points.front().second;
  for (auto [x, y] : points) {
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    if (std::isfinite(y)) {
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  }
  if (x1 <= x0)
    x1 = x0 + 1;
  if (y1 <= y0)
    y1 = y0 + 1;
  auto px = [&](double x) {
    return left + (x - x0) / (x1 - x0) * (width - left - right);
  };
  auto py = [&](double y) {
    return top + (1 - (y - y0) / (y1 - y0)) * (height - top - bottom);
  };
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                      "class=\"axis\"/>",
                      left, height - bottom, width - right);
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                      "class=\"axis\"/>",
                      left, top, height - bottom);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{2:g} {3}</text>",
                      left - 4, top + 4, y1, escapeHtml(yUnit));
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{2:g}</text>",
                      left - 4, height - bottom, y0);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\">step "
                      "{2:g}</text><text x=\"{3}\" y=\"{1}\" class=\"tick\" "
                      "text-anchor=\"end\">{4:g}</text>",
                      left, height - 8, x0, width - right, x1);
  // Labels of marks close together stack downwards.
  double lastAt = -1e9;
  int stacked = 0;
  for (const auto &[x, label] : marks) {
    double at = px(x);
    stacked = at - lastAt < 120 ? stacked + 1 : 0;
    lastAt = stacked ? lastAt : at;
    os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" "
                        "y2=\"{2}\" class=\"mark\"/><text x=\"{3:f1}\" "
                        "y=\"{4}\" class=\"mark-label\">{5}</text>",
                        at, top, height - bottom, at + 3,
                        top + 10 + 12 * (stacked % 8), escapeHtml(label));
  }
  os << "<polyline class=\"series\" points=\"";
  for (auto [x, y] : points)
    if (std::isfinite(y))
      os << llvm::formatv("{0:f1},{1:f1} ", px(x), py(y));
  os << "\"/></svg>";
  return out;
}

const char *kStyle = R"css(
body { font: 14px/1.45 -apple-system, "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.note { color: #666; font-size: 13px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
tr[data-program] { cursor: pointer; } tr[data-program]:hover { background: #fff7d6; }
tr.selected { background: #ffe9a8; }
#legend span.swatch { display: inline-block; width: 14px; height: 14px; margin: 0 4px -2px 12px; border: 1px solid #888; }
.graph { overflow: auto; max-height: 720px; border: 1px solid #ddd; padding: 6px; }
.graph svg { max-width: none; } g.node { cursor: pointer; }
.details { border: 1px solid #ccc; background: #fafafa; padding: 8px 12px; margin: 8px 0; }
.chart .axis { stroke: #888; } .chart .series { fill: none; stroke: #1d6fa5; stroke-width: 1.6; }
.chart .mark { stroke: #d62828; stroke-dasharray: 4 3; } .chart .mark-label { fill: #d62828; font-size: 11px; }
.chart .tick { fill: #555; font-size: 11px; } .chart .chart-title { font-weight: bold; font-size: 13px; }
.bad { color: #b00020; }
)css";

/// Shows a program's regions on click (graph node or table row) from the
/// embedded data, with text nodes only.
const char *kScript = R"js(
(function () {
  var data = JSON.parse(document.getElementById('hwagent-data').textContent);
  function cell(row, text, left) {
    var td = document.createElement('td');
    td.textContent = text;
    if (left) td.className = 'l';
    row.appendChild(td);
  }
  function show(f, p) {
    var fn = data.functions[f];
    var panel = document.getElementById('details-' + f);
    if (!fn || !panel) return;
    while (panel.firstChild) panel.removeChild(panel.firstChild);
    var program = fn.programs[p];
    var h = document.createElement('h3');
    h.textContent = program ? program.description : 'program ' + p;
    panel.appendChild(h);
    var table = document.createElement('table');
    table.className = 'regions';
    var head = document.createElement('tr');
    ['region', 'phase', 'location', 'FLOPs', 'bytes', 'cost per backend (alone)', 'why here'].forEach(function (t) {
      var th = document.createElement('th'); th.textContent = t; th.className = 'l'; head.appendChild(th);
    });
    table.appendChild(head);
    var shown = 0;
    fn.regions.forEach(function (r) {
      if (r.program !== p) return;
      var row = document.createElement('tr');
      cell(row, 'r' + r.id, true);
      cell(row, r.phase || '', true);
      cell(row, r.location || '', true);
      cell(row, String(r.flops || 0));
      cell(row, String(r.bytes || 0));
      var costs = [];
      Object.keys(r.costs || {}).forEach(function (b) {
        var c = r.costs[b];
        costs.push(b + ' ' + (c.legal ? c.text : 'illegal: ' + c.reason));
      });
      cell(row, costs.join('; '), true);
      cell(row, r.explanation || '', true);
      table.appendChild(row);
      ++shown;
    });
    panel.appendChild(table);
    if (!shown) {
      var note = document.createElement('p');
      note.className = 'note';
      note.textContent = 'Region details are not embedded for this program (see the JSON report).';
      panel.appendChild(note);
    }
    document.querySelectorAll('tr.selected').forEach(function (tr) { tr.classList.remove('selected'); });
    var tr = document.querySelector('tr[data-function="' + f + '"][data-program="' + p + '"]');
    if (tr) tr.classList.add('selected');
  }
  document.querySelectorAll('g.node').forEach(function (g) {
    var m = /^prog-(\d+)-(\d+)$/.exec(g.id);
    if (!m) return;
    g.classList.add('program');
    g.addEventListener('click', function () { show(+m[1], +m[2]); });
  });
  document.querySelectorAll('tr[data-program]').forEach(function (tr) {
    tr.addEventListener('click', function () {
      show(+tr.getAttribute('data-function'), +tr.getAttribute('data-program'));
    });
  });
  // #show-<function>-<program> opens that program's details.
  var m = /^#show-(\d+)-(\d+)$/.exec(window.location.hash);
  if (m) show(+m[1], +m[2]);
  document.body.setAttribute('data-report-ready', '1');
})();
)js";

/// The data the script reads: per function its programs and (up to
/// kMaxDetailedRegions) regions.
json::Value scriptData(const json::Array &functions) {
  json::Array out;
  for (const json::Value &f : functions) {
    const json::Object *fn = f.getAsObject();
    if (!fn)
      continue;
    json::Array programs, regions;
    if (const json::Array *ps = fn->getArray("programs"))
      for (const json::Value &p : *ps)
        if (const json::Object *program = p.getAsObject())
          programs.push_back(
              json::Object{{"backend", text(*program, "backend")},
                           {"description", text(*program, "description")}});
    if (const json::Array *rs = fn->getArray("regions"))
      for (const json::Value &r : *rs) {
        if (regions.size() >= kMaxDetailedRegions)
          break;
        const json::Object *region = r.getAsObject();
        if (!region)
          continue;
        json::Object costs;
        if (const json::Object *c = region->getObject("costs"))
          for (const auto &[backend, value] : *c)
            if (const json::Object *cost = value.getAsObject()) {
              bool legal = cost->getBoolean("legal").value_or(false);
              costs[backend] = json::Object{
                  {"legal", legal},
                  {"text", formatSeconds(number(*cost, "seconds", NAN))},
                  {"reason", text(*cost, "reason")}};
            }
        json::Object features;
        const json::Object *fe = region->getObject("features");
        regions.push_back(
            json::Object{{"id", number(*region, "id")},
                         {"program", number(*region, "program")},
                         {"phase", text(*region, "phase")},
                         {"location", text(*region, "location")},
                         {"flops", fe ? number(*fe, "flops") : 0.0},
                         {"bytes", fe ? number(*fe, "bytes_read") +
                                            number(*fe, "bytes_written")
                                      : 0.0},
                         {"costs", std::move(costs)},
                         {"explanation", text(*region, "explanation")}});
      }
    out.push_back(json::Object{{"name", text(*fn, "name")},
                               {"programs", std::move(programs)},
                               {"regions", std::move(regions)}});
  }
  return json::Object{{"functions", std::move(out)}};
}

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

void writeRun(const HtmlReportInput &input, llvm::raw_ostream &os) {
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
  // Per program and backend: executions and mean seconds, against the
  // prediction the log carries.
  struct Stat {
    int64_t n = 0;
    double seconds = 0, predicted = 0, joules = 0;
    bool simulated = true;
  };
  std::map<std::pair<int64_t, std::string>, Stat> stats;
  std::vector<std::pair<double, double>> stepTimes, losses, accuracy;
  std::vector<std::pair<double, std::string>> marks;
  for (const json::Value &v : input.run) {
    const json::Object *r = v.getAsObject();
    if (!r)
      continue;
    std::string type = text(*r, "type");
    double step = number(*r, "step");
    if (type == "program") {
      Stat &s = stats[{int64_t(number(*r, "program")), text(*r, "backend")}];
      ++s.n;
      s.seconds += number(*r, "seconds");
      s.predicted += number(*r, "predicted_seconds", NAN);
      s.joules += number(*r, "joules");
      s.simulated = r->getBoolean("simulated").value_or(true);
    } else if (type == "step") {
      stepTimes.push_back({step, number(*r, "step_seconds") * 1e3});
      losses.push_back({step, number(*r, "loss", NAN)});
    } else if (type == "eval") {
      accuracy.push_back({step, 100 * number(*r, "val_accuracy", NAN)});
    } else if (type == "repartition" &&
               r->getBoolean("applied").value_or(false)) {
      marks.push_back({step, "re-partition"});
    } else if (type == "objective") {
      std::string label = "objective " + text(*r, "objective");
      if (number(*r, "power_cap") > 0)
        label += llvm::formatv(", cap {0:f1} W", number(*r, "power_cap"));
      marks.push_back({step, label});
    } else if (type == "telemetry") {
      marks.push_back(
          {step,
           llvm::formatv("{0} x{1:f2}", text(*r, "backend"),
                         1.0 / std::max(number(*r, "speed_factor", 1), 1e-9))});
    }
  }
  os << lineChart("step-time-chart",
                  "Step time per step (as the target would run it)", "ms",
                  stepTimes, marks);
  os << "\n" << lineChart("loss-chart", "Training loss", "", losses, {});
  if (!accuracy.empty())
    os << "\n"
       << lineChart("accuracy-chart", "Validation accuracy", "%", accuracy, {});
  os << "\n<h3>Predicted against measured, per program</h3>\n"
        "<table id=\"run-programs\"><tr><th>program</th><th "
        "class=\"l\">backend</th><th>executions</th><th>mean time</th><th "
        "class=\"l\">how</th><th>predicted</th><th>measured / "
        "predicted</th><th>mean energy (modelled)</th></tr>\n";
  for (const auto &[key, s] : stats) {
    double mean = s.seconds / double(s.n);
    double predicted = s.predicted / double(s.n);
    os << "<tr><td>" << key.first << "</td><td class=\"l\">"
       << escapeHtml(key.second) << "</td><td>" << s.n << "</td><td>"
       << formatSeconds(mean) << "</td><td class=\"l\">"
       << (s.simulated ? "simulated" : "measured") << "</td><td>"
       << formatSeconds(predicted) << "</td><td>"
       << (predicted > 0
               ? std::string(llvm::formatv("{0:f2}", mean / predicted))
               : std::string("-"))
       << "</td><td>" << formatJoules(s.joules / double(s.n)) << "</td></tr>\n";
  }
  os << "</table>\n";
}

} // namespace

std::string hwconfig::programGraphDot(const json::Object &partition) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "digraph hwagent {\n  graph [rankdir=TB, fontname=\"Helvetica\", "
        "fontsize=11];\n  node [shape=box, style=\"filled,rounded\", "
        "fontname=\"Helvetica\", fontsize=10];\n  edge "
        "[fontname=\"Helvetica\", "
        "fontsize=9];\n";
  const json::Array *functions = partition.getArray("functions");
  for (size_t f = 0; functions && f < functions->size(); ++f) {
    const json::Object *fn = (*functions)[f].getAsObject();
    if (!fn)
      continue;
    std::map<int64_t, std::string> phaseOf = phasesOf(*fn);
    os << "  subgraph cluster_f" << f << " {\n    label=\"@"
       << escapeDot(text(*fn, "name")) << "\";\n";
    // The host twice: where arguments come from (top) and results go
    // (bottom), so that the drawing reads as the step runs.
    os << "    in_" << f << " [id=\"host-in-" << f
       << "\", label=\"arguments (host)\", fillcolor=\"#dddddd\", "
          "shape=ellipse];\n    out_"
       << f << " [id=\"host-out-" << f
       << "\", label=\"results (host)\", fillcolor=\"#dddddd\", "
          "shape=ellipse];\n";
    std::map<int64_t, std::string> backendOf;
    if (const json::Array *programs = fn->getArray("programs"))
      for (const json::Value &p : *programs) {
        const json::Object *program = p.getAsObject();
        if (!program)
          continue;
        int64_t id = int64_t(number(*program, "id"));
        std::string backend = text(*program, "backend");
        backendOf[id] = backend;
        size_t regions = program->getArray("regions")
                             ? program->getArray("regions")->size()
                             : 0;
        std::string phases = programPhases(*program, phaseOf);
        os << "    p" << f << "_" << id << " [id=\"prog-" << f << "-" << id
           << "\", label=\"program " << id << ": " << escapeDot(backend)
           << "\\n"
           << formatSeconds(number(*program, "seconds")) << ", " << regions
           << (regions == 1 ? " region" : " regions")
           << (phases.empty() ? "" : "\\n" + escapeDot(phases))
           << "\", fillcolor=\"" << backendColor(backend) << "\", tooltip=\""
           << escapeDot(text(*program, "description")) << "\"];\n";
      }
    // Boundaries summed per ordered pair; those crossing backends in red.
    std::map<std::pair<std::string, std::string>, std::pair<double, double>>
        edges;
    std::set<std::pair<std::string, std::string>> crossing;
    auto node = [&](const json::Value &v, std::string &backend,
                    const char *host) {
      if (std::optional<int64_t> id = v.getAsInteger()) {
        backend = backendOf[*id];
        return "p" + std::to_string(f) + "_" + std::to_string(*id);
      }
      backend = "cpu";
      return host + std::to_string(f);
    };
    if (const json::Array *boundaries = fn->getArray("boundaries"))
      for (const json::Value &b : *boundaries) {
        const json::Object *boundary = b.getAsObject();
        if (!boundary || !boundary->get("from") || !boundary->get("to"))
          continue;
        std::string fromBackend, toBackend;
        std::string from = node(*boundary->get("from"), fromBackend, "in_");
        std::string to = node(*boundary->get("to"), toBackend, "out_");
        auto &edge = edges[{from, to}];
        edge.first += number(*boundary, "bytes");
        edge.second += number(*boundary, "seconds");
        if (fromBackend != toBackend)
          crossing.insert({from, to});
      }
    for (const auto &[ends, edge] : edges) {
      bool crosses = crossing.count(ends);
      os << "    " << ends.first << " -> " << ends.second << " [label=\""
         << formatBytes(edge.first)
         << (edge.second > 0 ? "\\n" + formatSeconds(edge.second) : "") << "\""
         << (crosses ? ", color=\"#d62828\", penwidth=2" : "") << "];\n";
    }
    os << "  }\n";
  }
  os << "}\n";
  return out;
}

llvm::Expected<std::string> hwconfig::renderGraphviz(llvm::StringRef dot,
                                                     llvm::StringRef program) {
  std::string path = program.str();
  if (path.empty()) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("dot");
    if (!found)
      return llvm::createStringError(
          "Graphviz's 'dot' is not installed (Debian: apt install graphviz)");
    path = *found;
  }
  llvm::SmallString<128> in, out;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("hwagent-graph", "dot", fd, in))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  {
    llvm::raw_fd_ostream file(fd, /*shouldClose=*/true);
    file << dot;
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("hwagent-graph", "svg", out)) {
    llvm::sys::fs::remove(in);
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  }
  std::string message;
  llvm::StringRef args[] = {path, "-Tsvg", "-o", out, in};
  int status = llvm::sys::ExecuteAndWait(path, args, std::nullopt, {},
                                         /*SecondsToWait=*/120, 0, &message);
  llvm::sys::fs::remove(in);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> svg =
      llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (status != 0 || !svg)
    return llvm::createStringError(
        "Graphviz failed" + (message.empty() ? "" : ": " + message) +
        (status > 0 ? " (exit " + std::to_string(status) + ")" : ""));
  llvm::StringRef text = (*svg)->getBuffer();
  size_t start = text.find("<svg");
  if (start == llvm::StringRef::npos)
    return llvm::createStringError("Graphviz wrote no SVG");
  return text.drop_front(start).str();
}

llvm::Error hwconfig::writeHtmlReport(const HtmlReportInput &input,
                                      llvm::raw_ostream &os) {
  const json::Object *report = input.partition.getAsObject();
  if (!report || report->getString("schema") != "hwagent.partition")
    return llvm::createStringError("not a partition report");
  const json::Array *functions = report->getArray("functions");
  if (!functions)
    return llvm::createStringError("the partition report has no functions");
  std::string target = text(*report, "target");
  std::vector<std::string> simulated;
  if (const json::Array *s = report->getArray("simulated_backends"))
    for (const json::Value &b : *s)
      if (std::optional<llvm::StringRef> name = b.getAsString())
        simulated.push_back(name->str());

  std::vector<std::string> names;
  size_t totalPrograms = 0;
  for (const json::Value &f : *functions)
    if (const json::Object *fn = f.getAsObject()) {
      names.push_back("@" + text(*fn, "name"));
      if (const json::Array *p = fn->getArray("programs"))
        totalPrograms += p->size();
    }
  std::string title =
      "hwagent partition of " + llvm::join(names, ", ") + " for " + target;

  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"generator\" content=\"hwagent\"><title>"
     << escapeHtml(title) << "</title><style>" << kStyle
     << "</style></head>\n<body>\n<h1>" << escapeHtml(title) << "</h1>\n";
  os << "<p class=\"note\">Strategy " << escapeHtml(text(*report, "strategy"))
     << ". Every ANE and GPU time on this page is a prediction of the "
        "simulated device model";
  if (!simulated.empty())
    os << " (simulated here: " << escapeHtml(llvm::join(simulated, ", "))
       << ")";
  os << "; CPU times are predicted by the same model unless a run below "
        "measured them. Energy is modelled from the target's power "
        "values.</p>\n";
  os << "<div id=\"legend\">Backends:";
  for (const char *backend : {"cpu", "ane", "gpu"})
    os << "<span class=\"swatch\" style=\"background:" << backendColor(backend)
       << "\"></span>" << backend;
  os << "<span class=\"swatch\" style=\"background:#dddddd\"></span>host "
        "(the function's arguments and results) &nbsp; <span "
        "style=\"color:#d62828\">&#8212;</span> a boundary between backends "
        "(copy, conversion, sync)</div>\n";

  // The graph of every function, or why there is none.
  std::string graphNote;
  std::string svg;
  if (totalPrograms > input.maxGraphPrograms) {
    graphNote = llvm::formatv("The graph has {0} programs, more than the {1} "
                              "this page draws; the tables below list every "
                              "program.",
                              totalPrograms, input.maxGraphPrograms);
  } else {
    llvm::Expected<std::string> rendered =
        renderGraphviz(programGraphDot(*report), input.dotProgram);
    if (rendered)
      svg = std::move(*rendered);
    else
      graphNote = "No graph: " + llvm::toString(rendered.takeError());
  }
  os << "<h2>The step, program by program</h2>\n<p class=\"note\">One node "
        "per program (the unit the chip launches), coloured by its backend, "
        "with its predicted time, its regions and their training phases. "
        "Click a program (or its row below) for its regions: features, cost "
        "on every backend and the rule that placed them.</p>\n";
  if (!svg.empty())
    os << "<div class=\"graph\" id=\"graph\">" << svg << "</div>\n";
  else
    os << "<p class=\"bad\" id=\"graph-missing\">" << escapeHtml(graphNote)
       << "</p>\n";

  for (size_t f = 0; f < functions->size(); ++f) {
    const json::Object *fn = (*functions)[f].getAsObject();
    if (!fn)
      continue;
    std::map<int64_t, std::string> phaseOf = phasesOf(*fn);
    std::string objective = text(*fn, "objective");
    os << "<h2>@" << escapeHtml(text(*fn, "name")) << "</h2>\n";
    // Totals: every strategy's time and energy, the lower bound.
    os << "<table id=\"totals-" << f
       << "\"><tr><th class=\"l\">strategy</th><th>step time</th><th>step "
          "energy (modelled)</th></tr>\n";
    const json::Object *times = fn->getObject("step_time");
    const json::Object *energy = fn->getObject("step_energy");
    if (times)
      for (const auto &[strategy, seconds] : *times) {
        double joules = energy ? number(*energy, strategy, NAN) : NAN;
        os << "<tr><td class=\"l\">" << escapeHtml(strategy.str())
           << "</td><td>" << formatSeconds(seconds.getAsNumber().value_or(NAN))
           << "</td><td>" << formatJoules(joules) << "</td></tr>\n";
      }
    double bound = number(*fn, "lower_bound", NAN);
    os << "<tr><td class=\"l\">lower bound (" << escapeHtml(objective)
       << ")</td><td colspan=\"2\">"
       << (objective == "energy" ? formatJoules(bound)
           : objective == "edp"
               ? std::string(llvm::formatv("{0:e3} J s", bound))
               : formatSeconds(bound))
       << llvm::formatv(", chosen plan within {0:f2}% of it",
                        100 * number(*fn, "gap_to_lower_bound"))
       << "</td></tr></table>\n";
    if (const json::Object *e = fn->getObject("energy"))
      os << "<p class=\"note\">Energy of the chosen plan (modelled): programs "
         << formatJoules(number(*e, "programs")) << ", boundaries "
         << formatJoules(number(*e, "boundaries")) << ", static "
         << formatJoules(number(*e, "static")) << ", idle "
         << formatJoules(number(*e, "idle"))
         << llvm::formatv("; average power {0:f2} W",
                          number(*e, "average_power"))
         << (number(*fn, "power_cap") > 0
                 ? std::string(llvm::formatv("; power cap {0:f2} W",
                                             number(*fn, "power_cap")))
                 : std::string())
         << ".</p>\n";
    // Programs.
    os << "<table id=\"programs-" << f
       << "\" class=\"programs\"><tr><th>program</th><th "
          "class=\"l\">backend</th><th>regions</th><th "
          "class=\"l\">phases</th><th>time</th><th>energy</th><th>launch</"
          "th><th>compute</th><th>memory</th><th>weights</th><th "
          "class=\"l\">weight handling</th><th class=\"l\">bound "
          "by</th><th class=\"l\">on each backend</th></tr>\n";
    if (const json::Array *programs = fn->getArray("programs"))
      for (const json::Value &p : *programs) {
        const json::Object *program = p.getAsObject();
        if (!program)
          continue;
        int64_t id = int64_t(number(*program, "id"));
        std::string backend = text(*program, "backend");
        size_t regions = program->getArray("regions")
                             ? program->getArray("regions")->size()
                             : 0;
        os << "<tr data-function=\"" << f << "\" data-program=\"" << id
           << "\"><td>" << id << "</td><td class=\"l\"><span "
           << "style=\"background:" << backendColor(backend)
           << ";padding:0 6px\">" << escapeHtml(backend) << "</span></td><td>"
           << regions << "</td><td class=\"l\">"
           << escapeHtml(programPhases(*program, phaseOf)) << "</td><td>"
           << formatSeconds(number(*program, "seconds")) << "</td><td>"
           << formatJoules(number(*program, "joules") +
                           number(*program, "host_joules"))
           << "</td><td>" << formatSeconds(number(*program, "launch"))
           << "</td><td>" << formatSeconds(number(*program, "compute"))
           << "</td><td>" << formatSeconds(number(*program, "memory"))
           << "</td><td>" << formatSeconds(number(*program, "weights"))
           << "</td><td class=\"l\">"
           << escapeHtml(text(*program, "weight_update"))
           << (number(*program, "weight_bytes") > 0
                   ? " (" + formatBytes(number(*program, "weight_bytes")) + ")"
                   : std::string())
           << "</td><td class=\"l\">" << escapeHtml(text(*program, "binding"))
           << "</td><td class=\"l\">" << escapeHtml(alternatives(*program))
           << "</td></tr>\n";
      }
    os << "</table>\n<div class=\"details\" id=\"details-" << f
       << "\"><p class=\"note\">Click a program for its regions.</p></div>\n";
    size_t regionCount =
        fn->getArray("regions") ? fn->getArray("regions")->size() : 0;
    if (regionCount > kMaxDetailedRegions)
      os << "<p class=\"note\">Details of the first " << kMaxDetailedRegions
         << " of " << regionCount
         << " regions are embedded; the JSON report (report=) has all.</p>\n";
  }

  if (!input.run.empty())
    writeRun(input, os);

  os << "<script type=\"application/json\" id=\"hwagent-data\">"
     << scriptSafeJson(scriptData(*functions)) << "</script>\n<script>"
     << kScript << "</script>\n</body></html>\n";
  return llvm::Error::success();
}
