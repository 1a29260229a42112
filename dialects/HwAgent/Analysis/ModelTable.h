//===- ModelTable.h - the compiled model the runtime reads ------*- C++ -*-===//
//
// Reads a partitioned module (regions with backends and programs, the
// functions' #hwagent.program lists, the module's #hwagent.target) into the
// runtime's own C types (hwagent_rt.h): regions, programs (one dispatch
// each) and the boundaries between programs. hwagent-lower-to-runtime emits
// it as constant LLVM globals of those types; the adaptive benchmark and
// tests hand it to a session directly. No text format in between.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_ANALYSIS_MODELTABLE_H
#define HWAGENT_ANALYSIS_MODELTABLE_H

#include "HwAgent/IR/HwAgentOps.h"
#include "hwagent_rt/hwagent_model_info.hpp"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <vector>

namespace mlir::hwagent {

/// The regions of one program, in block order.
struct ProgramGroup {
  FunctionOpInterface function;
  SmallVector<RegionOp> regions;
  Backend backend;
};

/// The owning model info (hwagent_rt::OwnedModelInfo: regions, programs,
/// boundaries, links, compile prices, power) and the IR behind each program.
struct ModelTable : hwagent_rt::OwnedModelInfo {
  /// programs[i]'s regions.
  std::vector<ProgramGroup> groups;
};

/// Builds the table of every function with regions. Programs come from the
/// functions' `hwagent.programs` (a region without one is a program of its
/// own); fails with a diagnostic when a region has no backend or a program
/// names regions the function lacks.
FailureOr<ModelTable> buildModelTable(ModuleOp module);

} // namespace mlir::hwagent

#endif // HWAGENT_ANALYSIS_MODELTABLE_H
