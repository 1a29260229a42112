//===- KernelsTest.cpp - hwagent_contract_f32 against a reference ---------===//
//
// Each case is a contraction as hwagent-linalg-to-kernels encodes it; the
// kernel's result must match a plain loop nest over the same spec (double
// accumulation) within f32 rounding.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"

#include "ConvolutionKernel.h"
#include "HwAgent/Core/Convolution.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

/// One index expression of an operand dimension: constant + sum c * loop.
struct Index {
  int64_t constant = 0;
  std::vector<std::pair<int64_t, int64_t>> terms;
};

/// A dense row-major tensor with its MLIR descriptor (rank <= 4).
struct Tensor {
  std::vector<int64_t> shape, strides;
  std::vector<float> data;
  std::vector<int64_t> descriptor;
  hwagent_unranked_memref_t unranked{};

  Tensor(std::vector<int64_t> shape, std::mt19937 &rng, bool zero = false)
      : shape(std::move(shape)) {
    int64_t size = 1;
    strides.assign(this->shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(this->shape.size()) - 1; d >= 0;
         --d) {
      strides[d] = size;
      size *= this->shape[d];
    }
    std::uniform_real_distribution<float> dist(-1, 1);
    data.resize(size);
    for (float &x : data)
      x = zero ? 0.0f : dist(rng);
  }

  hwagent_unranked_memref_t *memref() {
    int64_t rank = static_cast<int64_t>(shape.size());
    descriptor.assign(3 + 2 * rank, 0);
    float *p = data.data();
    std::memcpy(&descriptor[0], &p, sizeof p);
    std::memcpy(&descriptor[1], &p, sizeof p);
    for (int64_t d = 0; d < rank; ++d) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + rank + d] = strides[d];
    }
    unranked = {rank, descriptor.data()};
    return &unranked;
  }

  int64_t offset(const std::vector<Index> &map,
                 const std::vector<int64_t> &iv) const {
    int64_t offset = 0;
    for (size_t d = 0; d < map.size(); ++d) {
      int64_t index = map[d].constant;
      for (auto [loop, coefficient] : map[d].terms)
        index += coefficient * iv[loop];
      EXPECT_GE(index, 0);
      EXPECT_LT(index, shape[d]);
      offset += index * strides[d];
    }
    return offset;
  }
};

Index dim(int64_t loop) { return {0, {{loop, 1}}}; }
Index sum(int64_t x, int64_t y, int64_t cx = 1) {
  return {0, {{x, cx}, {y, 1}}};
}

/// The spec hwagent-linalg-to-kernels would write (hwagent_kernels.h).
std::vector<int64_t> makeSpec(const std::vector<int64_t> &extents,
                              const std::vector<Index> &mapA,
                              const std::vector<Index> &mapB,
                              const std::vector<Index> &mapC) {
  std::vector<int64_t> spec = {HWAGENT_CONTRACT_SPEC_VERSION,
                               static_cast<int64_t>(extents.size())};
  spec.insert(spec.end(), extents.begin(), extents.end());
  for (const std::vector<Index> *map : {&mapA, &mapB, &mapC}) {
    spec.push_back(static_cast<int64_t>(map->size()));
    for (const Index &index : *map) {
      spec.push_back(index.constant);
      spec.push_back(static_cast<int64_t>(index.terms.size()));
      for (auto [loop, coefficient] : index.terms) {
        spec.push_back(loop);
        spec.push_back(coefficient);
      }
    }
  }
  return spec;
}

