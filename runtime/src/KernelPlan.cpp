//===- KernelPlan.cpp - a contraction planned as SGEMMs -------------------===//

#include "KernelPlan.h"

#include "Errors.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace hwagent_rt::kernels;

void hwagent_rt::kernels::corrupt(const char *what) {
  // The spec is a constant the compiler wrote; a mismatch means a compiled
  // step and a runtime from different versions.
  std::fprintf(stderr,
               "hwagent_contract_f32: %s (compiled step and runtime "
               "disagree on the kernel ABI)\n",
               what);
  std::abort();
}

void ScratchBuffer::resize(size_t count) {
  if (count <= capacity)
    return;
  std::free(buffer);
  buffer = static_cast<float *>(std::malloc(count * sizeof(float)));
  capacity = buffer ? count : 0;
  if (!buffer)
    hwagent_rt::outOfMemory(count * sizeof(float), "a kernel's packing buffer");
}

namespace {
/// Copies base[rowOff[r] + colOff[c]] for rows x cols into a dense
/// row-major block.
void pack(float *dst, const float *base, const int64_t *rowOff, int64_t rows,
          const int64_t *colOff, int64_t cols, const Runs &runs) {
  const int64_t count = static_cast<int64_t>(runs.start.size());
#pragma omp parallel for schedule(static) if (rows * cols > (1 << 16) &&       \
                                              !omp_in_parallel())
  for (int64_t r = 0; r < rows; ++r) {
    const float *src = base + rowOff[r];
    float *out = dst + r * cols;
    if (runs.mean >= 4) {
      for (int64_t i = 0; i < count; ++i) {
        int64_t c = runs.start[i], length = runs.length[i];
        const float *from = src + colOff[c];
        float *to = out + c;
        if (length >= 256) {
          std::memcpy(to, from, length * sizeof(float));
        } else {
          // Short runs (an image row of a window): a vectorized loop beats
          // a call.
          for (int64_t e = 0; e < length; ++e)
            to[e] = from[e];
        }
      }
    } else {
      for (int64_t c = 0; c < cols; ++c)
        out[c] = src[colOff[c]];
    }
  }
}

} // namespace

/// Plans the contraction with `left` as SGEMM's A. Loops of C and one
/// operand are M (left) or N (right); the outermost of them (by C's
/// strides) move to the batch loop until C is a row-major M x N matrix, as
/// a framework loops over images to run a convolution as one GEMM each.
Plan hwagent_rt::kernels::plan(const Operand *ops, const int64_t *extents,
                               int64_t loops, int left) {
  Plan p;
  p.left = left;
  p.right = left == kA ? kB : kA;
  for (int l = 0; l < loops; ++l) {
    if (extents[l] == 1)
      continue;
    bool inL = ops[p.left].weight[l] != 0, inR = ops[p.right].weight[l] != 0,
         inC = ops[kC].weight[l] != 0;
    if (!inC)
      p.k.loops.push_back(l);
    else if (inL && inR)
      p.batch.loops.push_back(l);
    else if (inR)
      p.n.loops.push_back(l);
    else
      p.m.loops.push_back(l);
  }
  auto byWeight = [&](std::vector<int> &group, int o, int tie) {
    std::stable_sort(group.begin(), group.end(), [&](int x, int y) {
      int64_t wx = std::abs(ops[o].weight[x]), wy = std::abs(ops[o].weight[y]);
      if (wx != wy)
        return wx > wy;
      return std::abs(ops[tie].weight[x]) > std::abs(ops[tie].weight[y]);
    });
  };
  byWeight(p.m.loops, kC, p.left);
  byWeight(p.n.loops, kC, p.right);
  byWeight(p.k.loops, p.right, p.left);
  const std::vector<int> mLoops = p.m.loops, nLoops = p.n.loops;
  while (true) {
    p.m.build(extents, ops);
    p.n.build(extents, ops);
    int64_t stepM = p.m.linearStep(kC), stepN = p.n.linearStep(kC);
    if (stepN == 1 || (p.n.size == 1 && stepN == 0)) {
      int64_t ldc = p.m.size <= 1 ? p.n.size : stepM;
      if (ldc >= p.n.size) {
        p.directC = true;
        p.ldc = ldc;
        break;
      }
    }
    // Promote the M or N loop with C's largest stride.
    std::vector<int> *from = nullptr;
    int64_t best = -1;
    for (std::vector<int> *g : {&p.m.loops, &p.n.loops})
      if (g->size() > 1 && std::abs(ops[kC].weight[g->front()]) > best) {
        best = std::abs(ops[kC].weight[g->front()]);
        from = g;
      }
    if (!from) {
      // No view of C: keep the GEMMs whole and scatter their result.
      p.batch.loops.resize(p.batch.loops.size() -
                           (mLoops.size() - p.m.loops.size()) -
                           (nLoops.size() - p.n.loops.size()));
      p.m.loops = mLoops;
      p.n.loops = nLoops;
      p.m.build(extents, ops);
      p.n.build(extents, ops);
      break;
    }
    p.batch.loops.push_back(from->front());
    from->erase(from->begin());
  }
  p.batch.build(extents, ops);
  p.k.build(extents, ops);
  return p;
}

