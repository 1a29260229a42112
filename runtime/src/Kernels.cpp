//===- Kernels.cpp - contractions as packed SGEMM calls -------------------===//
//
// hwagent_contract_f32 evaluates any f32 contraction whose operands are
// indexed by affine sums of the loops (matmuls in every transposition,
// batched matmuls, convolutions with strides and dilations, and the
// convolution gradients a training step writes as linalg.generic) the way
// a framework's CPU backend does: it classifies the loops into batch, M, N
// and K, views each operand as a matrix when its strides allow it (no copy)
// and otherwise packs it (im2col for windows), multiplies with oneDNN's
// SGEMM, and scatters the result when the output is not a matrix view.
// Packing is blocked so that its buffers stay under a few tens of MiB; the
// buffers are kept per thread and reused across calls and steps. oneDNN
// picks its kernels by the ISA the CPU reports (AVX-512 where present) and
// threads with OpenMP, as do the packing loops here.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"

#include "Errors.h"
#include "Parallel.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace {

constexpr int kA = 0, kB = 1, kC = 2;
constexpr int64_t kMaxLoops = 16;
/// Elements a packed block may hold (16 Mi floats = 64 MiB).
constexpr int64_t kPackBudget = int64_t{1} << 24;
/// Elements of a packed block per thread working on it (2 MiB).
constexpr int64_t kPackBlockPerThread = int64_t{1} << 19;

[[noreturn]] void corrupt(const char *what) {
  // The spec is a constant the compiler wrote; a mismatch means a compiled
  // step and a runtime from different versions.
  std::fprintf(stderr,
               "hwagent_contract_f32: %s (compiled step and runtime "
               "disagree on the kernel ABI)\n",
               what);
  std::abort();
}

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

/// A float buffer that grows and never shrinks; a failed allocation stops
/// the process with the reason (hwagent_rt::outOfMemory), like the step's
/// own buffers, instead of aborting inside operator new.
class ScratchBuffer {
public:
  ~ScratchBuffer() { std::free(buffer); }
  void resize(size_t count) {
    if (count <= capacity)
      return;
    std::free(buffer);
    buffer = static_cast<float *>(std::malloc(count * sizeof(float)));
    capacity = buffer ? count : 0;
    if (!buffer)
      hwagent_rt::outOfMemory(count * sizeof(float),
                              "a kernel's packing buffer");
  }
  float *data() { return buffer; }

private:
  float *buffer = nullptr;
  size_t capacity = 0;
};

struct Scratch {
  ScratchBuffer left, right, out;
};
thread_local Scratch scratch;

/// Keyed by the spec's contents, never its address: a later module's spec
/// may land where a freed module's was (docs/cpu-backend.md).
using SpecKey = std::vector<int64_t>;

struct Stats {
  std::mutex mutex;
  /// The stat's `spec` points at its key (std::map nodes do not move).
  std::map<SpecKey, hwagent_kernel_stat_t> bySpec;
};
Stats &stats() {
  static Stats *s = new Stats; // Never destroyed: kernels may run at exit.
  return *s;
}

void contract(const hwagent_memref_i64_1d_t *specRef,
              const hwagent_unranked_memref_t *a,
              const hwagent_unranked_memref_t *b,
              const hwagent_unranked_memref_t *c, double &flops);

/// One way to run the contraction as SGEMMs: which operand is on the left,
/// and the loops in each role.
struct Plan {
  int left = kA, right = kB;
  Group batch, m, n, k;
  bool directC = false;
  int64_t ldc = 0;
};