/// Runs the kernel and the reference on (A, B, C) and compares.
/// `specAt`: the buffer the spec is written to (its address reused across
/// calls), else a fresh one.
void check(const std::vector<int64_t> &extents, Tensor &a,
           const std::vector<Index> &mapA, Tensor &b,
           const std::vector<Index> &mapB, Tensor &c,
           const std::vector<Index> &mapC,
           std::vector<int64_t> *specAt = nullptr, double tolerance = 1e-4) {
  std::vector<int64_t> spec = makeSpec(extents, mapA, mapB, mapC);
  // Reference: every point of the loops, accumulated in double.
  std::vector<double> expected(c.data.begin(), c.data.end());
  std::vector<int64_t> iv(extents.size(), 0);
  bool done = extents.empty();
  while (!done) {
    expected[c.offset(mapC, iv)] +=
        double(a.data[a.offset(mapA, iv)]) * double(b.data[b.offset(mapB, iv)]);
    done = true;
    for (int64_t l = static_cast<int64_t>(extents.size()) - 1; l >= 0; --l) {
      if (++iv[l] < extents[l]) {
        done = false;
        break;
      }
      iv[l] = 0;
    }
  }
  if (specAt) {
    ASSERT_GE(specAt->capacity(), spec.size());
    specAt->assign(spec.begin(), spec.end()); // same storage, new contents
    spec.swap(*specAt);
  }
  hwagent_memref_i64_1d_t specRef{spec.data(), spec.data(), 0,
                                  static_cast<int64_t>(spec.size()), 1};
  _mlir_ciface_hwagent_contract_f32(&specRef, a.memref(), b.memref(),
                                    c.memref());
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::abs(expected[i] - c.data[i]) /
                                (1.0 + std::abs(expected[i])));
  EXPECT_LT(worst, tolerance) << "largest relative error";
  if (specAt)
    spec.swap(*specAt);
}

/// The kernel that ran the largest contraction since the last reset.
std::string lastKernel() {
  hwagent_kernel_stat_t stat{};
  if (hwagent_kernels_stats(&stat, 1) < 1 || !stat.kernel)
    return "";
  return stat.kernel;
}

TEST(Kernels, MatmulAllTranspositions) {
  std::mt19937 rng(1);
  // C[i,j] += A[i,k] B[k,j]: A and B as views, no packing.
  {
    Tensor a({37, 19}, rng), b({19, 23}, rng), c({37, 23}, rng);
    check({37, 23, 19}, a, {dim(0), dim(2)}, b, {dim(2), dim(1)}, c,
          {dim(0), dim(1)});
  }
  // A transposed (A[k,i]) and B transposed (B[j,k]).
  {
    Tensor a({19, 37}, rng), b({23, 19}, rng), c({37, 23}, rng);
    check({37, 23, 19}, a, {dim(2), dim(0)}, b, {dim(1), dim(2)}, c,
          {dim(0), dim(1)});
  }
  // C transposed (C[j,i]): packed through the scatter.
  {
    Tensor a({37, 19}, rng), b({19, 23}, rng), c({23, 37}, rng);
    check({37, 23, 19}, a, {dim(0), dim(2)}, b, {dim(2), dim(1)}, c,
          {dim(1), dim(0)});
  }
}

// A later module's spec at a freed module's address (the same layer at
// another batch size: same strides, other M) must not run with the old
// plan: plans are keyed by the spec's contents.
TEST(Kernels, SpecReusedAtOneAddress) {
  std::mt19937 rng(7);
  std::vector<int64_t> spec;
  spec.reserve(256);
  const int64_t *address = spec.data();
  for (int64_t m : {8, 40, 3, 40}) {
    Tensor a({m, 19}, rng), b({19, 23}, rng), c({m, 23}, rng, true);
    check({m, 23, 19}, a, {dim(0), dim(2)}, b, {dim(2), dim(1)}, c,
          {dim(0), dim(1)}, &spec);
    EXPECT_EQ(spec.data(), address);
  }
  // The statistics are per spec contents too: three distinct contractions.
  EXPECT_GE(hwagent_kernels_stats(nullptr, 0), 3);
}

TEST(Kernels, BatchMatmul) {
  std::mt19937 rng(2);
  Tensor a({3, 8, 5}, rng), b({3, 5, 6}, rng), c({3, 8, 6}, rng, true);
  check({3, 8, 6, 5}, a, {dim(0), dim(1), dim(3)}, b, {dim(0), dim(3), dim(2)},
        c, {dim(0), dim(1), dim(2)});
}

