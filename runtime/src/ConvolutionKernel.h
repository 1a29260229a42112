//===- ConvolutionKernel.h - convolutions as oneDNN primitives -*- C++ -*-===//
//
// Private to the runtime's kernels (Kernels.cpp). A contraction that
// hwcore::recognizeConvolution names a convolution runs as oneDNN's
// convolution primitive (forward, backward-weights for the weight gradient,
// backward-data for the input gradient) instead of im2col + SGEMM, as PyTorch's
// CPU backend runs it: the operands stay in the step's layout (any strides;
// described to oneDNN by their strides), are reordered into the blocked layout
// oneDNN's direct and Winograd kernels choose, and the result is added back
// into C's layout by a reorder with a sum post-op (C += conv). A kernel is made
// once per spec, operand strides and thread count, and kept with the
// contraction's plan.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_CONVOLUTIONKERNEL_H
#define HWAGENT_RT_CONVOLUTIONKERNEL_H

#include "KernelPlan.h"

#include "HwAgent/Core/Convolution.h"

#include <memory>

namespace hwagent_rt::kernels {

class ConvolutionKernel {
public:
  virtual ~ConvolutionKernel() = default;
  /// C += conv(A, B) for the operands' current base pointers.
  virtual void run(const Operand *ops) = 0;
  /// What the kernel statistics call it ("dnnl convolution forward", ...).
  virtual const char *name() const = 0;
};

/// The kernel for `form` with the operands' strides (ops[o].weight) and the
/// loops' extents, made for `threads` OpenMP threads; null when oneDNN
/// cannot describe the operands (a merged channel dimension whose strides
/// do not nest) or refuses the primitive: the caller runs it as SGEMMs.
std::unique_ptr<ConvolutionKernel>
makeConvolution(const hwcore::ConvolutionForm &form, const Operand *ops,
                const int64_t *extents, int threads);

/// Which recognized convolutions run as oneDNN's primitives: none (the
/// SGEMM path for every contraction), the default (all but dense weight
/// gradients, which the SGEMMs ran as fast or faster here:
/// docs/cpu-backend.md) or all. HWAGENT_CONV_PRIMITIVES=0 / all in the
/// environment sets it at start, for benchmarks and tests that compare.
enum class ConvolutionPrimitives { None, Default, All };
ConvolutionPrimitives convolutionPrimitives();
void setConvolutionPrimitives(ConvolutionPrimitives mode);

} // namespace hwagent_rt::kernels

#endif // HWAGENT_RT_CONVOLUTIONKERNEL_H
