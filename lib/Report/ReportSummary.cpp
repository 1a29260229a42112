//===- ReportSummary.cpp - the partition as a table on stderr -------------===//
//
// `summary=true`: per function every region's backend, program and cost
// alone on each backend, the programs, every strategy's step time and
// energy, the energy split and the gap to the lower bound. ANE and GPU
// times are the device model's predictions and say so.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Report/Format.h"
#include "HwAgent/Report/PartitionReport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace hwreport;

static void writeHeader(const PartitionReport &report, const FunctionReport &f,
                        llvm::raw_ostream &os) {
  os << llvm::formatv("hwagent partition of @{0} for {1} (strategy {2}", f.name,
                      report.target, hwcore::strategyName(f.chosen));
  if (f.objective != hwcore::Objective::time)
    os << ", objective " << hwcore::objectiveName(f.objective);
  if (f.powerCap > 0)
    os << llvm::formatv(", power cap {0:f2} W", f.powerCap);
  // The backends that scale run slower to meet the cap (DVFS).
  if (f.clock < 1)
    os << llvm::formatv(f.averagePower() <= f.powerCap * (1 + 1e-9)
                            ? " met at {0:f2} of the peak clock"
                            : " not met even at the lowest clock, {0:f2} of "
                              "the peak",
                        f.clock);
  for (unsigned label = 0; label < f.labels.size(); ++label)
    if (f.simulated[label])
      os << "; " << hwcore::backendName(f.labels[label])
         << " times are simulated predictions";
  os << ")\n";
}

static void writeRegions(const FunctionReport &f, llvm::raw_ostream &os) {
  os << llvm::formatv("  {0,-7} {1,-8} {2,-8}", "region", "backend", "program");
  for (hwcore::BackendKind backend : f.labels)
    os << llvm::formatv(" {0,12}", hwcore::backendName(backend));
  os << "  (alone)\n";
  for (const RegionReport &region : f.regions) {
    os << llvm::formatv("  {0,-7} {1,-8} {2,-8}", region.id,
                        hwcore::backendName(region.backend), region.program);
    for (double alone : region.alone)
      os << llvm::formatv(" {0,12}", formatSeconds(alone));
    os << "\n";
  }
}

static void writeTotals(const FunctionReport &f, llvm::raw_ostream &os) {
  const char *chosen = hwcore::strategyName(f.chosen);
  os << "  predicted step time:";
  for (auto [i, t] : llvm::enumerate(f.strategies))
    os << (i ? ", " : " ") << hwcore::strategyName(t.strategy) << " "
       << formatSeconds(t.seconds);
  os << "\n";
  os << "  predicted step energy (modelled):";
  for (auto [i, t] : llvm::enumerate(f.strategies))
    os << (i ? ", " : " ") << hwcore::strategyName(t.strategy) << " "
       << formatJoules(t.joules);
  os << llvm::formatv("\n  {0}: programs {1}, boundaries {2}, static {3}, "
                      "idle {4}; average power {5:f2} W\n",
                      chosen, formatJoules(f.programJoules),
                      formatJoules(f.boundaryJoules),
                      formatJoules(f.staticJoules), formatJoules(f.idleJoules),
                      f.averagePower());
  os << llvm::formatv("  {0}: {1}, programs {2}, boundaries {3}; "
                      "lower bound {4} (within {5:f1}%)\n",
                      chosen, formatCount(f.programs.size(), "program"),
                      formatSeconds(f.programSeconds),
                      formatSeconds(f.boundarySeconds),
                      formatObjective(f.objective, f.lowerBound), f.gapPercent);
}

void hwreport::writeSummary(const PartitionReport &report,
                            llvm::raw_ostream &os) {
  for (const FunctionReport &f : report.functions) {
    writeHeader(report, f, os);
    writeRegions(f, os);
    for (const ProgramReport &program : f.programs)
      os << "  " << program.description << "\n";
    writeTotals(f, os);
  }
}