TEST(Kernels, ConvolutionForwardStridedAndDilated) {
  std::mt19937 rng(3);
  // out[n,f,oh,ow] += x[n,c,2oh+kh,2ow+kw] * w[f,c,kh,kw]
  // loops: n f oh ow c kh kw
  Tensor x({2, 3, 11, 11}, rng), w({4, 3, 3, 3}, rng),
      out({2, 4, 5, 5}, rng, true);
  check({2, 4, 5, 5, 3, 3, 3}, x, {dim(0), dim(4), sum(2, 5, 2), sum(3, 6, 2)},
        w, {dim(1), dim(4), dim(5), dim(6)}, out,
        {dim(0), dim(1), dim(2), dim(3)});
}

TEST(Kernels, ConvolutionGradients) {
  std::mt19937 rng(4);
  // Weight gradient: dw[f,c,kh,kw] += dy[n,f,oh,ow] * x[n,c,oh+kh,ow+kw]
  // loops: f c kh kw n oh ow
  {
    Tensor dy({2, 5, 6, 6}, rng), x({2, 3, 8, 8}, rng), dw({5, 3, 3, 3}, rng);
    check({5, 3, 3, 3, 2, 6, 6}, dy, {dim(4), dim(0), dim(5), dim(6)}, x,
          {dim(4), dim(1), sum(5, 2), sum(6, 3)}, dw,
          {dim(0), dim(1), dim(2), dim(3)});
  }
  // Input gradient with a flipped kernel: dx[n,c,h,w] +=
  // dyp[n,f,h+kh,w+kw] * w[f,c,2-kh,2-kw]; loops: n c h w f kh kw
  {
    Tensor dyp({2, 5, 8, 8}, rng), w({5, 3, 3, 3}, rng),
        dx({2, 3, 6, 6}, rng, true);
    Index flipH{2, {{5, -1}}}, flipW{2, {{6, -1}}};
    check({2, 3, 6, 6, 5, 3, 3}, dyp, {dim(0), dim(4), sum(2, 5), sum(3, 6)}, w,
          {dim(4), dim(1), flipH, flipW}, dx, {dim(0), dim(1), dim(2), dim(3)});
  }
}

TEST(Kernels, LargeBlockedContraction) {
  std::mt19937 rng(5);
  // Big enough that packing is blocked along K (B is packed: a window).
  // dw[f,c,kh] += dy[n,f,t] * x[n,c,t+kh]; loops f c kh n t
  // K = 64 * 1024 rows of 100 * 3 columns: over the packing budget.
  // It is a 1-D convolution's weight gradient: the SGEMM path is checked
  // with oneDNN's convolution primitives off.
  Tensor dy({64, 2, 1024}, rng), x({64, 100, 1026}, rng),
      dw({2, 100, 3}, rng, true);
  hwagent_rt::kernels::setConvolutionPrimitives(
      hwagent_rt::kernels::ConvolutionPrimitives::None);
  hwagent_kernels_reset_stats();
  check({2, 100, 3, 64, 1024}, dy, {dim(3), dim(0), dim(4)}, x,
        {dim(3), dim(1), sum(4, 2)}, dw, {dim(0), dim(1), dim(2)});
  EXPECT_EQ(lastKernel(), "SGEMM");
  // The default keeps dense weight gradients on the SGEMMs too (checked in
  // ConvolutionsRunAsOneDnnPrimitives); All sends them to oneDNN's
  // backward-weights kernel, which sums the 65,536 products per element in
  // f32 in longer runs than the blocked SGEMM: measured 3.6e-4 relative to
  // the double reference, within f32's bound for a sum this long (65,536 x
  // 2^-24 = 3.9e-3).
  hwagent_rt::kernels::setConvolutionPrimitives(
      hwagent_rt::kernels::ConvolutionPrimitives::All);
  std::fill(dw.data.begin(), dw.data.end(), 0.0f);
  hwagent_kernels_reset_stats();
  check({2, 100, 3, 64, 1024}, dy, {dim(3), dim(0), dim(4)}, x,
        {dim(3), dim(1), sum(4, 2)}, dw, {dim(0), dim(1), dim(2)}, nullptr,
        2e-3);
  EXPECT_EQ(lastKernel(), "oneDNN convolution (weight gradient)");
  hwagent_rt::kernels::setConvolutionPrimitives(
      hwagent_rt::kernels::ConvolutionPrimitives::Default);
}

