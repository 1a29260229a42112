//===- ConvolutionKernel.cpp - convolutions as oneDNN primitives ----------===//
//
// The roles come from hwcore::recognizeConvolution, the sizes from the
// loops' extents, the strides from the operands (Operand::weight: elements
// per step of each loop). Each operand is described to oneDNN as it lies in
// the step's memory; the primitive is created with format `any` so that
// oneDNN picks its blocked layout and fastest implementation (jit direct
// kernels, depthwise ones for groups of one channel), and reorders convert
// between the two. A depthwise convolution is a grouped one with one input
// and one output channel per group.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionKernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

using namespace hwagent_rt::kernels;
using dnnl::memory;
using hwcore::ConvolutionForm;
using Dims = memory::dims;

namespace {

dnnl::engine &engine() {
  static dnnl::engine *e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e; // Never destroyed: kernels may run at exit.
}

dnnl::stream &stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

/// Scratch for the reordered operands, per thread and role, shared by every
/// convolution the thread runs (they run one at a time).
struct Staging {
  ScratchBuffer buffer[3];
};
thread_local Staging staging;

int64_t extentOf(const int64_t *extents, int loop) {
  return loop < 0 ? 1 : extents[loop];
}

/// Strides of one operand's logical dimensions; `ok` turns false when a
/// dimension of more than one element has no positive stride.
struct StrideReader {
  const Operand &op;
  const int64_t *extents;
  bool ok = true;

  int64_t of(int loop, int64_t divisor = 1) {
    if (loop < 0 || extents[loop] == 1)
      return 1; // A unit dimension: any stride describes it.
    int64_t w = op.weight[loop];
    if (w <= 0 || w % divisor != 0)
      ok = false;
    return w / divisor;
  }