/// Plans the contraction with `left` as SGEMM's A. Loops of C and one
/// operand are M (left) or N (right); the outermost of them (by C's
/// strides) move to the batch loop until C is a row-major M x N matrix, as
/// a framework loops over images to run a convolution as one GEMM each.
Plan plan(const Operand *ops, const int64_t *extents, int64_t loops, int left) {
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
Matrix asMatrix(const Operand &op, int o, const float *base, const Group &rows,
                int64_t row0, int64_t rowCount, const Group &cols, int64_t col0,
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
Operand readOperand(const hwagent_unranked_memref_t *memref,
                    const int64_t *spec, int64_t specSize, int64_t &cursor,
                    int64_t loops) {
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

} // namespace

extern "C" void _mlir_ciface_hwagent_contract_f32(
    const hwagent_memref_i64_1d_t *specRef, const hwagent_unranked_memref_t *a,
    const hwagent_unranked_memref_t *b, const hwagent_unranked_memref_t *c) {
  auto start = std::chrono::steady_clock::now();
  double flops = 0;
  contract(specRef, a, b, c, flops);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  Stats &s = stats();
  const int64_t *spec = specRef->aligned + specRef->offset;
  SpecKey key(spec, spec + specRef->size);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [entry, inserted] = s.bySpec.try_emplace(std::move(key));
  hwagent_kernel_stat_t &stat = entry->second;
  stat.spec = entry->first.data();
  stat.calls += 1;
  stat.flops += flops;
  stat.seconds += seconds;
}

extern "C" int64_t hwagent_kernels_stats(hwagent_kernel_stat_t *out,
                                         int64_t capacity) {
  Stats &s = stats();
  std::vector<hwagent_kernel_stat_t> all;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (const auto &entry : s.bySpec)
      all.push_back(entry.second);
  }
  std::sort(all.begin(), all.end(),
            [](const auto &x, const auto &y) { return x.flops > y.flops; });
  for (int64_t i = 0; out && i < capacity && i < (int64_t)all.size(); ++i)
    out[i] = all[i];
  return static_cast<int64_t>(all.size());
}

extern "C" void hwagent_kernels_reset_stats(void) {
  Stats &s = stats();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.bySpec.clear();
}

namespace {
void contract(const hwagent_memref_i64_1d_t *specRef,
              const hwagent_unranked_memref_t *a,
              const hwagent_unranked_memref_t *b,
              const hwagent_unranked_memref_t *c, double &flops) {
  if (!specRef || specRef->stride != 1 || specRef->size < 2)
    corrupt("no spec");
  const int64_t *spec = specRef->aligned + specRef->offset;
  int64_t specSize = specRef->size;
  if (spec[0] != HWAGENT_CONTRACT_SPEC_VERSION)
    corrupt("spec version");
  int64_t loops = spec[1];
  if (loops < 0 || loops > kMaxLoops || specSize < 2 + loops)
    corrupt("loop count");
  int64_t extents[kMaxLoops];
  flops = 2;
  for (int64_t l = 0; l < loops; ++l) {
    extents[l] = spec[2 + l];
    flops *= static_cast<double>(extents[l]);
    if (extents[l] <= 0)
      return; // An empty iteration space adds nothing.
  }
  int64_t cursor = 2 + loops;
  Operand ops[3] = {readOperand(a, spec, specSize, cursor, loops),
                    readOperand(b, spec, specSize, cursor, loops),
                    readOperand(c, spec, specSize, cursor, loops)};

  // Either operand may be SGEMM's left one (C += A B is C^T += B^T A^T):
  // take the orientation where C is a matrix view with the largest GEMMs.
  // Plans depend on the spec and the operands' strides only: each is made
  // once per thread and reused, keyed by the spec's contents and the strides
  // (an address could be a freed module's, reused by another one).
  thread_local std::map<SpecKey, Plan> plans;
  SpecKey key(spec, spec + specSize);
  for (const Operand &op : ops)
    key.insert(key.end(), op.weight, op.weight + loops);
  auto [entry, inserted] = plans.try_emplace(std::move(key));
  if (inserted) {
    Plan p = plan(ops, extents, loops, kA);
    Plan swapped = plan(ops, extents, loops, kB);
    if (swapped.directC &&
        (!p.directC || swapped.m.size * swapped.n.size > p.m.size * p.n.size))
      p = std::move(swapped);
    entry->second = std::move(p);
  }
  const Plan &p = entry->second;
  const int64_t M = p.m.size, N = p.n.size, K = p.k.size;
  const Operand &L = ops[p.left], &R = ops[p.right];

  // Threads for this call: each should get a few MFLOP of work, or waking
  // it costs more than it saves (small GEMMs run on one).
  thread_local int current = -1;
  int allowed = hwagent_rt::threadLimit();
  int threads = static_cast<int>(
      std::clamp<double>(flops / (M * N * K > 0 ? 8.0e6 : 1.0), 1.0, allowed));
  if (threads != current) {
    omp_set_num_threads(threads);
    current = threads;
  }

  // Block K and M so that packed operands stay within the budget.
  // Packed blocks of a few MiB per thread: the pack writes them and SGEMM
  // reads them back from the cache, not from memory (on the bundled CNN a
  // 64 MiB block took 922 ms per step at one thread, 2-4 MiB ones 650-690).
  // With at least a batch point per thread (and C written in place, each
  // point to its own elements) the threads split the batch; otherwise they
  // share each block.
  bool batchParallel = threads > 1 && p.batch.size >= threads && p.directC &&
                       ops[kC].permutation;
  int64_t team = batchParallel ? 1 : threads;
  int64_t budget = std::min(kPackBlockPerThread * team, kPackBudget);
  int64_t blockK =
      std::min(std::max<int64_t>(budget / std::max<int64_t>(N, 1), 256), K);
  int64_t blockM =
      std::min(std::max<int64_t>(budget / std::max<int64_t>(blockK, 1), 64), M);

  Scratch &s = scratch;
  if (!p.directC)
    s.out.resize(static_cast<size_t>(M * N));
  // One batch point (an image of a convolution): C[bt] += L[bt] R[bt].
  auto runBatch = [&](int64_t bt, Scratch &ws) {
    const float *baseL = L.base + p.batch.offset[p.left][bt];
    const float *baseR = R.base + p.batch.offset[p.right][bt];
    float *baseC = ops[kC].base + p.batch.offset[kC][bt];
    for (int64_t k0 = 0; k0 < K; k0 += blockK) {
      int64_t kb = std::min(blockK, K - k0);
      Matrix matR =
          asMatrix(R, p.right, baseR, p.k, k0, kb, p.n, 0, N, ws.right);
      for (int64_t m0 = 0; m0 < M; m0 += blockM) {
        int64_t mb = std::min(blockM, M - m0);
        Matrix matL =
            asMatrix(L, p.left, baseL, p.m, m0, mb, p.k, k0, kb, ws.left);
        float *matC;
        int64_t ldc;
        float beta = 1.0f;
        if (p.directC) {
          matC = baseC + (M > 1 ? m0 * p.ldc : 0);
          ldc = p.ldc;
        } else {
          matC = ws.out.data() + m0 * N;
          ldc = N;
          beta = k0 == 0 ? 0.0f : 1.0f;
        }
        if (dnnl_sgemm(matL.trans, matR.trans, mb, N, kb, 1.0f, matL.data,
                       matL.ld, matR.data, matR.ld, beta, matC,
                       ldc) != dnnl_success)
          corrupt("SGEMM rejected its arguments");
      }
    }
    if (!p.directC) {
      // Scatter-add: C's own layout is not a row-major M x N matrix.
      const float *tmp = ws.out.data();
      const int64_t *colOff = p.n.offset[kC].data();
      const int64_t *rowOff = p.m.offset[kC].data();
      // Rows may share C elements when C's map is not a permutation of
      // loops; then the scatter stays on one thread.
      bool injective = ops[kC].permutation;
#pragma omp parallel for schedule(static) if (injective && M * N > (1 << 16))
      for (int64_t r = 0; r < M; ++r) {
        float *row = baseC + rowOff[r];
        const float *src = tmp + r * N;
        for (int64_t col = 0; col < N; ++col)
          row[colOff[col]] += src[col];
      }
    }
  };
  if (batchParallel) {
    // Whole batch points per thread (a framework's convolution per image):
    // each packs its own operands and multiplies them on its own (SGEMM runs
    // sequentially inside the region), so a packed block is written and read
    // by one core, with one fork per call instead of a pack and an SGEMM
    // fork per block. Distinct points write disjoint elements of C.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t bt = 0; bt < p.batch.size; ++bt)
      runBatch(bt, scratch);
  } else {
    for (int64_t bt = 0; bt < p.batch.size; ++bt)
      runBatch(bt, s);
  }
}
} // namespace