TEST(Kernels, BatchPointsSplitAcrossThreads) {
  // Enough FLOPs for several threads and a batch loop with C written in
  // place: the threads take whole images (or heads), each packing and
  // multiplying its own; the result is checked against the reference.
  hwagent_kernels_set_threads(3);
  std::mt19937 rng(6);
  {
    // out[n,f,oh,ow] += x[n,c,oh+kh,ow+kw] * w[f,c,kh,kw], 75 MFLOP.
    Tensor x({8, 16, 34, 34}, rng), w({32, 16, 3, 3}, rng),
        out({8, 32, 32, 32}, rng, true);
    check({8, 32, 32, 32, 16, 3, 3}, x, {dim(0), dim(4), sum(2, 5), sum(3, 6)},
          w, {dim(1), dim(4), dim(5), dim(6)}, out,
          {dim(0), dim(1), dim(2), dim(3)});
  }
  {
    // Six heads of a 128 x 96 x 128 matmul, 19 MFLOP.
    Tensor a({6, 128, 96}, rng), b({6, 96, 128}, rng),
        c({6, 128, 128}, rng, true);
    check({6, 128, 128, 96}, a, {dim(0), dim(1), dim(3)}, b,
          {dim(0), dim(3), dim(2)}, c, {dim(0), dim(1), dim(2)});
  }
  hwagent_kernels_set_threads(0);
}

std::optional<hwcore::ConvolutionForm>
formOf(const std::vector<int64_t> &extents, const std::vector<Index> &mapA,
       const std::vector<Index> &mapB, const std::vector<Index> &mapC) {
  std::vector<int64_t> spec = makeSpec(extents, mapA, mapB, mapC);
  return hwcore::recognizeConvolution(spec.data(),
                                      static_cast<int64_t>(spec.size()));
}

TEST(ConvolutionForm, NamesTheRolesOfTheLoops) {
  using Kind = hwcore::ConvolutionForm::Kind;
  // Forward, stride 2, dilation 3; loops n f oh ow c kh kw.
  auto f = formOf(
      {2, 4, 5, 5, 3, 3, 3}, {dim(0), dim(4), sum(2, 5, 2), sum(3, 6, 2)},
      {dim(1), dim(4), dim(5), dim(6)}, {dim(0), dim(1), dim(2), dim(3)});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, Kind::Forward);
  EXPECT_EQ(f->src, 0);
  EXPECT_EQ(f->weights, 1);
  EXPECT_EQ(f->batch, 0);
  EXPECT_EQ(f->outChannel, 1);
  EXPECT_EQ(f->inChannel, 4);
  EXPECT_EQ(f->group, -1);
  EXPECT_EQ(f->spatial, 2);
  EXPECT_EQ(f->out[0], 2);
  EXPECT_EQ(f->kernel[1], 6);
  EXPECT_EQ(f->stride[0], 2);
  EXPECT_EQ(f->dilation[0], 1);
  // Weight gradient, the windowed operand second; loops f c kh kw n oh ow.
  auto w = formOf({5, 3, 3, 3, 2, 6, 6}, {dim(4), dim(0), dim(5), dim(6)},
                  {dim(4), dim(1), sum(5, 2), sum(6, 3)},
                  {dim(0), dim(1), dim(2), dim(3)});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->kind, Kind::WeightGradient);
  EXPECT_EQ(w->src, 1);
  EXPECT_EQ(w->dst, 0);
  EXPECT_EQ(w->batch, 4);
  EXPECT_EQ(w->outChannel, 0);
  EXPECT_EQ(w->inChannel, 1);
  EXPECT_EQ(w->kernel[0], 2);
  EXPECT_EQ(w->out[0], 5);
  // Depthwise: the channel moves all three operands (a group per channel).
  auto d = formOf({2, 8, 6, 6, 3, 3}, {dim(0), dim(1), sum(2, 4), sum(3, 5)},
                  {dim(1), dim(4), dim(5)}, {dim(0), dim(1), dim(2), dim(3)});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->group, 1);
  EXPECT_EQ(d->outChannel, -1);
  EXPECT_EQ(d->inChannel, -1);
  // Input gradient, scattered into the padded dX: dx[n,c,2oh+kh,2ow+kw] +=
  // dy[n,f,oh,ow] w[f,c,kh,kw]; loops n c oh ow f kh kw.
  auto i = formOf({2, 3, 4, 4, 5, 3, 3}, {dim(0), dim(4), dim(2), dim(3)},
                  {dim(4), dim(1), dim(5), dim(6)},
                  {dim(0), dim(1), sum(2, 5, 2), sum(3, 6, 2)});
  ASSERT_TRUE(i);
  EXPECT_EQ(i->kind, Kind::InputGradient);
  EXPECT_EQ(i->src, 2);
  EXPECT_EQ(i->dst, 0);
  EXPECT_EQ(i->batch, 0);
  EXPECT_EQ(i->inChannel, 1);
  EXPECT_EQ(i->outChannel, 4);
  EXPECT_EQ(i->stride[1], 2);
  // Not convolutions: a matmul, a flipped filter (an offset), a role taken
  // by two loops.
  EXPECT_FALSE(
      formOf({4, 4, 4}, {dim(0), dim(2)}, {dim(2), dim(1)}, {dim(0), dim(1)}));
  Index flip{2, {{5, -1}}};
  EXPECT_FALSE(
      formOf({2, 3, 6, 6, 5, 3, 3}, {dim(0), dim(4), sum(2, 5), sum(3, 6)},
             {dim(4), dim(1), flip, flip}, {dim(0), dim(1), dim(2), dim(3)}));
  EXPECT_FALSE(formOf({2, 2, 4, 6, 3}, {dim(0), dim(1), sum(3, 4)},
                      {dim(2), dim(4)}, {dim(0), dim(1), dim(2), dim(3)}));
}

