//===- trainer.cpp - a compiled trainer linked with libhwagent_rt ---------===//
//
// The small CNN training step, compiled ahead of time by hwagent-opt
// (partition, lower to the runtime and to LLVM), mlir-translate and llc into
// an object file, linked with this driver and libhwagent_rt. The driver owns
// the data, calls the step N times feeding the parameters back, and reads
// the runtime's statistics. ANE times it prints are simulated.
//
//   hwagent-cnn-trainer [steps] [--log run.jsonl] [--trace trace.json]
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

/// A memref descriptor as MLIR's LLVM lowering lays it out.
template <int N> struct Memref {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};
struct Scalar {
  float *allocated;
  float *aligned;
  int64_t offset;
};
struct Results {
  Scalar loss;
  Memref<4> wStem;
  Memref<3> wDw;
  Memref<4> wPw;
  Memref<4> wConv;
  Memref<2> wFc;
  Memref<1> bFc;
};

extern "C" void _mlir_ciface_train_step(Results *, Memref<4> *x, Memref<2> *y,
                                        Memref<4> *, Memref<3> *, Memref<4> *,
                                        Memref<4> *, Memref<2> *, Memref<1> *);
extern "C" const hwagent_model_info_t *__hwagent_model_info();

template <int N>
static Memref<N> wrap(std::vector<float> &data, const int64_t (&shape)[N]) {
  Memref<N> m;
  m.allocated = m.aligned = data.data();
  m.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = shape[i];
    m.strides[i] = stride;
    stride *= shape[i];
  }
  return m;
}

template <int N>
static std::vector<float> init(const int64_t (&shape)[N], double fan,
                               std::mt19937 &rng) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = fan > 0 ? normal(rng) / std::sqrt(fan) : 0.0f;
  return v;
}

int main(int argc, char **argv) {
  int steps = 50;
  const char *log = nullptr, *trace = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log") && i + 1 < argc)
      log = argv[++i];
    else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc)
      trace = argv[++i];
    else
      steps = std::atoi(argv[i]);
  }
  if (hwagent_rt_api_version() != HWAGENT_RT_API_VERSION) {
    std::fprintf(stderr, "libhwagent_rt API %u, built against %u\n",
                 hwagent_rt_api_version(), HWAGENT_RT_API_VERSION);
    return 1;
  }
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.log_path = log;
  options.trace_path = trace;
  hwagent_session_t *session = nullptr;
  if (hwagent_session_create(__hwagent_model_info(), &options, &session) !=
      HWAGENT_OK) {
    std::fprintf(stderr, "cannot create the runtime session: %s\n",
                 hwagent_error_message());
    return 1;
  }
  hwagent_session_make_current(session);

  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t xs[4] = {4, 3, 8, 8}, ys[2] = {4, 4};
  const int64_t stem[4] = {8, 3, 3, 3}, dw[3] = {8, 3, 3},
                pw[4] = {16, 8, 1, 1}, conv[4] = {16, 16, 3, 3},
                fc[2] = {16, 4}, bias[1] = {4};
  std::vector<float> xData(4 * 3 * 8 * 8), yData(4 * 4, 0.0f);
  for (float &v : xData)
    v = normal(rng);
  for (int n = 0; n < 4; ++n)
    yData[n * 4 + (n * 7 + 3) % 4] = 1.0f;
  std::vector<float> p0 = init(stem, 27, rng), p1 = init(dw, 9, rng),
                     p2 = init(pw, 8, rng), p3 = init(conv, 144, rng),
                     p4 = init(fc, 16, rng), p5 = init(bias, 0, rng);
  Memref<4> x = wrap(xData, xs);
  Memref<2> y = wrap(yData, ys);
  Results params{};
  params.wStem = wrap(p0, stem);
  params.wDw = wrap(p1, dw);
  params.wPw = wrap(p2, pw);
  params.wConv = wrap(p3, conv);
  params.wFc = wrap(p4, fc);
  params.bFc = wrap(p5, bias);

  auto hostOwned = [&](float *p) {
    for (std::vector<float> *v : {&p0, &p1, &p2, &p3, &p4, &p5})
      if (p == v->data())
        return true;
    return false;
  };
  float first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    Results out;
    _mlir_ciface_train_step(&out, &x, &y, &params.wStem, &params.wDw,
                            &params.wPw, &params.wConv, &params.wFc,
                            &params.bFc);
    last = out.loss.aligned[out.loss.offset];
    if (step == 0)
      first = last;
    hwagent_buffer_free(out.loss.allocated);
    float *previous[] = {params.wStem.allocated, params.wDw.allocated,
                         params.wPw.allocated,   params.wConv.allocated,
                         params.wFc.allocated,   params.bFc.allocated};
    float *next[] = {out.wStem.allocated, out.wDw.allocated, out.wPw.allocated,
                     out.wConv.allocated, out.wFc.allocated, out.bFc.allocated};
    for (int k = 0; k < 6; ++k)
      if (previous[k] != next[k] && !hostOwned(previous[k]))
        hwagent_buffer_free(previous[k]);
    Scalar loss = params.loss;
    params = out;
    params.loss = loss;
    hwagent_session_end_step(session, last);
    if (step % 10 == 0 || step == steps - 1) {
      hwagent_step_stats_t stats;
      hwagent_session_step_stats(session, &stats);
      std::printf("step %3d  loss %.5f  step %.3f ms (cpu %.0f%% measured, "
                  "ane %.0f%% simulated)\n",
                  step, last, stats.last_step_seconds * 1e3,
                  stats.share[HWAGENT_BACKEND_CPU] * 100,
                  stats.share[HWAGENT_BACKEND_ANE] * 100);
    }
  }
  for (float *p :
       {params.wStem.allocated, params.wDw.allocated, params.wPw.allocated,
        params.wConv.allocated, params.wFc.allocated, params.bFc.allocated})
    if (!hostOwned(p))
      hwagent_buffer_free(p);
  if (hwagent_session_destroy(session) != HWAGENT_OK) {
    std::fprintf(stderr, "trainer: %s\n", hwagent_error_message());
    return 1;
  }
  std::printf("trainer: loss %.5f -> %.5f over %d steps\n", first, last, steps);
  return std::isfinite(last) && last < first ? 0 : 1;
}
