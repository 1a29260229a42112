//===- ReportWriter.h - the partition report's outputs ----------*- C++ -*-===//
//
// The report writer the tools register on the hwagent dialect
// (registerAllDialects): hwagent-assign-backends hands it the report model
// and it writes the JSON report, the DOT graph, the text summary and the
// HTML page (Graphviz runs here, in the writer, never in a pass).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_DRIVER_REPORTWRITER_H
#define HWAGENT_DRIVER_REPORTWRITER_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::hwagent {

/// Adds the report writer to the hwagent dialect of every context built
/// from `registry`.
void registerReportWriter(DialectRegistry &registry);

} // namespace mlir::hwagent

#endif // HWAGENT_DRIVER_REPORTWRITER_H
