//===- Graph.cpp - the program graph, drawn by Graphviz -------------------===//
//
// The page's graph (hwreport::programGraph, the DOT writer) laid out by
// Graphviz here, in the report writer (`dot -Tsvg` as a program, with a
// timeout); docs/report.md says why not a JavaScript layout library.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace hwreport;
using namespace hwreport::html;

llvm::Expected<std::string> hwreport::renderGraphviz(llvm::StringRef dot,
                                                     llvm::StringRef program) {
  std::string path = program.str();
  if (path.empty()) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("dot");
    if (!found)
      return llvm::createStringError(
          "Graphviz's 'dot' is not installed (Debian: apt install graphviz)");
    path = *found;
  }
  llvm::SmallString<128> in, out;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("hwagent-graph", "dot", fd, in))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  {
    llvm::raw_fd_ostream file(fd, /*shouldClose=*/true);
    file << dot;
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("hwagent-graph", "svg", out)) {
    llvm::sys::fs::remove(in);
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  }
  std::string message;
  llvm::StringRef args[] = {path, "-Tsvg", "-o", out, in};
  int status = llvm::sys::ExecuteAndWait(path, args, std::nullopt, {},
                                         /*SecondsToWait=*/120, 0, &message);
  llvm::sys::fs::remove(in);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> svg =
      llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (status != 0 || !svg)
    return llvm::createStringError(
        "Graphviz failed" + (message.empty() ? "" : ": " + message) +
        (status > 0 ? " (exit " + std::to_string(status) + ")" : ""));
  llvm::StringRef text = (*svg)->getBuffer();
  size_t start = text.find("<svg");
  if (start == llvm::StringRef::npos)
    return llvm::createStringError("Graphviz wrote no SVG");
  return text.drop_front(start).str();
}
