//===- Kernels.cpp - contractions as packed SGEMM calls -------------------===//
//
// hwagent_contract_f32 evaluates any f32 contraction whose operands are
// indexed by affine sums of the loops (matmuls in every transposition,
// batched matmuls, convolutions with strides and dilations, and the
// convolution gradients a training step writes as linalg.generic) the way
// a framework's CPU backend does. A contraction that is a convolution
// (hwcore::recognizeConvolution) runs as oneDNN's convolution primitive
// (ConvolutionKernel.h), but for dense weight gradients. The others, and
// any convolution oneDNN refuses: it classifies the loops into batch, M, N
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

#include "ConvolutionKernel.h"
#include "Errors.h"
#include "KernelPlan.h"
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

using namespace hwagent_rt::kernels;

namespace {

/// Elements a packed block may hold (16 Mi floats = 64 MiB).
constexpr int64_t kPackBudget = int64_t{1} << 24;
/// Elements of a packed block per thread working on it (2 MiB).
constexpr int64_t kPackBlockPerThread = int64_t{1} << 19;
/// FLOPs (two per multiply-add) per thread below which a call takes fewer
/// threads: SGEMMs (their packing is per call), and oneDNN's convolution
/// primitives, which split their own loops. Measured at two threads on this
/// 2-core VM (docs/cpu-backend.md "Both cores on the mid transformer"):
/// 1e6 for the primitives took the imported BatchNorm CNN's step from 1.59
/// to 1.06 ms, LeNet's from 2.22 to 1.66 and the MobileNetV2-style block's
/// from 4.57 to 4.05 (2026-12-07); 2e6 for SGEMMs (8e6 before, which left
/// every GEMM of the mid transformer, 4-11 MFLOP, on one core) took its
/// step from 3.4-3.7 to 1.8-2.4 ms with the loops' grain below (2026-12-08).
constexpr double kGemmWorkPerThread = 2.0e6;
constexpr double kConvolutionWorkPerThread = 1.0e6;

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
              const hwagent_unranked_memref_t *c, double &flops,
              const char *&kernel);

} // namespace

extern "C" void _mlir_ciface_hwagent_contract_f32(
    const hwagent_memref_i64_1d_t *specRef, const hwagent_unranked_memref_t *a,
    const hwagent_unranked_memref_t *b, const hwagent_unranked_memref_t *c) {
  auto start = std::chrono::steady_clock::now();
  double flops = 0;
  const char *kernel = "SGEMM";
  contract(specRef, a, b, c, flops, kernel);
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
  stat.kernel = kernel;
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

/// The plan of a contraction: made once per thread and reused, keyed by the
/// spec's contents and the operands' strides (an address could be a freed
/// module's, reused by another one). Either operand may be SGEMM's left one
/// (C += A B is C^T += B^T A^T): the orientation where C is a matrix view
/// with the largest GEMMs.
Plan &cachedPlan(const int64_t *spec, int64_t specSize, const Operand *ops,
                 const int64_t *extents, int64_t loops) {
  thread_local std::map<SpecKey, Plan> plans;
  SpecKey key(spec, spec + specSize);
  for (int o = 0; o < 3; ++o)
    key.insert(key.end(), ops[o].weight, ops[o].weight + loops);
  auto [entry, inserted] = plans.try_emplace(std::move(key));
  if (inserted) {
    Plan p = plan(ops, extents, loops, kA);
    Plan swapped = plan(ops, extents, loops, kB);
    if (swapped.directC &&
        (!p.directC || swapped.m.size * swapped.n.size > p.m.size * p.n.size))
      p = std::move(swapped);
    p.convolution = hwcore::recognizeConvolution(spec, specSize);
    entry->second = std::move(p);
  }
  return entry->second;
}

/// One batch point (an image of a convolution): C[bt] += L[bt] R[bt], in
/// blocks of `blockK` x `blockM`.
void runBatch(const Plan &p, const Operand *ops, int64_t bt, int64_t blockK,
              int64_t blockM, Scratch &ws) {
  const int64_t M = p.m.size, N = p.n.size, K = p.k.size;
  const Operand &L = ops[p.left], &R = ops[p.right];
  const float *baseL = L.base + p.batch.offset[p.left][bt];
  const float *baseR = R.base + p.batch.offset[p.right][bt];
  float *baseC = ops[kC].base + p.batch.offset[kC][bt];
  for (int64_t k0 = 0; k0 < K; k0 += blockK) {
    int64_t kb = std::min(blockK, K - k0);
    Matrix matR = asMatrix(R, p.right, baseR, p.k, k0, kb, p.n, 0, N, ws.right);
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
  if (p.directC)
    return;
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

void contract(const hwagent_memref_i64_1d_t *specRef,
              const hwagent_unranked_memref_t *a,
              const hwagent_unranked_memref_t *b,
              const hwagent_unranked_memref_t *c, double &flops,
              const char *&kernel) {
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
  Plan &p = cachedPlan(spec, specSize, ops, extents, loops);
  const int64_t M = p.m.size, N = p.n.size, K = p.k.size;

  // Threads for this call: each should get a few MFLOP of work, or waking
  // it costs more than it saves (small GEMMs run on one; `flops` counts two
  // per multiply-add). A convolution
  // primitive splits its own loops with no packing: it pays from an eighth
  // of that (docs/cpu-backend.md, "Threads of small convolutions"); a
  // convolution oneDNN cannot take falls back to SGEMM with SGEMM's team.
  thread_local int current = -1;
  int allowed = hwagent_rt::threadLimit();
  auto teamOf = [&](double perThread) {
    int threads = static_cast<int>(std::clamp<double>(
        flops / (M * N * K > 0 ? perThread : 1.0), 1.0, allowed));
    if (threads != current) {
      omp_set_num_threads(threads);
      current = threads;
    }
    return threads;
  };
  if (p.convolution && convolutionPrimitives() != ConvolutionPrimitives::None) {
    int threads = teamOf(kConvolutionWorkPerThread);
    auto [entry, inserted] = p.convolutionKernels.try_emplace(threads);
    if (inserted)
      entry->second = makeConvolution(*p.convolution, ops, extents, threads);
    if (ConvolutionKernel *conv = entry->second.get()) {
      conv->run(ops);
      kernel = conv->name();
      return;
    }
  }
  int threads = teamOf(kGemmWorkPerThread);

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
  if (batchParallel) {
    // Whole batch points per thread (a framework's convolution per image):
    // each packs its own operands and multiplies them on its own (SGEMM runs
    // sequentially inside the region), so a packed block is written and read
    // by one core, with one fork per call instead of a pack and an SGEMM
    // fork per block. Distinct points write disjoint elements of C.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t bt = 0; bt < p.batch.size; ++bt)
      runBatch(p, ops, bt, blockK, blockM, scratch);
  } else {
    for (int64_t bt = 0; bt < p.batch.size; ++bt)
      runBatch(p, ops, bt, blockK, blockM, s);
  }
}
} // namespace
