//===- RunReport.cpp - the HTML page of a partition and a run -------------===//

#include "HwAgent/Config/RunReport.h"

#include "HwAgent/Config/HtmlReport.h"
#include "HwAgent/Config/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace hwconfig;

bool hwconfig::writeRunReport(const std::string &htmlPath,
                              const std::string &reportPath,
                              const std::string &logPath, HtmlReportInput input,
                              llvm::raw_ostream &errs) {
  std::string error;
  std::optional<std::string> reportText = readTextFile(reportPath, error);
  if (!reportText) {
    errs << "hwagent: " << error << "\n";
    return false;
  }
  int64_t version = 0;
  std::optional<llvm::json::Value> partition =
      parseDocument(*reportText, "hwagent.partition", 4, 4, version, error);
  if (!partition) {
    errs << "hwagent: " << reportPath << ": " << error << "\n";
    return false;
  }
  input.partition = std::move(*partition);
  if (!logPath.empty()) {
    std::optional<std::string> log = readTextFile(logPath, error);
    if (!log) {
      errs << "hwagent: " << error << "\n";
      return false;
    }
    if (input.runSource.empty())
      input.runSource = logPath;
    int64_t line = 0;
    for (llvm::StringRef text : llvm::split(*log, '\n')) {
      ++line;
      if (text.trim().empty())
        continue;
      llvm::Expected<llvm::json::Value> record = llvm::json::parse(text);
      if (!record) {
        errs << "hwagent: " << logPath << ":" << line << ": "
             << llvm::toString(record.takeError()) << "\n";
        return false;
      }
      input.run.push_back(std::move(*record));
    }
  }
  std::error_code ec;
  auto file = std::make_unique<llvm::ToolOutputFile>(htmlPath, ec,
                                                     llvm::sys::fs::OF_Text);
  if (ec) {
    errs << "hwagent: cannot write '" << htmlPath << "': " << ec.message()
         << "\n";
    return false;
  }
  if (llvm::Error failed = writeHtmlReport(input, file->os())) {
    errs << "hwagent: " << reportPath << ": "
         << llvm::toString(std::move(failed)) << "\n";
    return false;
  }
  file->os().flush();
  if (file->os().has_error()) {
    errs << "hwagent: cannot write '" << htmlPath
         << "': " << file->os().error().message() << "\n";
    file->os().clear_error();
    return false;
  }
  file->keep();
  return true;
}