  /// A (group, channel) pair merged into oneDNN's one channel dimension:
  /// the group's stride must be the channels' stride times their count.
  int64_t merged(int group, int channel) {
    int64_t groups = extentOf(extents, group),
            channels = extentOf(extents, channel);
    if (groups == 1)
      return of(channel);
    if (channels == 1)
      return of(group);
    int64_t s = of(channel);
    if (op.weight[group] != channels * s)
      ok = false;
    return s;
  }
};

/// The logical sizes and the three operands' descriptors in the step's
/// layout: activations (X), filter and the output-shaped operand.
struct Described {
  Dims strides, dilates, padding;
  memory::desc x, filter, outputShaped;
  int64_t groups = 1;
};

bool describe(const ConvolutionForm &f, const Operand *ops,
              const int64_t *extents, Described &d) {
  const Operand &x = ops[f.src], &filter = ops[f.weights], &out = ops[f.dst];
  auto e = [&](int loop) { return extentOf(extents, loop); };
  d.groups = e(f.group);
  int64_t n = e(f.batch), oc = e(f.outChannel), ic = e(f.inChannel);
  StrideReader rx{x, extents}, rf{filter, extents}, ro{out, extents};

  Dims xDims = {n, d.groups * ic}, xStrides = {rx.of(f.batch), 0};
  xStrides[1] = rx.merged(f.group, f.inChannel);
  Dims oDims = {n, d.groups * oc}, oStrides = {ro.of(f.batch), 0};
  oStrides[1] = ro.merged(f.group, f.outChannel);
  Dims wDims, wStrides;
  if (d.groups > 1) {
    wDims = {d.groups};
    wStrides = {rf.of(f.group)};
  }
  wDims.insert(wDims.end(), {oc, ic});
  wStrides.insert(wStrides.end(), {rf.of(f.outChannel), rf.of(f.inChannel)});
  for (int s = 0; s < f.spatial; ++s) {
    int64_t o = e(f.out[s]), k = e(f.kernel[s]);
    xDims.push_back((o - 1) * f.stride[s] + (k - 1) * f.dilation[s] + 1);
    xStrides.push_back(k > 1 ? rx.of(f.kernel[s], f.dilation[s])
                             : rx.of(f.out[s], f.stride[s]));
    oDims.push_back(o);
    oStrides.push_back(ro.of(f.out[s]));
    wDims.push_back(k);
    wStrides.push_back(rf.of(f.kernel[s]));
    d.strides.push_back(f.stride[s]);
    d.dilates.push_back(f.dilation[s] - 1); // oneDNN counts the gaps.
    d.padding.push_back(0);
  }
  if (!rx.ok || !rf.ok || !ro.ok)
    return false;
  auto f32 = memory::data_type::f32;
  d.x = memory::desc(xDims, f32, xStrides);
  d.filter = memory::desc(wDims, f32, wStrides);
  d.outputShaped = memory::desc(oDims, f32, oStrides);
  return true;
}

memory::desc any(const memory::desc &user) {
  return memory::desc(user.dims(), memory::data_type::f32,
                      memory::format_tag::any);
}

/// A sum post-op: the primitive adds its result to what its destination
/// holds (C += result).
dnnl::primitive_attr sumAttribute() {
  dnnl::post_ops sum;
  sum.append_sum(1.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(sum);
  return attr;
}

/// One operand the primitive reads: the step's memory, and when the
/// primitive wants another layout, the reorder into thread scratch.
struct Input {
  memory user, internal;
  dnnl::reorder toInternal;
  bool staged = false;
  int role = 0;

  void init(const memory::desc &userDesc, const memory::desc &wanted, int r) {
    role = r;
    user = memory(userDesc, engine(), DNNL_MEMORY_NONE);
    staged = userDesc != wanted;
    if (staged) {
      internal = memory(wanted, engine(), DNNL_MEMORY_NONE);
      toInternal = dnnl::reorder(user, internal);
    }
  }

  memory &bind(float *base) {
    user.set_data_handle(base);
    if (!staged)
      return user;
    ScratchBuffer &b = staging.buffer[role];
    b.resize(internal.get_desc().get_size() / sizeof(float) + 1);
    internal.set_data_handle(b.data());
    toInternal.execute(stream(), user, internal);
    return internal;
  }
};

/// The result: written by the primitive into thread scratch, then added to
/// C by a reorder with a sum post-op (C += result); or, when the primitive
/// can write C's own layout and accumulate itself, directly into C.
struct Output {
  memory user, internal;
  dnnl::reorder addBack;
  bool staged = false;

  void init(const memory::desc &userDesc, const memory::desc &produced,
            bool direct) {
    user = memory(userDesc, engine(), DNNL_MEMORY_NONE);
    staged = !direct;
    if (staged) {
      internal = memory(produced, engine(), DNNL_MEMORY_NONE);
      addBack = dnnl::reorder(dnnl::reorder::primitive_desc(
          engine(), produced, engine(), userDesc, sumAttribute()));
    }
  }

  memory &bind(float *base) {
    user.set_data_handle(base);
    if (!staged)
      return user;
    ScratchBuffer &b = staging.buffer[kC];
    b.resize(internal.get_desc().get_size() / sizeof(float) + 1);
    internal.set_data_handle(b.data());
    return internal;
  }

  void finish() {
    if (staged)
      addBack.execute(stream(), internal, user);
  }
};

/// One oneDNN primitive: the two operands it reads (each with its
/// DNNL_ARG_ id, staged into the layout the primitive wants) and the one it
/// adds into C. The three forms differ only in which operand plays which
/// argument (makeForward, makeWeightGradient, makeInputGradient).
class PrimitiveKernel final : public ConvolutionKernel {
public:
  explicit PrimitiveKernel(const char *name) : label(name) {}

  /// Read slot `slot` (0 or 1, also the thread scratch it stages into):
  /// operand `operand` as argument `arg`.
  void read(int slot, int operand, int arg, const memory::desc &user,
            const memory::desc &wanted) {
    reads[slot] = {operand, arg};
    inputs[slot].init(user, wanted, slot == 0 ? kA : kB);
  }
  void write(int arg, const memory::desc &user, const memory::desc &produced,
             bool direct) {
    writeArg = arg;
    output.init(user, produced, direct);
  }

  void run(const Operand *ops) override {
    std::unordered_map<int, memory> args;
    for (int i = 0; i < 2; ++i)
      args.emplace(reads[i].second, inputs[i].bind(ops[reads[i].first].base));
    args.emplace(writeArg, output.bind(ops[kC].base));
    primitive.execute(stream(), args);
    output.finish();
  }

  const char *name() const override { return label; }

  dnnl::primitive primitive;

private:
  const char *label;
  std::pair<int, int> reads[2]; // (operand, DNNL_ARG_)
  Input inputs[2];
  int writeArg = 0;
  Output output;
};

std::unique_ptr<ConvolutionKernel> makeForward(const ConvolutionForm &f,
                                               const Described &d) {
  auto desc = [&](const memory::desc &dst, dnnl::algorithm algorithm) {
    return dnnl::convolution_forward::desc(
        dnnl::prop_kind::forward_inference, algorithm, any(d.x), any(d.filter),
        dst, d.strides, d.dilates, d.padding, d.padding);
  };
  // Accumulating in place (a sum post-op) needs C's own layout for the
  // destination; oneDNN's fast kernels want a blocked one, so the result
  // usually goes to scratch and is added back by the reorder.
  dnnl::convolution_forward::primitive_desc pd;
  try {
    pd = {desc(any(d.outputShaped), dnnl::algorithm::convolution_auto),
          engine()};
  } catch (const dnnl::error &) {
    pd = {desc(any(d.outputShaped), dnnl::algorithm::convolution_direct),
          engine()};
  }
  bool direct = pd.dst_desc() == d.outputShaped;
  if (direct)
    pd = {desc(d.outputShaped, dnnl::algorithm::convolution_direct),
          sumAttribute(), engine()};
  auto k = std::make_unique<PrimitiveKernel>("oneDNN convolution (forward)");
  k->read(0, f.src, DNNL_ARG_SRC, d.x, pd.src_desc());
  k->read(1, f.weights, DNNL_ARG_WEIGHTS, d.filter, pd.weights_desc());
  k->write(DNNL_ARG_DST, d.outputShaped, pd.dst_desc(), direct);
  k->primitive = dnnl::convolution_forward(pd);
  return k;
}

/// The forward primitive descriptor oneDNN's backward ones take as a hint.
dnnl::convolution_forward::primitive_desc forwardHint(const Described &d) {
  return {dnnl::convolution_forward::desc(
              dnnl::prop_kind::forward_training,
              dnnl::algorithm::convolution_direct, any(d.x), any(d.filter),
              any(d.outputShaped), d.strides, d.dilates, d.padding, d.padding),
          engine()};
}

std::unique_ptr<ConvolutionKernel> makeWeightGradient(const ConvolutionForm &f,
                                                      const Described &d) {
  dnnl::convolution_backward_weights::primitive_desc pd(
      dnnl::convolution_backward_weights::desc(
          dnnl::algorithm::convolution_direct, any(d.x), any(d.filter),
          any(d.outputShaped), d.strides, d.dilates, d.padding, d.padding),
      engine(), forwardHint(d));
  auto k =
      std::make_unique<PrimitiveKernel>("oneDNN convolution (weight gradient)");
  k->read(0, f.src, DNNL_ARG_SRC, d.x, pd.src_desc());
  k->read(1, f.dst, DNNL_ARG_DIFF_DST, d.outputShaped, pd.diff_dst_desc());
  k->write(DNNL_ARG_DIFF_WEIGHTS, d.filter, pd.diff_weights_desc(),
           /*direct=*/false);
  k->primitive = dnnl::convolution_backward_weights(pd);
  return k;
}

std::unique_ptr<ConvolutionKernel> makeInputGradient(const ConvolutionForm &f,
                                                     const Described &d) {
  dnnl::convolution_backward_data::primitive_desc pd(
      dnnl::convolution_backward_data::desc(
          dnnl::algorithm::convolution_direct, any(d.x), any(d.filter),
          any(d.outputShaped), d.strides, d.dilates, d.padding, d.padding),
      engine(), forwardHint(d));
  auto k =
      std::make_unique<PrimitiveKernel>("oneDNN convolution (input gradient)");
  k->read(0, f.dst, DNNL_ARG_DIFF_DST, d.outputShaped, pd.diff_dst_desc());
  k->read(1, f.weights, DNNL_ARG_WEIGHTS, d.filter, pd.weights_desc());
  k->write(DNNL_ARG_DIFF_SRC, d.x, pd.diff_src_desc(), /*direct=*/false);
  k->primitive = dnnl::convolution_backward_data(pd);
  return k;
}

/// HWAGENT_CONV_PRIMITIVES: 0 (none), 1 (the default), all (dense weight
/// gradients too).
std::atomic<int> &modeFlag() {
  static std::atomic<int> flag([] {
    const char *v = std::getenv("HWAGENT_CONV_PRIMITIVES");
    if (v && std::strcmp(v, "0") == 0)
      return static_cast<int>(ConvolutionPrimitives::None);
    if (v && std::strcmp(v, "all") == 0)
      return static_cast<int>(ConvolutionPrimitives::All);
    return static_cast<int>(ConvolutionPrimitives::Default);
  }());
  return flag;
}

} // namespace

std::unique_ptr<ConvolutionKernel>
hwagent_rt::kernels::makeConvolution(const ConvolutionForm &form,
                                     const Operand *ops, const int64_t *extents,
                                     int threads) {
  (void)threads; // The caller set OpenMP's count; oneDNN sizes by it.
  Described d;
  if (!describe(form, ops, extents, d))
    return nullptr;
  // A dense weight gradient stays with the packed SGEMMs: in the mid CNN's
  // step (1 thread, 2026-12-07) oneDNN 2.6's jit:avx2 backward-weights took
  // 13.7-17.1 ms per call of its 3x3 64->64 layer where the SGEMMs took
  // 9.3-11.4 (docs/cpu-backend.md); grouped and depthwise ones, which are
  // no GEMM, go to oneDNN (0.1 ms against 1.7-2.0).
  if (form.kind == ConvolutionForm::Kind::WeightGradient && d.groups == 1 &&
      convolutionPrimitives() != ConvolutionPrimitives::All)
    return nullptr;
  try {
    switch (form.kind) {
    case ConvolutionForm::Kind::Forward:
      return makeForward(form, d);
    case ConvolutionForm::Kind::WeightGradient:
      return makeWeightGradient(form, d);
    case ConvolutionForm::Kind::InputGradient:
      return makeInputGradient(form, d);
    }
    return nullptr;
  } catch (const dnnl::error &) {
    return nullptr; // No implementation for these descriptors: SGEMM.
  }
}

ConvolutionPrimitives hwagent_rt::kernels::convolutionPrimitives() {
  return static_cast<ConvolutionPrimitives>(
      modeFlag().load(std::memory_order_relaxed));
}

void hwagent_rt::kernels::setConvolutionPrimitives(ConvolutionPrimitives mode) {
  modeFlag().store(static_cast<int>(mode), std::memory_order_relaxed);
}
