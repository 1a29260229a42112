//===- Graph.cpp - the step's programs and its timeline -------------------===//
//
// Laid out here, in linear time, with no layout program: a Graphviz drawing
// of a 111-program training step took 100 s and was 9100 px tall. The
// programs are compact cards grouped by training phase (each group a
// <details> that collapses), searchable by op, layer, source or program;
// the timeline draws one step per backend (a Gantt chart, as Perfetto
// does) with every boundary between backends on a lane of its own, joined
// to the two programs it links. The script pans and zooms the cards (a
// stage in a scrolling view), zooms the timeline and shows a program's
// details next to what was clicked (assets/report.js).
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace hwreport;
using namespace hwreport::html;

namespace {

/// Width of the timeline at zoom 1, lane height and the left margin.
constexpr int kTimelineWidth = 1100, kLane = 28, kTop = 22;

std::string phaseOf(const FunctionReport &f, const ProgramReport &p) {
  std::string phases = programPhases(f, p);
  return phases.empty() ? "unknown phase" : phases;
}

/// One card per program: backend, time, busiest op kinds, layers.
void writeCard(size_t index, const FunctionReport &f, const ProgramReport &p,
               const ProgramNames &names, llvm::raw_ostream &os) {
  std::string backend = hwcore::backendName(p.backend);
  os << "<div class=\"prog\" tabindex=\"0\" id=\"prog-" << index << "-" << p.id
     << "\" data-function=\"" << index << "\" data-program=\"" << p.id
     << "\" data-phase=\"" << escapeHtml(phaseOf(f, p)) << "\" data-backend=\""
     << escapeHtml(backend) << "\" data-seconds=\"" << p.seconds
     << "\" data-search=\""
     << escapeHtml(llvm::StringRef("#" + std::to_string(p.id) + " " + backend +
                                   " " + phaseOf(f, p) + " " + names.search)
                       .lower())
     << "\" style=\"border-left-color:" << hwcore::backendColor(p.backend)
     << "\"><div class=\"prog-head\"><b>#" << p.id
     << "</b> <span class=\"be\" style=\"background:"
     << hwcore::backendColor(p.backend) << "\">" << escapeHtml(backend)
     << "</span> " << secondsText(p.seconds) << "</div><div class=\"prog-ops\">"
     << escapeHtml(names.ops.empty()
                       ? std::to_string(p.regions.size()) + " regions"
                       : names.ops)
     << "</div>";
  if (!names.layers.empty())
    os << "<div class=\"prog-layers\">" << escapeHtml(names.layers) << "</div>";
  os << "</div>";
}

/// The cards of one function in groups by phase, in order of appearance.
void writeGroups(size_t index, const FunctionReport &f, llvm::raw_ostream &os) {
  std::vector<RegionNames> names = regionNames(f);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ProgramReport *>> groups;
  for (const ProgramReport &p : f.programs) {
    auto [it, fresh] = groups.insert({phaseOf(f, p), {}});
    if (fresh)
      order.push_back(it->first);
    it->second.push_back(&p);
  }
  // The cards on a stage the script scales and the viewport scrolls
  // (assets/report.js: pan and zoom, as Netron and Perfetto do).
  os << "<div class=\"zoom-tools\" role=\"toolbar\" aria-label=\"zoom the "
        "programs\">"
     << llvm::formatv(
            "<button type=\"button\" data-pz=\"out\" data-function=\"{0}\" "
            "title=\"zoom out (-)\" aria-label=\"zoom out\">&minus;</button>"
            "<button type=\"button\" data-pz=\"actual\" data-function=\"{0}\" "
            "class=\"zoom-level\" id=\"zoom-level-{0}\" title=\"actual size "
            "(1)\">100%</button><button type=\"button\" data-pz=\"in\" "
            "data-function=\"{0}\" title=\"zoom in (+)\" aria-label=\"zoom "
            "in\">+</button> <button type=\"button\" data-pz=\"fit\" "
            "data-function=\"{0}\" title=\"the whole step (0)\">fit</button>",
            index)
     << " <span class=\"note\">Drag to pan, Ctrl+wheel or pinch to zoom "
        "around the pointer; keys + and &minus; zoom, 0 fits, 1 is actual "
        "size.</span></div>\n<div class=\"graph\" id=\"graph-"
     << index << "\" data-function=\"" << index
     << "\" tabindex=\"0\" aria-label=\"programs: drag to pan, Ctrl+wheel "
        "to zoom\"><div class=\"sizer\"><div class=\"stage\" id=\"stage-"
     << index << "\">";
  for (const std::string &phase : order) {
    const std::vector<const ProgramReport *> &members = groups[phase];
    std::map<std::string, int> perBackend;
    double seconds = 0;
    for (const ProgramReport *p : members) {
      ++perBackend[hwcore::backendName(p->backend)];
      seconds += p->seconds;
    }
    std::vector<std::string> split;
    for (const auto &[backend, n] : perBackend)
      split.push_back(std::to_string(n) + " " + backend);
    os << "<details class=\"group\" open><summary><b>" << escapeHtml(phase)
       << "</b>: " << members.size()
       << (members.size() == 1 ? " program" : " programs") << " ("
       << llvm::join(split, ", ") << "), " << secondsText(seconds)
       << "</summary><div class=\"cards\">";
    for (const ProgramReport *p : members)
      writeCard(index, f, *p, programNames(f, *p, names), os);
    os << "</div></details>\n";
  }
  os << "</div></div></div>\n";
}

/// A bar (or a boundary's line) of the timeline: its times in data-t0/t1
/// so that the script can zoom without the page recomputing anything.
void writeBar(llvm::raw_ostream &os, const std::string &id, double t0,
              double t1, double y, double scale, const char *colour,
              llvm::StringRef cls, size_t index, int64_t program) {
  os << llvm::formatv("<rect id=\"{0}\" class=\"{1}\" data-function=\"{2}\" "
                      "data-program=\"{3}\" data-t0=\"{4}\" data-t1=\"{5}\" "
                      "x=\"{6:f1}\" y=\"{7}\" width=\"{8:f1}\" height=\"{9}\" "
                      "fill=\"{10}\"/>",
                      id, cls, index, program, llvm::format("%.9g", t0),
                      llvm::format("%.9g", t1), t0 * scale, y,
                      std::max((t1 - t0) * scale, 1.0), kLane - 8, colour);
}

/// One step on a timeline: programs end to end on their backends' lanes,
/// as the model prices the step, each boundary between backends before the
/// program it feeds, on the transfers lane, with a line from lane to lane.
void writeTimeline(size_t index, const FunctionReport &f,
                   llvm::raw_ostream &os) {
  std::vector<hwcore::BackendKind> lanes = f.labels;
  auto laneOf = [&](int64_t program) -> size_t {
    if (program < 0 || size_t(program) >= f.programs.size())
      return lanes.size(); // the host: drawn from the transfers lane
    return f.labelOf(f.programs[program].backend);
  };
  double total = 0;
  for (const ProgramReport &p : f.programs)
    total += p.seconds;
  for (const BoundaryReport &b : f.boundaries)
    total += b.seconds;
  double scale = kTimelineWidth / (total > 0 ? total : 1);
  double height = kTop + kLane * (lanes.size() + 1) + 4;
  auto laneY = [&](size_t lane) { return kTop + kLane * lane + 4; };
  os << "<h3>One step on a timeline (@" << escapeHtml(f.name) << ", "
     << secondsText(total)
     << ")</h3>\n<div class=\"timeline-tools\"><button type=\"button\" "
        "data-zoom=\"in\" data-function=\""
     << index << "\">zoom in</button> <button type=\"button\" "
     << "data-zoom=\"out\" data-function=\"" << index
     << "\">zoom out</button> <button type=\"button\" data-zoom=\"fit\" "
        "data-function=\""
     << index
     << "\">fit</button> <span class=\"note\">Ctrl+wheel or W/S zoom, "
        "dragging or A/D pans; programs end to end as the model prices the "
        "step, each "
        "boundary between backends (red) before the program it feeds.</span>"
        "</div>\n<div class=\"timeline-wrap\"><div class=\"lanes\" style=\""
        "padding-top:"
     << kTop << "px\">";
  for (hwcore::BackendKind lane : lanes)
    os << "<div style=\"height:" << kLane << "px\">"
       << escapeHtml(hwcore::backendName(lane)) << "</div>";
  os << "<div style=\"height:" << kLane << "px\">transfers</div></div>";
  os << llvm::formatv(
      "<div class=\"timeline\" id=\"timeline-{0}\" tabindex=\"0\" "
      "aria-label=\"one step on a timeline: drag or A/D to pan, Ctrl+wheel "
      "or W/S to zoom, 0 to fit\"><svg "
      "width=\"{1}\" height=\"{2}\" data-width=\"{1}\" "
      "data-scale=\"{3}\" xmlns=\"http://www.w3.org/2000/svg\">",
      index, kTimelineWidth + 40, height, llvm::format("%.9g", scale));
  for (int tick = 0; tick <= 10; ++tick) {
    double t = total * tick / 10;
    os << llvm::formatv("<text class=\"tick\" data-t0=\"{0}\" x=\"{1:f1}\" "
                        "y=\"12\" text-anchor=\"{3}\">{2}</text>",
                        llvm::format("%.9g", t), t * scale, secondsText(t),
                        tick == 0    ? "start"
                        : tick == 10 ? "end"
                                     : "middle");
  }
  std::vector<double> end(f.programs.size(), 0);
  double t = 0;
  auto boundariesInto = [&](int64_t to) {
    for (auto [i, b] : llvm::enumerate(f.boundaries)) {
      if (b.to != to || !(b.seconds > 0))
        continue;
      double from =
          b.from >= 0 && size_t(b.from) < end.size() ? end[b.from] : 0;
      writeBar(os, "xfer-" + std::to_string(index) + "-" + std::to_string(i), t,
               t + b.seconds, laneY(lanes.size()), scale, "#d62828", "xfer",
               index, b.to);
      // A line from the program the data leaves (arguments from the host
      // have none) to the program it feeds, as Perfetto draws flows.
      if (b.from >= 0)
        os << llvm::formatv(
            "<line class=\"flow\" data-t0=\"{0}\" "
            "data-t1=\"{1}\" x1=\"{2:f1}\" y1=\"{3}\" "
            "x2=\"{4:f1}\" y2=\"{5}\"/>",
            llvm::format("%.9g", from), llvm::format("%.9g", t + b.seconds),
            from * scale, laneY(laneOf(b.from)) + kLane / 2 - 4,
            (t + b.seconds) * scale, laneY(laneOf(b.to)) + kLane / 2 - 4);
      t += b.seconds;
    }
  };
  for (const ProgramReport &p : f.programs) {
    boundariesInto(p.id);
    if (p.id >= 0 && size_t(p.id) < end.size())
      end[p.id] = t + p.seconds;
    writeBar(os, "bar-" + std::to_string(index) + "-" + std::to_string(p.id), t,
             t + p.seconds, laneY(laneOf(p.id)), scale,
             hwcore::backendColor(p.backend), "bar", index, p.id);
    t += p.seconds;
  }
  boundariesInto(-1);
  os << "</svg></div></div>\n";
}

} // namespace