/// Operand `o` as a rows x cols matrix (row and column groups given): a
/// view when its offsets are linear with a unit stride, else packed into
/// `buffer` along whichever order copies the longer contiguous runs.
Matrix hwagent_rt::kernels::asMatrix(const Operand &op, int o,
                                     const float *base, const Group &rows,
                                     int64_t row0, int64_t rowCount,
                                     const Group &cols, int64_t col0,
                                     int64_t colCount, ScratchBuffer &buffer) {
  int64_t stepR = rows.linearStep(o), stepC = cols.linearStep(o);
  if (rows.size <= 1)
    stepR = std::max<int64_t>(cols.size, 1);
  if (cols.size <= 1)
    stepC = 1;
  Matrix mat;
  if (stepR >= 0 && stepC >= 0) {
    if (stepC == 1 && stepR >= cols.size) {
      mat = {base + row0 * stepR + col0, 'N', stepR};
      return mat;
    }
    if (stepR == 1 && stepC >= rows.size) {
      mat = {base + row0 + col0 * stepC, 'T', stepC};
      return mat;
    }
  }
  const int64_t *rowOff = rows.offset[o].data() + row0;
  const int64_t *colOff = cols.offset[o].data() + col0;
  Runs byRow, byCol;
  byRow.build(colOff, colCount);
  byCol.build(rowOff, rowCount);
  buffer.resize(static_cast<size_t>(rowCount * colCount));
  if (byCol.mean > byRow.mean) {
    // Stored transposed: cols x rows, each row of the copy a column.
    pack(buffer.data(), base, colOff, colCount, rowOff, rowCount, byCol);
    return {buffer.data(), 'T', rowCount};
  }
  pack(buffer.data(), base, rowOff, rowCount, colOff, colCount, byRow);
  return {buffer.data(), 'N', colCount};
}

/// Operand `index` of the call: its descriptor's base and strides combined
/// with the spec's index expressions; `cursor` walks the spec.
Operand
hwagent_rt::kernels::readOperand(const hwagent_unranked_memref_t *memref,
                                 const int64_t *spec, int64_t specSize,
                                 int64_t &cursor, int64_t loops) {
  auto next = [&]() -> int64_t {
    if (cursor >= specSize)
      corrupt("spec too short");
    return spec[cursor++];
  };
  int64_t rank = next();
  if (!memref || rank != memref->rank || rank < 0)
    corrupt("operand rank differs from the spec");
  const int64_t *desc = static_cast<const int64_t *>(memref->descriptor);
  float *aligned = reinterpret_cast<float *const *>(desc)[1];
  int64_t offset = desc[2];
  const int64_t *strides = desc + 3 + rank;
  Operand op;
  bool seen[kMaxLoops] = {};
  for (int64_t d = 0; d < rank; ++d) {
    offset += next() * strides[d];
    int64_t terms = next();
    if (terms != 1)
      op.permutation = false;
    for (int64_t t = 0; t < terms; ++t) {
      int64_t loop = next(), coefficient = next();
      if (loop < 0 || loop >= loops)
        corrupt("loop out of range");
      if (seen[loop] || (coefficient != 1 && coefficient != -1))
        op.permutation = false;
      seen[loop] = true;
      op.weight[loop] += coefficient * strides[d];
    }
  }
  op.base = aligned + offset;
  return op;
}
