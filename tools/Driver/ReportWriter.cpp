//===- ReportWriter.cpp - the partition report's outputs ------------------===//

#include "Driver/ReportWriter.h"

#include "HwAgent/Analysis/ReportModel.h"
#include "HwAgent/IR/HwAgentDialect.h"
#include "HwAgent/ReportHtml/HtmlReport.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::hwagent;

namespace {

/// Writes `text` to `path` ("-": stdout); "" or "cannot write <what>
/// '<path>': <reason>".
std::string writeOutput(StringRef what, StringRef path,
                        function_ref<void(raw_ostream &)> text) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return ("cannot write " + what + " '" + path + "': " + error).str();
  text(file->os());
  file->os().flush();
  if (file->os().has_error()) {
    std::string message = file->os().error().message();
    file->os().clear_error();
    return ("cannot write " + what + " '" + path + "': " + message).str();
  }
  file->keep();
  return "";
}

struct ReportWriter : public PartitionReportWriter {
  using PartitionReportWriter::PartitionReportWriter;

  std::string write(const hwreport::PartitionReport &report,
                    const ReportOutputs &outputs) const override {
    if (outputs.summary)
      hwreport::writeSummary(report, llvm::errs());
    std::string error;
    if (!outputs.json.empty())
      error = writeOutput("report", outputs.json, [&](raw_ostream &os) {
        hwreport::writeJson(report, os);
        os << "\n";
      });
    if (error.empty() && !outputs.dot.empty())
      error = writeOutput("dot file", outputs.dot, [&](raw_ostream &os) {
        hwreport::writeRegionGraph(report, os);
      });
    if (error.empty() && !outputs.html.empty())
      error = writeOutput("HTML report", outputs.html, [&](raw_ostream &os) {
        hwreport::HtmlReportInput page;
        page.partition = report;
        hwreport::writeHtmlReport(page, os);
      });
    return error;
  }
};

} // namespace

void hwagent::registerReportWriter(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, HwAgentDialect *dialect) {
    dialect->addInterfaces<ReportWriter>();
  });
}
