//===- Checkpoint.h - a step's parameters in safetensors --------*- C++ -*-===//
//
// A trainer's checkpoints: the step's parameters by name in safetensors
// (written atomically, read back checked against each parameter's dtype and
// shape), with the step count and entry in the metadata. docs/training.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TRAINER_CHECKPOINT_H
#define HWAGENT_TRAINER_CHECKPOINT_H

#include "Driver/TrainingRunner.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::hwagent {

/// What a checkpoint records beside the parameters.
struct CheckpointInfo {
  int64_t step = 0;
  std::string entry;
};

/// Writes the parameters among `args` to `path` (safetensors, atomically)
/// with `info` in its metadata.
bool saveCheckpoint(const std::string &path, const std::vector<ArgBuffer> &args,
                    const CheckpointInfo &info, llvm::raw_ostream &errs);
/// Checks, before the first step, that saveCheckpoint would accept the
/// parameters' names and shapes and the metadata (UTF-8 names: a run must
/// not train to its end and then fail to save).
bool checkCheckpoint(const std::string &path,
                     const std::vector<ArgBuffer> &args,
                     const CheckpointInfo &info, llvm::raw_ostream &errs);
/// Reads every parameter among `args` from `path`: each by name, of the
/// parameter's dtype and shape, finite; a tensor the step has no parameter
/// for means another model's file. `info` gets the metadata when present.
bool loadParameters(const std::string &path, std::vector<ArgBuffer> &args,
                    CheckpointInfo &info, llvm::raw_ostream &errs);
/// The step an existing hwagent checkpoint at `path` records; none when
/// there is no file or it is not one (unreadable, not safetensors, no
/// hwagent-checkpoint metadata).
std::optional<int64_t> checkpointStep(const std::string &path);
/// Checks that `path` can be written (before the first step).
bool checkWritable(const std::string &path, llvm::raw_ostream &errs);

} // namespace mlir::hwagent

#endif // HWAGENT_TRAINER_CHECKPOINT_H
