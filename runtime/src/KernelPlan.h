//===- KernelPlan.h - a contraction planned as SGEMMs -----------*- C++ -*-===//
//
// Private to the runtime's kernels (Kernels.cpp): how a contraction's spec
// (hwagent_kernels.h) becomes SGEMM calls. Each operand's offsets per loop
// are read from the spec and its memref (readOperand); the loops are
// classified into batch, M, N and K with the operands as matrices where
// their strides allow (plan), and an operand that is no matrix view is
// packed into a dense block (asMatrix, pack).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_KERNELPLAN_H
#define HWAGENT_RT_KERNELPLAN_H

#include "hwagent_rt/hwagent_kernels.h"

#include "HwAgent/Core/Convolution.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace hwagent_rt::kernels {

constexpr int kA = 0, kB = 1, kC = 2;
constexpr int64_t kMaxLoops = 16;

/// The spec is a constant the compiler wrote; a mismatch means a compiled
/// step and a runtime from different versions: stops with the reason.
[[noreturn]] void corrupt(const char *what);

/// One operand: its base pointer and, per loop, how far one step moves it.
struct Operand {
  float *base = nullptr;
  int64_t weight[kMaxLoops] = {};
  /// Each dimension indexed by one distinct loop: distinct points of the
  /// loops it moves with address distinct elements.
  bool permutation = true;
};

/// A group of loops enumerated row-major in `loops` order, and each
/// operand's offset at every point of it.
struct Group {
  std::vector<int> loops;
  int64_t size = 1;
  std::vector<int64_t> offset[3];

  int64_t step[3] = {0, 0, 0};

  void build(const int64_t *extents, const Operand *ops) {
    size = 1;
    for (int l : loops)
      size *= extents[l];
    for (int o = 0; o < 3; ++o) {
      // Row-major over `loops`, outermost first: each loop multiplies the
      // table by its extent.
      std::vector<int64_t> &table = offset[o];
      table.assign(1, 0);
      table.reserve(size);
      for (int l : loops) {
        int64_t extent = extents[l], w = ops[o].weight[l];
        int64_t before = static_cast<int64_t>(table.size());
        table.resize(before * extent);
        for (int64_t j = before - 1; j >= 0; --j)
          for (int64_t e = extent - 1; e >= 0; --e)
            table[j * extent + e] = table[j] + e * w;
      }
      step[o] = computeStep(o);
    }
  }

  /// The step when operand `o`'s offsets are i * step (any step for a
  /// group of one point), or -1.
  int64_t linearStep(int o) const { return step[o]; }

private:
  int64_t computeStep(int o) const {
    if (size <= 1)
      return 0;
    int64_t s = offset[o][1] - offset[o][0];
    if (offset[o][0] != 0 || s <= 0)
      return -1;
    for (int64_t i = 2; i < size; ++i)
      if (offset[o][i] != i * s)
        return -1;
    return s;
  }
};

/// A matrix operand of one SGEMM: rows x cols (row-major as SGEMM sees it
/// before `trans`), either a view of the operand's memory or a packed copy.
struct Matrix {
  const float *data = nullptr;
  char trans = 'N';
  int64_t ld = 0;
};

/// Maximal runs of consecutive offsets in `offsets[from, from + count)`:
/// packing copies each run as one contiguous block.
struct Runs {
  std::vector<int64_t> start, length;
  double mean = 0;

  void build(const int64_t *offsets, int64_t count) {
    start.clear();
    length.clear();
    for (int64_t i = 0; i < count;) {
      int64_t j = i + 1;
      while (j < count && offsets[j] == offsets[j - 1] + 1)
        ++j;
      start.push_back(i);
      length.push_back(j - i);
      i = j;
    }
    mean = count ? static_cast<double>(count) / start.size() : 0;
  }
};

/// A float buffer that grows and never shrinks; a failed allocation stops
/// the process with the reason (hwagent_rt::outOfMemory), like the step's
/// own buffers, instead of aborting inside operator new.
class ScratchBuffer {
public:
  ~ScratchBuffer() { std::free(buffer); }
  void resize(size_t count);
  float *data() { return buffer; }

private:
  float *buffer = nullptr;
  size_t capacity = 0;
};

class ConvolutionKernel;

/// One way to run the contraction as SGEMMs: which operand is on the left,
/// and the loops in each role; for a convolution, its form and the oneDNN
/// kernels made for it (ConvolutionKernel.h), one per thread count (oneDNN
/// sizes a primitive's work split by the threads at its creation), null
/// where oneDNN refused and the SGEMMs run it.
struct Plan {
  int left = kA, right = kB;
  Group batch, m, n, k;
  bool directC = false;
  int64_t ldc = 0;
  std::optional<hwcore::ConvolutionForm> convolution;
  std::map<int, std::shared_ptr<ConvolutionKernel>> convolutionKernels;
};

/// Plans the contraction with `left` as SGEMM's A. Loops of C and one
/// operand are M (left) or N (right); the outermost of them (by C's
/// strides) move to the batch loop until C is a row-major M x N matrix, as
/// a framework loops over images to run a convolution as one GEMM each.
Plan plan(const Operand *ops, const int64_t *extents, int64_t loops, int left);

/// Operand `o` as a rows x cols matrix (row and column groups given): a
/// view when its offsets are linear with a unit stride, else packed into
/// `buffer` along whichever order copies the longer contiguous runs.
Matrix asMatrix(const Operand &op, int o, const float *base, const Group &rows,
                int64_t row0, int64_t rowCount, const Group &cols, int64_t col0,
                int64_t colCount, ScratchBuffer &buffer);

/// Operand `index` of the call: its descriptor's base and strides combined
/// with the spec's index expressions; `cursor` walks the spec.
Operand readOperand(const hwagent_unranked_memref_t *memref,
                    const int64_t *spec, int64_t specSize, int64_t &cursor,
                    int64_t loops);

} // namespace hwagent_rt::kernels

#endif // HWAGENT_RT_KERNELPLAN_H
