//===- PassArguments.h - check hwagent-opt's pass arguments -----*- C++ -*-===//
//
// mlir-opt answers a misspelt pass option with "no such option X", a bad
// enum value with "Cannot find option named 'X'!" and a misspelt pass with
// the nearest LLVM flag (--partition-backend: "Did you mean '-p'?").
// hwagent-opt checks `--<pass or pipeline>="key=value ..."` and misspelt
// pass names first and answers with the closest valid name and the choices.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_HWAGENT_OPT_PASSARGUMENTS_H
#define HWAGENT_TOOLS_HWAGENT_OPT_PASSARGUMENTS_H

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace mlir::hwagent {

/// False, with a message on `errs` naming the closest valid pass, option or
/// value and listing the choices, when an argument names a pass that does
/// not exist (but is close to one) or gives a pass or pipeline an option or
/// value it does not have. Call after the passes are registered.
bool checkPassArguments(const std::vector<char *> &args,
                        llvm::raw_ostream &errs);

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_HWAGENT_OPT_PASSARGUMENTS_H
