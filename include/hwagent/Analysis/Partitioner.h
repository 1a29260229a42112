//===- Partitioner.h - region graph and backend assignment ------*- C++ -*-===//
//
// Builds the graph of a function's regions (plus a host node pinned to the
// CPU for function arguments, results and ops outside regions), prices each
// placement from the regions' #hwagent.costs and each boundary from the
// target's links, and solves it with the partition solver under every
// strategy. The pass hwagent-assign-backends is a thin wrapper.
// docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_PARTITIONER_H
#define HWAGENT_ANALYSIS_PARTITIONER_H

#include "HwAgent/IR/HwAgentOps.h"
#include "hwagent/CostModel/Target.h"
#include "hwagent/Partition/Solver.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::hwagent {

/// Strategies hwagent-assign-backends offers (docs/partitioning.md).
enum class PartitionStrategy { Optimal, Greedy, Local, Cpu, Ane };
const char *stringifyPartitionStrategy(PartitionStrategy strategy);
constexpr PartitionStrategy kAllStrategies[] = {
    PartitionStrategy::Optimal, PartitionStrategy::Greedy,
    PartitionStrategy::Local, PartitionStrategy::Cpu, PartitionStrategy::Ane};

/// "12.3 us" / "4.56 ms" / "1.23 s"; "illegal" for an infinite time.
std::string formatSeconds(double seconds);

/// A value flowing from one node to another (host = last node).
struct RegionFlow {
  unsigned from = 0, to = 0;
  Value value;
  int64_t bytes = 0;
  /// f32 data that the ANE side would convert to f16.
  bool floatData = false;
};

class FunctionPartition {
public:
  /// Fails with a diagnostic when a region lacks costs or no backend of the
  /// target can run one.
  static FailureOr<FunctionPartition>
  build(FunctionOpInterface function, const ::hwcore::TargetDescription &target);

  FunctionOpInterface getFunction() const { return function; }
  MutableArrayRef<RegionOp> getRegions() const { return regions; }
  ArrayRef<RegionFlow> getFlows() const { return flows; }
  unsigned getHostNode() const { return regions.size(); }
  /// Backends in label order.
  ArrayRef<::hwcore::BackendKind> getLabels() const { return labels; }

  /// Solves under `strategy`: labels per node (host last) and objective.
  FailureOr<::hwcore::PartitionResult> solve(PartitionStrategy strategy) const;

  /// Region time alone on `label` (kIllegal if illegal).
  double unaryCost(unsigned node, unsigned label) const {
    return problem.unary[node][label];
  }
  /// Boundary seconds a node pays under `labels` (its incident edges).
  double boundaryCost(unsigned node, const std::vector<unsigned> &labels) const;
  /// Boundary seconds of a whole assignment.
  double totalBoundaryCost(const std::vector<unsigned> &labels) const;
  /// Seconds to move `flow` from label a to label b.
  double flowCost(const RegionFlow &flow, unsigned a, unsigned b) const;

  /// One sentence per region on why it goes where it goes.
  std::string explain(unsigned node, const std::vector<unsigned> &labels) const;

private:
  mutable FunctionOpInterface function;
  const ::hwcore::TargetDescription *target = nullptr;
  mutable std::vector<RegionOp> regions;
  std::vector<RegionFlow> flows;
  std::vector<::hwcore::BackendKind> labels;
  ::hwcore::PartitionProblem problem;
};

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_PARTITIONER_H
