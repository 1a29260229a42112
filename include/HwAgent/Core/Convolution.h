//===- Convolution.h - convolutions recognized in contraction specs -*- C++
//-*-===//
//
// A contraction's spec (hwagent_kernels.h: loops, and per operand dimension
// an index `constant + sum(coefficient * loop)`) says everything about a
// convolution but the name. recognizeConvolution reads the name back: which
// input is the windowed one (the activations), which loops are the batch,
// the groups, the output and input channels and the spatial output/kernel
// pairs, with their strides and dilations. The compiler
// (hwagent-linalg-to-kernels) uses it to send convolutions that are no
// useful GEMM (depthwise ones: N = 1, K = 9) to the kernel anyway; the
// runtime uses it to run them with oneDNN's convolution primitives instead
// of im2col + SGEMM (docs/cpu-backend.md). Plain C++17, no LLVM, no MLIR.
//
// Three forms, each written `C += A * B` (in either input order), with S
// the activations (src: the windowed operand), W the filter and D the
// output-shaped operand (dst):
//   forward:         D[n,g,oc,o...] += S[n,g,ic,s*o+d*k...] * W[g,oc,ic,k...]
//   weight gradient: W[g,oc,ic,k...] += S[n,g,ic,s*o+d*k...] * D[n,g,oc,o...]
//   input gradient:  S[n,g,ic,s*o+d*k...] += D[n,g,oc,o...] * W[g,oc,ic,k...]
// The roles of the loops are the same in all three (batch: S and D; input
// channels: S and W; output channels: W and D; groups: all three; in each
// window the output position moves S and D, the kernel position S and W);
// only which operand is C differs. The formula is symmetric in (D, o, n)
// and (W, k, ic); the extents break the tie: in each window the kernel loop
// is the shorter one. The input gradient the importer writes is the third
// form (dY scattered into a padded dX); an older form (a stride-1
// correlation of the padded, zero-interleaved dY with the flipped filter)
// is the forward one.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_CORE_CONVOLUTION_H
#define HWAGENT_CORE_CONVOLUTION_H

#include <cstdint>
#include <optional>

namespace hwcore {

struct ConvolutionForm {
  enum class Kind { Forward, WeightGradient, InputGradient };
  static constexpr int kMaxSpatial = 3;

  Kind kind = Kind::Forward;
  /// Operand indices (0 = A, 1 = B, 2 = C) of the activations (the windowed
  /// operand), the filter and the output-shaped operand; C is dst for the
  /// forward form, weights for the weight gradient, src for the input
  /// gradient.
  int src = 0, weights = 1, dst = 2;
  /// Loops by role, -1 where the form has none (extent 1).
  int batch = -1, group = -1, outChannel = -1, inChannel = -1;
  int spatial = 0;
  int out[kMaxSpatial] = {-1, -1, -1};
  int kernel[kMaxSpatial] = {-1, -1, -1};
  int64_t stride[kMaxSpatial] = {1, 1, 1};
  int64_t dilation[kMaxSpatial] = {1, 1, 1};
};

/// The convolution `spec` (hwagent_kernels.h's layout, version 1) computes,
/// or nothing: every loop must have a role, every operand dimension be one
/// loop (or a constant 0 of a unit dimension) except the windows
/// `s*o + d*k` of one operand, with zero offset (the importer pads
/// beforehand), no loop twice in an operand, 1 to 3 windows. Never reads
/// past `size`.
std::optional<ConvolutionForm> recognizeConvolution(const int64_t *spec,
                                                    int64_t size);

} // namespace hwcore

#endif // HWAGENT_CORE_CONVOLUTION_H