// Depthwise and grouped convolutions and their gradients, each
// accumulating into a C that is not zero, on oneDNN's primitives and (the
// same cases) on the SGEMM path.
TEST(Kernels, ConvolutionsRunAsOneDnnPrimitives) {
  std::mt19937 rng(8);
  for (bool primitives : {true, false}) {
    hwagent_rt::kernels::setConvolutionPrimitives(
        primitives ? hwagent_rt::kernels::ConvolutionPrimitives::Default
                   : hwagent_rt::kernels::ConvolutionPrimitives::None);
    std::string forward = primitives ? "oneDNN convolution (forward)" : "SGEMM";
    std::string gradient =
        primitives ? "oneDNN convolution (weight gradient)" : "SGEMM";
    // Depthwise, stride 2: out[n,c,oh,ow] += x[n,c,2oh+kh,2ow+kw] w[c,kh,kw]
    Tensor x({2, 8, 11, 11}, rng), w({8, 3, 3}, rng), out({2, 8, 5, 5}, rng);
    hwagent_kernels_reset_stats();
    check({2, 8, 5, 5, 3, 3}, x, {dim(0), dim(1), sum(2, 4, 2), sum(3, 5, 2)},
          w, {dim(1), dim(4), dim(5)}, out, {dim(0), dim(1), dim(2), dim(3)});
    EXPECT_EQ(lastKernel(), forward);
    // Its weight gradient: dw[c,kh,kw] += dy[n,c,oh,ow] x[n,c,2oh+kh,..];
    // loops c kh kw n oh ow.
    Tensor dy({2, 8, 5, 5}, rng), dw({8, 3, 3}, rng);
    hwagent_kernels_reset_stats();
    check({8, 3, 3, 2, 5, 5}, dy, {dim(3), dim(0), dim(4), dim(5)}, x,
          {dim(3), dim(0), sum(4, 1, 2), sum(5, 2, 2)}, dw,
          {dim(0), dim(1), dim(2)});
    EXPECT_EQ(lastKernel(), gradient);
    // Its input gradient, scattered: dx[n,c,2oh+kh,2ow+kw] += dy[n,c,oh,ow]
    // w[c,kh,kw]; loops n c oh ow kh kw.
    std::string input =
        primitives ? "oneDNN convolution (input gradient)" : "SGEMM";
    Tensor dx({2, 8, 11, 11}, rng);
    hwagent_kernels_reset_stats();
    check({2, 8, 5, 5, 3, 3}, dy, {dim(0), dim(1), dim(2), dim(3)}, w,
          {dim(1), dim(4), dim(5)}, dx,
          {dim(0), dim(1), sum(2, 4, 2), sum(3, 5, 2)});
    EXPECT_EQ(lastKernel(), input);
    // A dense input gradient, stride 2 and dilation 2, written the same
    // way; loops n c oh ow f kh kw.
    Tensor fdy({2, 6, 4, 4}, rng), fw({6, 5, 3, 3}, rng),
        fdx({2, 5, 11, 11}, rng);
    hwagent_kernels_reset_stats();
    check({2, 5, 4, 4, 6, 3, 3}, fdy, {dim(0), dim(4), dim(2), dim(3)}, fw,
          {dim(4), dim(1), dim(5), dim(6)}, fdx,
          {dim(0), dim(1), {0, {{2, 2}, {5, 2}}}, {0, {{3, 2}, {6, 2}}}});
    EXPECT_EQ(lastKernel(), input);
    // Two groups, dilation 2: out[n,g,f,oh,ow] += x[n,g,c,oh+2kh,ow+2kw]
    // w[g,f,c,kh,kw]; loops n g f oh ow c kh kw.
    Tensor gx({2, 2, 3, 10, 10}, rng), gw({2, 4, 3, 3, 3}, rng),
        gout({2, 2, 4, 6, 6}, rng);
    hwagent_kernels_reset_stats();
    check(
        {2, 2, 4, 6, 6, 3, 3, 3}, gx,
        {dim(0), dim(1), dim(5), {0, {{3, 1}, {6, 2}}}, {0, {{4, 1}, {7, 2}}}},
        gw, {dim(1), dim(2), dim(5), dim(6), dim(7)}, gout,
        {dim(0), dim(1), dim(2), dim(3), dim(4)});
    EXPECT_EQ(lastKernel(), forward);
    // A dense weight gradient stays with the SGEMMs by default:
    // dw[f,c,kh,kw] += dy[n,f,oh,ow] x[n,c,oh+kh,ow+kw].
    Tensor ddy({2, 6, 6, 6}, rng), dx8({2, 5, 8, 8}, rng),
        ddw({6, 5, 3, 3}, rng);
    hwagent_kernels_reset_stats();
    check({6, 5, 3, 3, 2, 6, 6}, ddy, {dim(4), dim(0), dim(5), dim(6)}, dx8,
          {dim(4), dim(1), sum(5, 2), sum(6, 3)}, ddw,
          {dim(0), dim(1), dim(2), dim(3)});
    EXPECT_EQ(lastKernel(), "SGEMM");
  }
  hwagent_rt::kernels::setConvolutionPrimitives(
      hwagent_rt::kernels::ConvolutionPrimitives::Default);
}

