//===- ReportDot.cpp - the partition as DOT -------------------------------===//
//
// The one DOT writer, with one escaper and the vocabulary's colours:
//  - the region graph (`dot=`): one cluster per function and per program,
//    each region with its cost alone on its program's backend, every flow
//    between regions with its bytes; flows that cross backends are red with
//    their price;
//  - the program graph the page draws: one node per program (the unit the
//    chip launches), the host twice (arguments in, results out),
//    boundaries summed per pair, those crossing backends in red.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Report/Format.h"
#include "HwAgent/Report/PartitionReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace hwreport;

std::string hwreport::escapeDot(llvm::StringRef text) {
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

static void writeFunctionGraph(llvm::raw_ostream &os, size_t index,
                               const FunctionReport &f) {
  os << llvm::formatv("  subgraph cluster_{0} {\n    label=\"@{1} ({2}: "
                      "{3})\";\n",
                      index, escapeDot(f.name), hwcore::strategyName(f.chosen),
                      formatSeconds(f.seconds));
  // One cluster per program.
  for (auto [pi, program] : llvm::enumerate(f.programs)) {
    unsigned label = f.labelOf(program.backend);
    os << llvm::formatv(
        "    subgraph cluster_{0}_p{1} {\n      label=\"program "
        "{1}: {2} {3}\";\n      style=dashed;\n",
        index, pi, hwcore::backendName(program.backend),
        formatSeconds(program.seconds));
    for (unsigned node : program.nodes) {
      const RegionReport &region = f.regions[node];
      double alone = label < region.alone.size() ? region.alone[label] : 0;
      os << llvm::formatv(
          "      f{0}_r{1} [label=\"r{2}\\n{3}\", fillcolor=\"{4}\"];\n", index,
          node, region.id, formatSeconds(alone),
          hwcore::backendColor(program.backend));
    }
    os << "    }\n";
  }
  os << llvm::formatv("    f{0}_r{1} [label=\"host (cpu)\", "
                      "fillcolor=\"{2}\"];\n",
                      index, f.regions.size(), hwcore::kHostColor);
  for (const FlowReport &flow : f.flows)
    os << llvm::formatv("    f{0}_r{1} -> f{0}_r{2} [label=\"{3} B{4}\"{5}];\n",
                        index, flow.from, flow.to, flow.bytes,
                        flow.seconds > 0 ? "\\n" + formatSeconds(flow.seconds)
                                         : std::string(),
                        flow.seconds > 0 ? ", color=red" : "");
  os << "  }\n";
}

void hwreport::writeRegionGraph(const PartitionReport &report,
                                llvm::raw_ostream &os) {
  os << "digraph hwagent {\n  node [shape=box, style=filled];\n";
  for (auto [index, f] : llvm::enumerate(report.functions))
    writeFunctionGraph(os, index, f);
  os << "}\n";
}

std::string hwreport::programPhases(const FunctionReport &f,
                                    const ProgramReport &program) {
  std::vector<std::string> phases;
  for (unsigned node : program.nodes) {
    const std::optional<hwcore::Phase> &phase = f.regions[node].phase;
    std::string name = phase ? hwcore::phaseName(*phase) : "";
    if (!name.empty() &&
        std::find(phases.begin(), phases.end(), name) == phases.end())
      phases.push_back(name);
  }
  return llvm::join(phases, ", ");
}

/// Boundaries summed per ordered pair of nodes; those between backends
/// drawn red.
static void writeBoundaries(llvm::raw_ostream &os, size_t f,
                            const FunctionReport &fn) {
  std::map<int64_t, hwcore::BackendKind> backendOf;
  for (const ProgramReport &program : fn.programs)
    backendOf[program.id] = program.backend;
  std::map<std::pair<std::string, std::string>, std::pair<double, double>>
      edges;
  std::set<std::pair<std::string, std::string>> crossing;
  auto node = [&](int64_t id, hwcore::BackendKind &backend, const char *host) {
    if (id >= 0) {
      backend = backendOf[id];
      return "p" + std::to_string(f) + "_" + std::to_string(id);
    }
    backend = hwcore::BackendKind::cpu;
    return host + std::to_string(f);
  };
  for (const BoundaryReport &b : fn.boundaries) {
    hwcore::BackendKind fromBackend, toBackend;
    std::string from = node(b.from, fromBackend, "in_");
    std::string to = node(b.to, toBackend, "out_");
    auto &edge = edges[{from, to}];
    edge.first += double(b.bytes);
    edge.second += b.seconds;
    if (fromBackend != toBackend)
      crossing.insert({from, to});
  }
  for (const auto &[ends, edge] : edges) {
    bool crosses = crossing.count(ends);
    os << "    " << ends.first << " -> " << ends.second << " [label=\""
       << formatBytes(edge.first)
       << (edge.second > 0 ? "\\n" + formatScaled(edge.second, "s", 2) : "")
       << "\"" << (crosses ? ", color=\"#d62828\", penwidth=2" : "") << "];\n";
  }
}

std::string hwreport::programGraph(const PartitionReport &report) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "digraph hwagent {\n  graph [rankdir=TB, fontname=\"Helvetica\", "
        "fontsize=11];\n  node [shape=box, style=\"filled,rounded\", "
        "fontname=\"Helvetica\", fontsize=10];\n  edge "
        "[fontname=\"Helvetica\", "
        "fontsize=9];\n";
  for (auto [f, fn] : llvm::enumerate(report.functions)) {
    os << "  subgraph cluster_f" << f << " {\n    label=\"@"
       << escapeDot(fn.name) << "\";\n";
    // The host twice: where arguments come from (top) and results go
    // (bottom), so that the drawing reads as the step runs.
    for (const char *side : {"in", "out"})
      os << "    " << side << "_" << f << " [id=\"host-" << side << "-" << f
         << "\", label=\""
         << (std::string(side) == "in" ? "arguments" : "results")
         << " (host)\", fillcolor=\"" << hwcore::kHostColor
         << "\", shape=ellipse];\n";
    for (const ProgramReport &program : fn.programs) {
      size_t regions = program.regions.size();
      std::string phases = programPhases(fn, program);
      os << "    p" << f << "_" << program.id << " [id=\"prog-" << f << "-"
         << program.id << "\", label=\"program " << program.id << ": "
         << hwcore::backendName(program.backend) << "\\n"
         << formatScaled(program.seconds, "s", 2) << ", " << regions
         << (regions == 1 ? " region" : " regions")
         << (phases.empty() ? "" : "\\n" + escapeDot(phases))
         << "\", fillcolor=\"" << hwcore::backendColor(program.backend)
         << "\", tooltip=\"" << escapeDot(program.description) << "\"];\n";
    }
    writeBoundaries(os, f, fn);
    os << "  }\n";
  }
  os << "}\n";
  return out;
}
