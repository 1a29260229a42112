//===- Dataset.h - the data a trainer feeds a step --------------*- C++ -*-===//
//
// Feeds a compiled step from the files users keep their data in (.npy,
// .npz: hwagent_tensor_file_t, libhwagent_tensorfile).
//
// Arrays map to the step's inputs and labels by name (the array's name is
// the argument's), or, when no name matches, by position. An array holds N
// samples along its first dimension; each sample must have the argument's
// per-sample element count in its dtype, except integer class labels, which
// fill one-hot f32 rows or integer label arguments. The order is
// reproducible by other tools (scripts/digits.py does it for PyTorch):
//  - permutation(n, seed): Fisher-Yates from i = n-1 down to 1 swapping i
//    with splitmix64() % (i + 1), splitmix64 seeded with `seed`;
//  - the held-out split is the last floor(split * N) entries of
//    permutation(N, seed); the training set is the rest, ascending;
//  - epoch e visits the training set in permutation(T, seed + 1 + e) order
//    (ascending without shuffling), in batches of the step's batch size;
//    the incomplete last batch is dropped.
// Nothing is copied per step but the batch itself. docs/training.md.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TOOLS_DATASET_H
#define HWAGENT_TOOLS_DATASET_H

#include "Driver/TrainingRunner.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::hwagent {

/// "[2, 3]": a shape in messages.
std::string shapeText(const int64_t *shape, int64_t rank);

/// The permutation described above.
std::vector<int64_t> permutation(int64_t n, uint64_t seed);

struct DatasetOptions {
  /// The training data (.npz or .npy).
  std::string path;
  /// Held-out data; empty: `split` of `path`.
  std::string validationPath;
  double split = 0.0;
  bool shuffle = true;
  uint64_t seed = 1;
  /// Classes of integer label arguments (0: checked only against one-hot
  /// widths).
  int64_t classes = 0;
};

class Dataset {
public:
  static std::unique_ptr<Dataset> open(const DatasetOptions &options,
                                       llvm::raw_ostream &errs);
  ~Dataset();

  /// Maps the inputs and labels among `args` (a function `fn`'s) to arrays
  /// and checks them (dtype, per-sample shape, label range, finite values);
  /// errors name the file, the array and the argument. `validation`: the
  /// held-out data feeds them.
  bool bind(std::vector<ArgBuffer> &args, const std::string &fn,
            bool validation, llvm::raw_ostream &errs);

  int64_t numTrain() const { return train.size(); }
  int64_t numValidation() const { return validationIndices.size(); }
  /// Batches of `batch` samples per epoch (the last incomplete one
  /// dropped).
  int64_t batchesPerEpoch(int64_t batch) const {
    return batch > 0 ? numTrain() / batch : 0;
  }
  /// Per argument of the `numArgs` bound for training (`validation`
  /// false) or for the held-out data: whether the dataset feeds it.
  std::vector<bool> feeds(bool validation, size_t numArgs) const;
  /// Fills batch `b` of epoch `epoch` into the arguments bound for
  /// training (`validation` false), or held-out batch `b`.
  void fill(std::vector<ArgBuffer> &args, bool validation, int64_t epoch,
            int64_t b);
  /// Fills the held-out rows [first, first + count) into the arguments
  /// bound for them and the rest of the batch with copies of the last of
  /// those rows (the evaluation's last, incomplete batch).
  void fillPadded(std::vector<ArgBuffer> &args, int64_t first, int64_t count);

private:
  struct Source;
  struct Binding {
    unsigned arg;
    const Source *source;
    unsigned array;
    bool oneHot;
  };
  Dataset() = default;
  bool checkArray(const Source &source, unsigned array,
                  llvm::raw_ostream &errs);
  /// Fills batch row i of every argument bound for `validation` with
  /// sample `index(i)` of its array.
  template <typename Index>
  void fillRows(std::vector<ArgBuffer> &args, bool validation, Index index);

  DatasetOptions options;
  std::vector<std::unique_ptr<Source>> sources;
  std::vector<int64_t> train, validationIndices;
  /// The training order of the epoch last filled.
  int64_t orderEpoch = -1;
  std::vector<int64_t> order;
  std::map<bool, std::vector<Binding>> bindings;
};

} // namespace mlir::hwagent

#endif // HWAGENT_TOOLS_DATASET_H
