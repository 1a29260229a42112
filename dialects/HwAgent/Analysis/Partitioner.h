//===- Partitioner.h - the step graph of a function -------------*- C++ -*-===//
//
// Builds the partition problem of a function (HwAgent/Core/Programs.h) from
// its regions' #hwagent.costs and the module's #hwagent.target: one node per
// region plus a host node pinned to the CPU for function arguments, results
// and ops outside regions; one edge per value flowing between nodes. Solves
// it under every strategy and says in words why each region and program is
// where it is. hwagent-assign-backends is a thin wrapper.
// docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_PARTITIONER_H
#define HWAGENT_ANALYSIS_PARTITIONER_H

#include "HwAgent/Core/Programs.h"
#include "HwAgent/IR/HwAgentOps.h"
#include "HwAgent/Report/Format.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <vector>

namespace mlir::hwagent {

/// The compiler's units as text (HwAgent/Report/Format.h).
using ::hwreport::formatJoules;
using ::hwreport::formatSeconds;

/// `seconds` to four significant digits: predictions are not more precise
/// than that, and the IR stays readable.
double roundSeconds(double seconds);

/// A region's cost on a backend as the partitioner prices it: the cost
/// model's terms when the entry has them, else its seconds as compute; on
/// `backend`, whose description says whether its traffic overlaps compute.
::hwcore::RegionCost regionCost(BackendCostAttr entry,
                                const ::hwcore::BackendDescription &backend);

/// A value flowing from one node to another (host = last node).
struct RegionFlow {
  unsigned from = 0, to = 0;
  Value value;
  int64_t bytes = 0;
  /// f32 data that an fp16 backend would convert.
  bool floatData = false;
};

class FunctionPartition {
public:
  /// Fails with a diagnostic when a region lacks costs for a backend of
  /// the target or no backend can run it. `updateEvery`: steps per weight
  /// update (weight handling is spread over them).
  static FailureOr<FunctionPartition>
  build(FunctionOpInterface function, TargetAttr target, bool training,
        int64_t updateEvery = 1,
        ::hwcore::Objective objective = ::hwcore::Objective::time,
        double powerCap = 0);

  FunctionOpInterface getFunction() const { return function; }
  MutableArrayRef<RegionOp> getRegions() const { return regions; }
  ArrayRef<RegionFlow> getFlows() const { return flows; }
  unsigned getHostNode() const { return regions.size(); }
  const ::hwcore::StepGraph &getGraph() const { return graph; }
  ::hwcore::BackendKind getBackend(unsigned label) const {
    return graph.backends[label].kind;
  }
  bool isSimulated(unsigned label) const {
    return graph.backends[label].simulated;
  }

  FailureOr<::hwcore::StepSolution> solve(::hwcore::Strategy strategy) const;

  /// The region alone as a program on `label` (its #hwagent.costs entry).
  double standaloneCost(unsigned region, unsigned label) const;
  /// Its joules alone on `label` (the program's, the host's and the
  /// package's static power over its seconds).
  double standaloneEnergy(unsigned region, unsigned label) const;
  /// An objective's value as text: seconds, joules or joule-seconds.
  std::string formatObjective(double value) const;
  /// What the objective traded for region's placement on `chosen` (empty
  /// under the time objective without a cap).
  std::string objectiveTrade(unsigned region, unsigned chosen) const;
  /// Program `program` of `plan` if it were placed on `label` (illegal when
  /// one of its regions cannot run there).
  ::hwcore::ProgramCost programCostOn(const ::hwcore::StepPlan &plan,
                                      unsigned program, unsigned label) const;
  /// Seconds to move `flow` between the backends of labels a and b (its
  /// share of a boundary, without the synchronization).
  double flowCost(const RegionFlow &flow, unsigned a, unsigned b) const;

  /// One sentence on why a region is where `plan` put it, naming its
  /// program; `margins` prices moving it exactly (skipped on very large
  /// graphs, where it says so).
  std::string explain(unsigned region, const ::hwcore::StepPlan &plan,
                      bool margins = true) const;
  /// One sentence on a program: backend, regions, launch, weights.
  std::string describeProgram(const ::hwcore::StepPlan &plan,
                              unsigned program) const;

private:
  // Op handles are not const-correct: a const partition still names ops.
  mutable FunctionOpInterface function;
  mutable std::vector<RegionOp> regions;
  std::vector<RegionFlow> flows;
  ::hwcore::StepGraph graph;
};

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_PARTITIONER_H
