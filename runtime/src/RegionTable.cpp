//===- RegionTable.cpp - the table generated code hands the runtime -------===//

#include "RegionTable.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hwagent_rt {

const char *backendName(int backend) {
  static const char *const names[kNumBackends] = {"cpu", "ane", "gpu"};
  return backend >= 0 && backend < kNumBackends ? names[backend] : "unknown";
}

absl::StatusOr<RegionTable> parseRegionTable(absl::string_view text) {
  RegionTable table;
  std::vector<int> edgeLines;
  int lineNumber = 0;
  bool sawHeader = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++lineNumber;
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.empty())
      continue;
    auto bad = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat("region table line ", lineNumber, ": ", what));
    };
    if (!sawHeader) {
      int version = 0;
      if (f.size() != 2 || f[0] != "hwagent-region-table" ||
          !absl::SimpleAtoi(f[1], &version))
        return bad("expected 'hwagent-region-table <version>'");
      if (version != 1)
        return bad(absl::StrCat("version ", version,
                                " is not supported (this runtime reads 1)"));
      sawHeader = true;
      continue;
    }
    if (f[0] == "target" && f.size() == 2) {
      table.target = std::string(f[1]);
    } else if (f[0] == "region" && f.size() == 10) {
      RegionInfo r;
      r.key = std::string(f[2]);
      if (!absl::SimpleAtoi(f[1], &r.id) || !absl::SimpleAtoi(f[3], &r.assigned) ||
          !absl::SimpleAtoi(f[4], &r.legalMask) ||
          !absl::SimpleAtod(f[5], &r.predicted[0]) ||
          !absl::SimpleAtod(f[6], &r.predicted[1]) ||
          !absl::SimpleAtod(f[7], &r.predicted[2]) ||
          !absl::SimpleAtoi(f[8], &r.flops) || !absl::SimpleAtoi(f[9], &r.bytes))
        return bad("malformed region entry");
      if (r.assigned < 0 || r.assigned >= kNumBackends || !r.legal(r.assigned))
        return bad(absl::StrCat("region ", r.id,
                                " is assigned to a backend it cannot run on"));
      if (!r.legal(0))
        return bad(absl::StrCat("region ", r.id, " has no CPU variant"));
      if (!table.indexOf.try_emplace(r.id, table.regions.size()).second)
        return bad(absl::StrCat("region ", r.id, " is listed twice"));
      table.regions.push_back(std::move(r));
    } else if (f[0] == "edge" && (f.size() == 4 || f.size() == 5)) {
      EdgeInfo e;
      int converts = 1;
      if (!absl::SimpleAtoi(f[1], &e.from) || !absl::SimpleAtoi(f[2], &e.to) ||
          !absl::SimpleAtoi(f[3], &e.bytes) ||
          (f.size() == 5 && !absl::SimpleAtoi(f[4], &converts)))
        return bad("malformed edge entry");
      e.converts = converts != 0;
      table.edges.push_back(e);
      edgeLines.push_back(lineNumber);
    } else if (f[0] == "link" && f.size() == 4) {
      if (!absl::SimpleAtod(f[1], &table.linkBandwidth) ||
          !absl::SimpleAtod(f[2], &table.linkConvertBandwidth) ||
          !absl::SimpleAtod(f[3], &table.linkSync) || table.linkBandwidth <= 0)
        return bad("malformed link entry");
    } else if (f[0] == "pair" && f.size() == 6) {
      int from, to;
      RegionTable::Link link;
      if (!absl::SimpleAtoi(f[1], &from) || !absl::SimpleAtoi(f[2], &to) ||
          from < 0 || from >= kNumBackends || to < 0 || to >= kNumBackends ||
          from == to || !absl::SimpleAtod(f[3], &link.bandwidth) ||
          !absl::SimpleAtod(f[4], &link.convertBandwidth) ||
          !absl::SimpleAtod(f[5], &link.sync) || !(link.bandwidth > 0) ||
          !(link.convertBandwidth >= 0) || !(link.sync >= 0))
        return bad("malformed pair entry");
      link.present = true;
      table.pairs[from][to] = link;
    } else if (f[0] == "compile" && f.size() == 3) {
      int backend;
      double seconds;
      if (!absl::SimpleAtoi(f[1], &backend) || backend < 0 ||
          backend >= kNumBackends || !absl::SimpleAtod(f[2], &seconds))
        return bad("malformed compile entry");
      table.compile[backend] = seconds;
    } else {
      return bad(absl::StrCat("unknown entry '", f[0], "'"));
    }
  }
  if (!sawHeader)
    return absl::InvalidArgumentError("region table is empty");
  // Edges may precede the regions they name: resolve them at the end.
  table.incident.resize(table.regions.size());
  for (size_t i = 0; i < table.edges.size(); ++i) {
    EdgeInfo &e = table.edges[i];
    for (auto [id, index] : {std::pair<int64_t, int *>{e.from, &e.fromIndex},
                             std::pair<int64_t, int *>{e.to, &e.toIndex}}) {
      if (id == -1)
        continue;
      auto it = table.indexOf.find(id);
      if (it == table.indexOf.end())
        return absl::InvalidArgumentError(absl::StrCat(
            "region table line ", edgeLines[i], ": edge names unknown region ", id));
      *index = static_cast<int>(it->second);
    }
    if (e.fromIndex >= 0)
      table.incident[e.fromIndex].push_back(i);
    if (e.toIndex >= 0 && e.toIndex != e.fromIndex)
      table.incident[e.toIndex].push_back(i);
  }
  return table;
}

} // namespace hwagent_rt