TEST(Kernels, ThreadCountIsKept) {
  EXPECT_EQ(hwagent_kernels_set_threads(1), 1);
  EXPECT_GE(hwagent_kernels_set_threads(0), 1);
}

} // namespace

namespace {

TEST(Buffers, FreedBuffersAreReusedAndCounted) {
  hwagent_buffer_release_cache();
  hwagent_buffer_stats_t before;
  hwagent_buffer_stats(&before);
  hwagent_buffer_reset_peak();
  void *a = _mlir_memref_to_llvm_alloc(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  void *b = _mlir_memref_to_llvm_aligned_alloc(256, 100);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  hwagent_buffer_stats_t during;
  hwagent_buffer_stats(&during);
  // 1000 rounds to 1024; the over-aligned one to 256.
  EXPECT_EQ(during.live_bytes - before.live_bytes, 1024 + 256);
  EXPECT_GE(during.peak_bytes, during.live_bytes);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  hwagent_buffer_stats_t after;
  hwagent_buffer_stats(&after);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.cached_bytes - before.cached_bytes, 1024);
  // The next allocation of the same rounded size gets the same buffer back.
  void *again = _mlir_memref_to_llvm_alloc(1024);
  EXPECT_EQ(again, a);
  hwagent_buffer_free(again);
  hwagent_buffer_release_cache();
  hwagent_buffer_stats(&after);
  EXPECT_EQ(after.cached_bytes, 0);
  _mlir_memref_to_llvm_free(nullptr); // A no-op.
}

} // namespace
