//===- ReportModel.h - the partition report model from the IR ---*- C++ -*-===//
//
// Collects what hwagent-assign-backends decided into the typed report model
// (HwAgent/Report/PartitionReport.h) once: the placement read from the
// annotated regions and the solver's plans, every program's cost on every
// backend, the regions' features and explanations. The renderers (JSON,
// DOT, the text summary, the HTML page) read the model; a
// PartitionReportWriter registered by the tool writes them, so that no pass
// links a renderer or starts a subprocess (Graphviz runs in the writer).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_REPORTMODEL_H
#define HWAGENT_ANALYSIS_REPORTMODEL_H

#include "HwAgent/Analysis/Partitioner.h"
#include "HwAgent/Report/PartitionReport.h"

#include "mlir/IR/DialectInterface.h"

#include <map>
#include <string>

namespace mlir::hwagent {

/// Beyond this many regions explanations do not price each region's move.
constexpr size_t kExactMarginRegions = 3000;

/// One function's placement: its partition, the strategies solved (the
/// chosen one, and every one when a report compares them) and the chosen.
struct SolvedPartition {
  FunctionPartition partition;
  std::map<::hwcore::Strategy, ::hwcore::StepSolution> results;
  ::hwcore::Strategy chosen;

  const ::hwcore::StepSolution &solution() const { return results.at(chosen); }
  const ::hwcore::StepPlan &plan() const { return solution().plan; }
};

/// How far the plan's objective is above the lower bound, in percent (0
/// over a power cap, where it is unknown).
double gapPercent(const ::hwcore::StepSolution &solution);

/// The report model of the placed functions of a module partitioned for
/// `target` under `strategy`. `explanations`: say why every region is
/// where it is (priced exactly up to kExactMarginRegions regions).
::hwreport::PartitionReport
describePartition(TargetAttr target, ::hwcore::Strategy strategy,
                  ArrayRef<SolvedPartition> functions, bool explanations);

/// Where a partition report goes (a pass's report=, dot=, html=, summary=).
struct ReportOutputs {
  /// JSON report ("-": stdout), Graphviz file, HTML page; empty: none.
  std::string json, dot, html;
  /// The text summary on stderr.
  bool summary = false;

  bool any() const {
    return summary || !json.empty() || !dot.empty() || !html.empty();
  }
};

/// Writes a partition report's outputs. The tool registers one on the
/// hwagent dialect (tools/Driver/InitAll.cpp: registerAllDialects); the
/// pass hands it the model.
class PartitionReportWriter
    : public DialectInterface::Base<PartitionReportWriter> {
public:
  explicit PartitionReportWriter(Dialect *dialect) : Base(dialect) {}
  /// Writes every output of `outputs`; "" or what could not be written
  /// ("cannot write report '<path>': <reason>").
  virtual std::string write(const ::hwreport::PartitionReport &report,
                            const ReportOutputs &outputs) const = 0;
};

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_REPORTMODEL_H
