//===- Version.h - the tools' --version -------------------------*- C++ -*-===//
//
// Every hwagent tool answers --version with hwagent's version and the commit
// it was configured from, then the LLVM/MLIR it was built with (LLVM's own
// printer would name only LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_DRIVER_VERSION_H
#define HWAGENT_DRIVER_VERSION_H

#include "HwAgent/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::hwagent {

/// Installs the --version printer; call before parsing the command line.
inline void setVersionPrinter(llvm::StringRef tool) {
  static std::string name;
  name = tool.str();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << name << " (hwagent) " << HWAGENT_VERSION << ", commit "
       << HWAGENT_GIT_COMMIT << "\n  built with LLVM/MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
}

} // namespace mlir::hwagent

#endif // HWAGENT_DRIVER_VERSION_H