void hwreport::html::writeProgramView(const HtmlReportInput &input,
                                      llvm::raw_ostream &os) {
  size_t totalPrograms = 0;
  for (const FunctionReport &f : input.partition.functions)
    totalPrograms += f.programs.size();
  os << "<h2>The step, program by program</h2>\n";
  if (totalPrograms > input.maxGraphPrograms) {
    os << "<p class=\"bad\" id=\"graph-missing\">"
       << llvm::formatv("The graph has {0} programs, more than the {1} this "
                        "page draws; the tables below list every program.",
                        totalPrograms, input.maxGraphPrograms)
       << "</p>\n";
    return;
  }
  os << "<p class=\"note\">One card per program (the unit the chip "
        "launches), coloured by its backend, with its predicted time, what "
        "it mostly does and its layers; grouped by training phase. Click a "
        "card, a bar of the timeline or a row of the table for its regions: "
        "ops, layers, source, FLOPs, cost on every backend and the rule "
        "that placed them.</p>\n<section class=\"view\"><div "
        "class=\"toolbar\" id=\"graph-toolbar\">"
        "<input type=\"search\" id=\"graph-search\" placeholder=\"Search op, "
        "layer, source, backend or #program\" aria-label=\"search programs\"> "
        "<label>Group by <select id=\"group-by\"><option value=\"phase\">"
        "phase</option><option value=\"backend\">backend</option></select>"
        "</label> <button type=\"button\" id=\"expand-all\">expand all"
        "</button> <button type=\"button\" id=\"collapse-all\">collapse all"
        "</button> <span id=\"search-count\" class=\"note\"></span></div>\n";
  for (auto [index, f] : llvm::enumerate(input.partition.functions)) {
    if (input.partition.functions.size() > 1)
      os << "<h3>@" << escapeHtml(f.name) << "</h3>\n";
    writeGroups(index, f, os);
    writeTimeline(index, f, os);
  }
  os << "</section>\n";
}
