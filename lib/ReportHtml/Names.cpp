//===- Names.cpp - readable names of regions and programs -----------------===//
//
// What a person recognises a region by: the layer names its `loc` carries
// (an importer writes `loc("layer1.0.conv1"("model.py":12:0))`), its source
// lines relative to the function's common folder (never an absolute path),
// and its op kinds. Read from the printed location, so a saved JSON report
// gives the same names as the IR.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>
#include <set>

using namespace hwreport;
using namespace hwreport::html;

namespace {

struct Place {
  std::vector<std::string> layers;
  /// (path, line) of every file location.
  std::vector<std::pair<std::string, int64_t>> files;
};

/// The quoted strings of a printed location: a string followed by `:` and a
/// number is a file, one followed by `(` or standing alone a name.
Place parsePlace(llvm::StringRef loc) {
  Place place;
  for (size_t i = 0; i < loc.size(); ++i) {
    if (loc[i] != '"')
      continue;
    std::string text;
    size_t j = i + 1;
    for (; j < loc.size() && loc[j] != '"'; ++j) {
      if (loc[j] == '\\' && j + 1 < loc.size())
        ++j;
      text += loc[j];
    }
    i = j;
    llvm::StringRef rest = loc.drop_front(std::min(j + 1, loc.size()));
    int64_t line = 0;
    if (rest.consume_front(":") &&
        !rest.take_while(llvm::isDigit).getAsInteger(10, line))
      place.files.push_back({text, line});
    else if (!text.empty() &&
             llvm::find(place.layers, text) == place.layers.end())
      place.layers.push_back(text);
  }
  return place;
}

/// The folder every path shares ("" when none), ending in '/'.
std::string commonFolder(const std::vector<Place> &places) {
  std::optional<std::string> common;
  for (const Place &place : places)
    for (const auto &file : place.files) {
      llvm::StringRef folder = file.first;
      folder = folder.take_front(folder.rfind('/') + 1);
      if (!common) {
        common = folder.str();
        continue;
      }
      size_t n = 0;
      while (n < common->size() && n < folder.size() &&
             (*common)[n] == folder[n])
        ++n;
      common->resize(llvm::StringRef(*common).take_front(n).rfind('/') + 1);
    }
  return common.value_or("");
}

/// "a, b" or "a … z (7 names)".
std::string range(const std::vector<std::string> &names) {
  if (names.size() <= 2)
    return llvm::join(names, ", ");
  return names.front() + " \u2026 " + names.back() + " (" +
         std::to_string(names.size()) + " names)";
}

/// "model.py:12" or "model.py:12-40" (per file, in order of appearance).
std::string sources(const std::vector<std::pair<std::string, int64_t>> &files,
                    size_t strip) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<int64_t, int64_t>> lines;
  for (const auto &[path, line] : files) {
    std::string name = path.size() > strip ? path.substr(strip) : path;
    auto [it, fresh] = lines.insert({name, {line, line}});
    if (fresh)
      order.push_back(name);
    it->second = {std::min(it->second.first, line),
                  std::max(it->second.second, line)};
  }
  std::vector<std::string> parts;
  for (const std::string &name : order) {
    auto [lo, hi] = lines[name];
    parts.push_back(name + ":" + std::to_string(lo) +
                    (hi > lo ? "-" + std::to_string(hi) : ""));
  }
  return llvm::join(parts, ", ");
}

} // namespace

std::string hwreport::html::shortOpName(llvm::StringRef op) {
  // "byre.compute_on_tensor ConvOp" -> "ConvOp", "func.call @f" -> "@f",
  // "linalg.matmul" -> "matmul".
  size_t space = op.rfind(' ');
  if (space != llvm::StringRef::npos)
    return op.drop_front(space + 1).str();
  return op.drop_front(op.find('.') + 1).str();
}

std::vector<RegionNames> hwreport::html::regionNames(const FunctionReport &f) {
  std::vector<Place> places;
  for (const RegionReport &region : f.regions)
    places.push_back(parsePlace(region.location));
  size_t strip = commonFolder(places).size();
  std::vector<RegionNames> out;
  for (auto [region, place] : llvm::zip(f.regions, places)) {
    RegionNames names;
    names.layerList = place.layers;
    names.layers = range(place.layers);
    names.source = sources(place.files, strip);
    std::vector<std::string> ops;
    for (const auto &[op, count] : region.ops)
      ops.push_back(shortOpName(op) +
                    (count > 1 ? " \u00d7" + std::to_string(count) : ""));
    names.ops = llvm::join(ops, ", ");
    out.push_back(std::move(names));
  }
  return out;
}

ProgramNames
hwreport::html::programNames(const FunctionReport &f,
                             const ProgramReport &program,
                             const std::vector<RegionNames> &names) {
  std::vector<std::string> layers;
  std::vector<std::pair<std::string, int64_t>> ops;
  std::set<std::string> search;
  for (unsigned node : program.nodes) {
    if (node >= names.size())
      continue;
    for (const std::string &layer : names[node].layerList) {
      if (llvm::find(layers, layer) == layers.end())
        layers.push_back(layer);
      search.insert(layer);
    }
    if (!names[node].source.empty())
      search.insert(names[node].source);
    for (const auto &[op, count] : f.regions[node].ops) {
      std::string kind = shortOpName(op);
      search.insert(op);
      auto it =
          llvm::find_if(ops, [&](const auto &e) { return e.first == kind; });
      if (it == ops.end())
        ops.push_back({kind, count});
      else
        it->second += count;
    }
  }
  // The busiest kinds first: what the program mostly does.
  std::stable_sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) {
    return a.second > b.second;
  });
  std::vector<std::string> top;
  for (const auto &[kind, count] : ops) {
    if (top.size() == 3) {
      top.push_back("\u2026");
      break;
    }
    top.push_back(kind + (count > 1 ? " \u00d7" + std::to_string(count) : ""));
  }
  ProgramNames out;
  out.layers = range(layers);
  out.ops = llvm::join(top, ", ");
  out.search = llvm::join(search, " ");
  return out;
}
