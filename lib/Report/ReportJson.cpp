//===- ReportJson.cpp - the partition report as JSON and back -------------===//
//
// Schema hwagent.partition, version 4 (docs/partitioning.md): written from
// the model, and read back into it for the pages of saved reports
// (hwagent-report, hwagent-run --html). JSON has no infinity and no NaN:
// every non-finite number (an illegal time, joules or watts that overflowed)
// is written as null and read back as infinity, so that a report is always
// valid JSON (issue 38, item 15).
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Report/PartitionReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace hwreport;
namespace json = llvm::json;

unsigned FunctionReport::labelOf(hwcore::BackendKind backend) const {
  for (unsigned l = 0; l < labels.size(); ++l)
    if (labels[l] == backend)
      return l;
  return labels.size();
}

const StrategyTotals *FunctionReport::totals(hwcore::Strategy strategy) const {
  for (const StrategyTotals &t : strategies)
    if (t.strategy == strategy)
      return &t;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// JSON has no infinity or NaN: a non-finite number is written as null
/// (llvm::json would print a bare `inf`, which no JSON reader accepts).
static json::Value number(double value) {
  if (!std::isfinite(value))
    return nullptr;
  return value;
}

static void writeProgram(json::OStream &json, const ProgramReport &program) {
  json.object([&] {
    json.attribute("id", program.id);
    json.attribute("backend", hwcore::backendName(program.backend));
    json.attributeArray("regions", [&] {
      for (int64_t id : program.regions)
        json.value(id);
    });
    json.attribute("seconds", number(program.seconds));
    json.attribute("launch", number(program.launch));
    json.attribute("compute", number(program.compute));
    json.attribute("memory", number(program.memory));
    json.attribute("weights", number(program.weights));
    json.attribute("weight_update",
                   hwcore::weightUpdateName(program.weightUpdate));
    json.attribute("weight_bytes", program.weightBytes);
    json.attribute("utilization", number(program.utilization));
    json.attribute("joules", number(program.joules));
    json.attribute("host_joules", number(program.hostJoules));
    json.attribute("binding", program.binding);
    json.attribute("description", program.description);
    // Version 4: the same program on every backend.
    json.attributeObject("on_backends", [&] {
      for (const BackendCost &cost : program.onBackends)
        json.attributeObject(hwcore::backendName(cost.backend), [&] {
          json.attribute("legal", cost.legal);
          if (!cost.legal) {
            json.attribute("reason", cost.text);
            return;
          }
          json.attribute("seconds", number(cost.seconds));
          json.attribute("joules", number(cost.joules));
          json.attribute("weight_update",
                         hwcore::weightUpdateName(cost.weightUpdate));
        });
    });
  });
}

static void writeRegion(json::OStream &json, const RegionReport &region) {
  json.object([&] {
    json.attribute("id", region.id);
    json.attribute("key", region.key);
    json.attribute("backend", hwcore::backendName(region.backend));
    json.attribute("program", region.program);
    json.attributeObject("costs", [&] {
      for (const BackendCost &cost : region.costs)
        json.attributeObject(hwcore::backendName(cost.backend), [&] {
          json.attribute("legal", cost.legal);
          if (cost.legal) {
            json.attribute("seconds", number(cost.seconds));
            json.attribute("note", cost.text);
          } else {
            json.attribute("reason", cost.text);
          }
        });
    });
    json.attribute("explanation", region.explanation);
    // Version 4: where the region is, its phase and features.
    json.attribute("location", region.location);
    if (region.phase)
      json.attribute("phase", hwcore::phaseName(*region.phase));
    if (const std::optional<RegionFeatures> &f = region.features)
      json.attributeObject("features", [&] {
        json.attribute("flops", f->flops);
        json.attribute("bytes_read", f->bytesRead);
        json.attribute("bytes_written", f->bytesWritten);
        json.attribute("params", f->params);
        json.attribute("param_bytes", f->paramBytes);
        json.attribute("rows", f->rows);
        json.attribute("max_dim", f->maxDim);
        json.attribute("dynamic_dims", f->dynamicDims);
        json.attribute("has_loops", f->hasLoops);
      });
    // Optional in version 4 (older reports lack it): its ops by name.
    if (!region.ops.empty())
      json.attributeArray("ops", [&] {
        for (const auto &[name, count] : region.ops)
          json.object([&] {
            json.attribute("op", name);
            json.attribute("count", count);
          });
      });
  });
}

static void writeFunction(json::OStream &json, const FunctionReport &f) {
  auto node = [](int64_t program) -> json::Value {
    if (program < 0)
      return "host";
    return program;
  };
  json.object([&] {
    json.attribute("name", f.name);
    json.attributeObject("step_time", [&] {
      for (const StrategyTotals &t : f.strategies)
        json.attribute(hwcore::strategyName(t.strategy), number(t.seconds));
    });
    // Joules per step under every strategy and the chosen plan's split:
    // modelled from the target's power values, never measured.
    json.attributeObject("step_energy", [&] {
      for (const StrategyTotals &t : f.strategies)
        json.attribute(hwcore::strategyName(t.strategy), number(t.joules));
    });
    json.attributeObject("energy", [&] {
      json.attribute("programs", number(f.programJoules));
      json.attribute("boundaries", number(f.boundaryJoules));
      json.attribute("static", number(f.staticJoules));
      json.attribute("idle", number(f.idleJoules));
      json.attribute("average_power", number(f.averagePower()));
    });
    json.attribute("program_time", number(f.programSeconds));
    json.attribute("boundary_time", number(f.boundarySeconds));
    // The objective and its lower bound: seconds, joules or joule-seconds.
    json.attribute("objective", hwcore::objectiveName(f.objective));
    json.attribute("power_cap", number(f.powerCap));
    json.attribute("clock", number(f.clock));
    json.attribute("lower_bound", number(f.lowerBound));
    json.attribute("gap_to_lower_bound", number(f.gapPercent / 100.0));
    json.attribute("evaluations", f.evaluations);
    json.attributeArray("programs", [&] {
      for (const ProgramReport &program : f.programs)
        writeProgram(json, program);
    });
    json.attributeArray("regions", [&] {
      for (const RegionReport &region : f.regions)
        writeRegion(json, region);
    });
    json.attributeArray("boundaries", [&] {
      for (const BoundaryReport &b : f.boundaries)
        json.object([&] {
          json.attribute("from", node(b.from));
          json.attribute("to", node(b.to));
          json.attribute("bytes", b.bytes);
          json.attribute("converted_bytes", b.convertedBytes);
          json.attribute("seconds", number(b.seconds));
        });
    });
  });
}

void hwreport::writeJson(const PartitionReport &report, llvm::raw_ostream &os) {
  json::OStream json(os, 2);
  json.object([&] {
    json.attribute("schema", "hwagent.partition");
    json.attribute("version", kPartitionSchemaVersion);
    json.attribute("target", report.target);
    json.attribute("strategy", hwcore::strategyName(report.strategy));
    json.attributeArray("simulated_backends", [&] {
      for (hwcore::BackendKind b : report.simulated)
        json.value(hwcore::backendName(b));
    });
    json.attributeArray("functions", [&] {
      for (const FunctionReport &f : report.functions)
        writeFunction(json, f);
    });
  });
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Reads one saved report; the first error is kept with the path of what
/// was being read ("functions[0].programs[2].backend: ...").
class Reader {
public:
  std::string error;

  double number(const json::Object &o, llvm::StringRef key,
                double missing = 0) {
    const json::Value *v = o.get(key);
    if (!v)
      return missing;
    if (v->getAsNull())
      return kInf;
    if (std::optional<double> d = v->getAsNumber())
      return *d;
    fail(key, "expected a number");
    return missing;
  }
  /// A count or an id: null, a fraction or one past int64 reads as 0
  /// (converting it would be undefined).
  int64_t integer(const json::Object &o, llvm::StringRef key) {
    double d = number(o, key);
    return std::isfinite(d) && std::abs(d) < 9e18 ? int64_t(d) : 0;
  }
  std::string text(const json::Object &o, llvm::StringRef key) {
    if (std::optional<llvm::StringRef> v = o.getString(key))
      return v->str();
    return "";
  }
  template <typename T>
  T word(std::optional<T> parsed, llvm::StringRef what, llvm::StringRef name) {
    if (!parsed) {
      fail(what, "unknown name '" + name.str() + "'");
      return T{};
    }
    return *parsed;
  }
  hwcore::BackendKind backend(llvm::StringRef name) {
    return word(hwcore::parseBackendName(name.str()), "backend", name);
  }
  hwcore::WeightUpdate weightUpdate(llvm::StringRef name) {
    if (name.empty())
      return hwcore::WeightUpdate::none;
    return word(hwcore::parseWeightUpdateName(name.str()), "weight_update",
                name);
  }
  void fail(llvm::StringRef what, const std::string &message) {
    if (error.empty())
      error = (context + what + ": " + message).str();
  }

  std::string context;

  BackendCost cost(llvm::StringRef name, const json::Object &o, bool region) {
    BackendCost c;
    c.backend = backend(name);
    c.legal = o.getBoolean("legal").value_or(false);
    c.seconds = number(o, "seconds", kInf);
    c.joules = number(o, "joules");
    if (!region)
      c.weightUpdate = weightUpdate(text(o, "weight_update"));
    c.text = text(o, c.legal ? (region ? "note" : "") : "reason");
    return c;
  }

  /// An object's members in the order of the vocabulary's backends.
  template <typename Fn> void perBackend(const json::Object *o, Fn fn) {
    if (!o)
      return;
    for (const auto &[key, value] : *o)
      if (!hwcore::parseBackendName(key.str()))
        fail(key, "unknown backend");
    for (hwcore::BackendKind b : hwcore::kAllBackends)
      if (const json::Object *entry = o->getObject(hwcore::backendName(b)))
        fn(hwcore::backendName(b), *entry);
  }

  ProgramReport program(const json::Object &o) {
    ProgramReport p;
    p.id = integer(o, "id");
    p.backend = backend(text(o, "backend"));
    if (const json::Array *regions = o.getArray("regions"))
      for (const json::Value &r : *regions)
        p.regions.push_back(r.getAsInteger().value_or(0));
    p.seconds = number(o, "seconds", kInf);
    p.launch = number(o, "launch");
    p.compute = number(o, "compute");
    p.memory = number(o, "memory");
    p.weights = number(o, "weights");
    p.weightUpdate = weightUpdate(text(o, "weight_update"));
    p.weightBytes = integer(o, "weight_bytes");
    p.utilization = number(o, "utilization", 1);
    p.joules = number(o, "joules");
    p.hostJoules = number(o, "host_joules");
    p.binding = text(o, "binding");
    p.description = text(o, "description");
    perBackend(o.getObject("on_backends"),
               [&](llvm::StringRef name, const json::Object &entry) {
                 p.onBackends.push_back(cost(name, entry, false));
               });
    return p;
  }

  RegionReport region(const json::Object &o) {
    RegionReport r;
    r.id = integer(o, "id");
    r.key = text(o, "key");
    r.backend = backend(text(o, "backend"));
    r.program = integer(o, "program");
    perBackend(o.getObject("costs"),
               [&](llvm::StringRef name, const json::Object &entry) {
                 r.costs.push_back(cost(name, entry, true));
               });
    r.explanation = text(o, "explanation");
    r.location = text(o, "location");
    std::string phase = text(o, "phase");
    for (hwcore::Phase p : {hwcore::Phase::unknown, hwcore::Phase::forward,
                            hwcore::Phase::backward, hwcore::Phase::optimizer,
                            hwcore::Phase::mixed})
      if (!phase.empty() && phase == hwcore::phaseName(p))
        r.phase = p;
    if (const json::Object *f = o.getObject("features")) {
      RegionFeatures features;
      features.flops = integer(*f, "flops");
      features.bytesRead = integer(*f, "bytes_read");
      features.bytesWritten = integer(*f, "bytes_written");
      features.params = integer(*f, "params");
      features.paramBytes = integer(*f, "param_bytes");
      features.rows = integer(*f, "rows");
      features.maxDim = integer(*f, "max_dim");
      features.dynamicDims = integer(*f, "dynamic_dims");
      features.hasLoops = f->getBoolean("has_loops").value_or(false);
      r.features = features;
    }
    if (const json::Array *ops = o.getArray("ops"))
      for (const json::Value &op : *ops)
        if (const json::Object *entry = op.getAsObject())
          r.ops.push_back({text(*entry, "op"), integer(*entry, "count")});
    return r;
  }

  void totals(const json::Object &o, FunctionReport &f) {
    const json::Object *times = o.getObject("step_time");
    const json::Object *energy = o.getObject("step_energy");
    if (times)
      for (const auto &[key, value] : *times)
        if (!hwcore::parseStrategyName(key.str()))
          fail("step_time", "unknown strategy '" + key.str() + "'");
    for (hwcore::Strategy s : hwcore::kAllStrategies)
      if (times && times->get(hwcore::strategyName(s)))
        f.strategies.push_back(
            {s, number(*times, hwcore::strategyName(s), kInf),
             energy ? number(*energy, hwcore::strategyName(s), kInf) : kInf});
  }

  FunctionReport function(const json::Object &o) {
    FunctionReport f;
    f.name = text(o, "name");
    totals(o, f);
    if (const json::Object *e = o.getObject("energy")) {
      f.programJoules = number(*e, "programs");
      f.boundaryJoules = number(*e, "boundaries");
      f.staticJoules = number(*e, "static");
      f.idleJoules = number(*e, "idle");
      f.joules =
          f.programJoules + f.boundaryJoules + f.staticJoules + f.idleJoules;
    }
    f.programSeconds = number(o, "program_time");
    f.boundarySeconds = number(o, "boundary_time");
    f.seconds = f.programSeconds + f.boundarySeconds;
    f.objective = word(hwcore::parseObjectiveName(text(o, "objective")),
                       "objective", text(o, "objective"));
    f.powerCap = number(o, "power_cap");
    f.clock = number(o, "clock", 1.0);
    f.lowerBound = number(o, "lower_bound", kInf);
    f.gapPercent = 100 * number(o, "gap_to_lower_bound");
    f.evaluations =
        unsigned(std::clamp<int64_t>(integer(o, "evaluations"), 0, UINT32_MAX));
    auto each = [&](llvm::StringRef key, auto fn) {
      if (const json::Array *list = o.getArray(key))
        for (auto [i, v] : llvm::enumerate(*list))
          if (const json::Object *item = v.getAsObject()) {
            std::string saved = context;
            context += (key + "[" + llvm::Twine(i) + "].").str();
            fn(*item);
            context = saved;
          }
    };
    each("programs", [&](const json::Object &p) {
      f.programs.push_back(program(p));
      if (f.labelOf(f.programs.back().backend) == f.labels.size())
        f.labels.push_back(f.programs.back().backend);
    });
    each("regions",
         [&](const json::Object &r) { f.regions.push_back(region(r)); });
    // A program's nodes are its regions' places in `regions` (the IR side
    // fills them; here they are found again by id).
    std::map<int64_t, unsigned> place;
    for (auto [i, r] : llvm::enumerate(f.regions))
      place[r.id] = i;
    for (ProgramReport &p : f.programs)
      for (int64_t id : p.regions)
        if (auto it = place.find(id); it != place.end())
          p.nodes.push_back(it->second);
    each("boundaries", [&](const json::Object &b) {
      BoundaryReport boundary;
      const json::Value *from = b.get("from"), *to = b.get("to");
      boundary.from = from ? from->getAsInteger().value_or(-1) : -1;
      boundary.to = to ? to->getAsInteger().value_or(-1) : -1;
      boundary.bytes = integer(b, "bytes");
      boundary.convertedBytes = integer(b, "converted_bytes");
      boundary.seconds = number(b, "seconds", kInf);
      f.boundaries.push_back(boundary);
    });
    return f;
  }
};
} // namespace

llvm::Expected<PartitionReport> hwreport::readJson(const json::Value &value) {
  const json::Object *o = value.getAsObject();
  if (!o || o->getString("schema") != "hwagent.partition")
    return llvm::createStringError("not a partition report");
  const json::Array *functions = o->getArray("functions");
  if (!functions)
    return llvm::createStringError("the partition report has no functions");
  Reader reader;
  PartitionReport report;
  report.target = reader.text(*o, "target");
  report.strategy =
      reader.word(hwcore::parseStrategyName(reader.text(*o, "strategy")),
                  "strategy", reader.text(*o, "strategy"));
  if (const json::Array *s = o->getArray("simulated_backends"))
    for (const json::Value &b : *s)
      if (std::optional<llvm::StringRef> name = b.getAsString())
        report.simulated.push_back(reader.backend(*name));
  for (auto [i, f] : llvm::enumerate(*functions)) {
    const json::Object *fn = f.getAsObject();
    if (!fn)
      continue;
    reader.context = llvm::formatv("functions[{0}].", i).str();
    report.functions.push_back(reader.function(*fn));
    // The report's strategy is what every function's placement applied.
    report.functions.back().chosen = report.strategy;
  }
  if (!reader.error.empty())
    return llvm::createStringError(reader.error);
  return report;
}
