//===- Programs.h - programs, step time and the partitioner -----*- C++ -*-===//
//
// The unit a chip launches is a program: a convex, connected set of regions
// placed on one backend, compiled together and launched once. This file
// turns a placement of regions into programs, prices the step exactly as
// the device model says (each program once, boundaries between programs)
// and searches for the placement with the least step time.
//
// Programs of a placement: for each backend b, a region's level is the
// largest number of times a path from another b-region to it leaves the
// b-regions. Regions of one backend and one level that are connected form
// a program. Such a program is convex (a path between two of its regions
// that left the backend would raise the level) and the program graph is
// acyclic, so a program can be compiled and launched as one unit.
//
// The step time is not a sum of pairwise terms (a program's launch is paid
// once however many regions it has; its utilization depends on its FLOPs),
// so the partitioner solves a pairwise surrogate exactly (min-cut) or by
// alpha-expansion, prices candidate placements exactly, and refines the
// best with program- and region-level moves priced exactly. A lower bound
// (min-cut of a relaxation that under-prices every term) says how far the
// result can be from the optimum. docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_PROGRAMS_H
#define HWAGENT_CORE_PROGRAMS_H

#include "HwAgent/Core/CostModel.h"
#include "HwAgent/Core/Energy.h"

#include <optional>
#include <string>
#include <vector>

namespace hwcore {

/// The partition problem of one function.
struct StepGraph {
  /// Backends in label order. The host (function arguments and results,
  /// ops between regions) runs on `hostLabel`, the CPU.
  std::vector<BackendDescription> backends;
  unsigned hostLabel = 0;
  /// costs[region][label]; regions are numbered in a topological order.
  std::vector<std::vector<RegionCost>> costs;
  /// A value flowing between two nodes; node numRegions() is the host.
  struct Edge {
    unsigned from = 0, to = 0;
    int64_t bytes = 0;
    /// Bytes of f32 data (converted when crossing to or from the ANE).
    int64_t convertBytes = 0;
  };
  std::vector<Edge> edges;
  /// Regions that read a value an op between regions computes, or whose
  /// result such an op reads (empty: none). Such a region keeps its place
  /// next to those ops: its program never merges with an independent one.
  std::vector<bool> hostOrdered;
  /// links[a][b]: from label a to label b.
  std::vector<std::vector<LinkDescription>> links;
  /// Time multiplier per label from telemetry.
  std::vector<double> telemetryFactor;
  /// The package's static power (TargetDescription::staticPower).
  double staticPower = 0;
  /// What the optimal placement minimizes, and the most average watts a
  /// placement may draw over the step (0 = no cap).
  Objective objective = Objective::time;
  double powerCap = 0;
  CostOptions options;

  unsigned numRegions() const { return costs.size(); }
  unsigned numLabels() const { return backends.size(); }
  unsigned host() const { return numRegions(); }
  bool legal(unsigned region, unsigned label) const {
    return costs[region][label].legal;
  }
  /// The label of `kind`, if the target has it.
  std::optional<unsigned> labelOf(BackendKind kind) const;
  /// Checks the graph's shape (a cost per label, edges within range,
  /// region edges forward in the numbering); "" or what is wrong.
  std::string validate() const;
};

struct Program {
  unsigned label = 0;
  /// Its regions, ascending.
  std::vector<unsigned> regions;
  ProgramCost cost;
};

/// A placement, its programs and its exact step time.
struct StepPlan {
  std::vector<unsigned> labels;
  /// Program of each region (an index into `programs`).
  std::vector<unsigned> programOf;
  /// In a topological order of the program graph.
  std::vector<Program> programs;
  /// Data between two programs (-1: the host), summed per ordered pair.
  struct Boundary {
    int from = -1, to = -1;
    int64_t bytes = 0, convertBytes = 0;
    double seconds = 0;
  };
  std::vector<Boundary> boundaries;
  double programSeconds = 0;
  double boundarySeconds = 0;
  /// Infinite when a region is placed where it is illegal.
  double total = 0;
  /// Joules of the step (modelled, docs/cost-model.md "Energy"): its
  /// programs (backend and host), its boundaries (the host copying and
  /// converting), the package's static power and every backend's idle
  /// power while it waits, over the step time.
  double programJoules = 0;
  double boundaryJoules = 0;
  double staticJoules = 0;
  double idleJoules = 0;
  double joules = 0;
  /// What the search minimized (objectiveValue of seconds and joules).
  double objective = 0;
  /// The clock of the backends that scale, a share of their peak (each at
  /// no less than its minClock): below 1 when the placement at the peak
  /// draws more than the power cap (docs/partitioning.md "Power cap").
  double clock = 1;

  /// Average watts over the step.
  double averagePower() const { return total > 0 ? joules / total : 0; }

  bool legal() const;
  /// Boundary seconds of the boundaries touching program `p`.
  double boundarySecondsOf(unsigned p) const;
};

/// The value `graph.objective` gives a step of `seconds` and `joules`
/// (hwcore::objectiveValue under the graph's objective and power cap).
double objectiveValue(const StepGraph &graph, double seconds, double joules);
/// The graph's power model (its labels' backends, its host).
PowerModel powerModel(const StepGraph &graph);

/// A program's joules with the package's static power over its seconds:
/// what it adds to a step's energy (idle power aside).
inline double programEnergy(const StepGraph &graph, const ProgramCost &cost) {
  return cost.joules + cost.hostJoules + graph.staticPower * cost.seconds;
}

/// Forms the programs of `labels` and prices the step.
StepPlan evaluatePlan(const StepGraph &graph,
                      const std::vector<unsigned> &labels);

struct StepSolution {
  StepPlan plan;
  /// No placement is faster than this (docs/partitioning.md).
  double lowerBound = 0;
  /// Min-cuts solved, exact evaluations, refinement moves accepted.
  unsigned cuts = 0;
  unsigned evaluations = 0;
  unsigned moves = 0;
};

/// Places every region under `strategy`. Fails (nullopt, `error` set) when
/// a region has no legal backend.
std::optional<StepSolution> solveStep(const StepGraph &graph, Strategy strategy,
                                      std::string &error);

/// Exhaustive search over every placement (labels ^ regions), for tests.
StepPlan solveStepBruteForce(const StepGraph &graph);

/// The lower bound alone.
double stepLowerBound(const StepGraph &graph, unsigned *cuts = nullptr);

} // namespace hwcore

#endif // HWAGENT_CORE_PROGRAMS_H
