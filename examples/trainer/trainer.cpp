//===- trainer.cpp - a compiled trainer linked with libhwagent_rt ---------===//
//
// The digits CNN (examples/digits_cnn_train_step.mlir: @train_step and
// @eval_step), compiled ahead of time by hwagent-opt (partition, lower to the
// runtime and to LLVM), mlir-translate and llc, linked with this driver and
// libhwagent_rt. Everything goes through the C API by name: the data and the
// initial parameters come from the files scripts/digits.py exports (.npz,
// safetensors), buffers are bound to the step's arguments by name (no memref
// descriptors by hand), and the trained parameters go to a safetensors
// checkpoint. ANE times the runtime reports are simulated.
//
//   hwagent-digits-trainer <data-dir> [epochs] [--save out.safetensors]
//                          [--log run.jsonl]
//
// <data-dir> holds digits.npz and digits_cnn_init.safetensors
// (`scripts/digits.py export --out <data-dir>`). The first 80 % of the
// samples train (in order), the rest are held out.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_rt.h"
#include "hwagent_rt/hwagent_tensor_file.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" const hwagent_model_info_t *__hwagent_model_info();

namespace {

int fail(const std::string &what) {
  std::fprintf(stderr, "trainer: %s: %s\n", what.c_str(),
               hwagent_error_message());
  return 1;
}

/// A host buffer for one argument, shaped as the model info says.
struct Buffer {
  const hwagent_value_info_t *info;
  std::vector<char> bytes;
  int64_t elements() const {
    int64_t n = 1;
    for (int32_t d = 0; d < info->rank; ++d)
      n *= info->shape[d];
    return n;
  }
  float *f32() { return reinterpret_cast<float *>(bytes.data()); }
};

/// Binds every argument of `step` to a buffer; parameters share `params`.
bool bindAll(hwagent_step_t *step, std::vector<Buffer> &own,
             std::vector<Buffer> &params) {
  const hwagent_function_info_t *fn = hwagent_step_function(step);
  own.clear();
  own.reserve(fn->num_args);
  for (uint32_t a = 0; a < fn->num_args; ++a) {
    const hwagent_value_info_t &info = fn->args[a];
    Buffer *buffer = nullptr;
    for (Buffer &p : params)
      if (std::strcmp(p.info->name, info.name) == 0)
        buffer = &p;
    if (!buffer) {
      own.push_back({&info, {}});
      buffer = &own.back();
      buffer->bytes.resize(buffer->elements() * hwagent_dtype_size(info.dtype));
    }
    if (hwagent_step_bind(step, info.name, buffer->bytes.data(), info.dtype,
                          info.rank, info.shape) != HWAGENT_OK)
      return false;
  }
  return true;
}

Buffer *find(std::vector<Buffer> &buffers, const char *name) {
  for (Buffer &b : buffers)
    if (std::strcmp(b.info->name, name) == 0)
      return &b;
  return nullptr;
}

/// Copies samples [first, first + batch) into the "x" and one-hot "y"
/// buffers.
void fill(std::vector<Buffer> &args, const hwagent_tensor_t &x,
          const hwagent_tensor_t &y, int64_t first) {
  Buffer *xb = find(args, "x"), *yb = find(args, "y");
  int64_t batch = xb->info->shape[0], sample = xb->elements() / batch;
  int64_t classes = yb->info->shape[1];
  std::memcpy(xb->bytes.data(),
              static_cast<const float *>(x.data) + first * sample,
              batch * sample * sizeof(float));
  std::fill(yb->f32(), yb->f32() + yb->elements(), 0.0f);
  for (int64_t i = 0; i < batch; ++i)
    yb->f32()[i * classes + static_cast<const int64_t *>(y.data)[first + i]] =
        1.0f;
}

/// Whether `x` and `y` can feed the step's "x" and one-hot "y" arguments:
/// as many labels as samples, the step's sample size, every label a class.
/// The file is input like any other: check it before reading it.
bool checkData(std::vector<Buffer> &args, const hwagent_tensor_t &x,
               const hwagent_tensor_t &y) {
  Buffer *xb = find(args, "x"), *yb = find(args, "y");
  int64_t batch = xb->info->shape[0], classes = yb->info->shape[1];
  int64_t sample = batch > 0 ? xb->elements() / batch : 0;
  if (x.rank < 1 || y.rank != 1 || y.shape[0] != x.shape[0] ||
      x.shape[0] < batch || batch <= 0 ||
      hwagent_tensor_elements(&x) != x.shape[0] * sample) {
    std::fprintf(stderr,
                 "trainer: digits.npz: x must hold samples of %lld values "
                 "and y one label per sample, at least %lld of them\n",
                 (long long)sample, (long long)batch);
    return false;
  }
  const int64_t *labels = static_cast<const int64_t *>(y.data);
  for (int64_t i = 0; i < y.shape[0]; ++i)
    if (labels[i] < 0 || labels[i] >= classes) {
      std::fprintf(stderr,
                   "trainer: digits.npz: label %lld at sample %lld is out of "
                   "range (0..%lld)\n",
                   (long long)labels[i], (long long)i,
                   (long long)(classes - 1));
      return false;
    }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string dir, save, log;
  int epochs = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--save") && i + 1 < argc)
      save = argv[++i];
    else if (!std::strcmp(argv[i], "--log") && i + 1 < argc)
      log = argv[++i];
    else if (dir.empty())
      dir = argv[i];
    else
      epochs = std::atoi(argv[i]);
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: hwagent-digits-trainer <data-dir> [epochs] "
                         "[--save out.safetensors] [--log run.jsonl]\n");
    return 2;
  }
  if (hwagent_rt_api_version() != HWAGENT_RT_API_VERSION) {
    std::fprintf(stderr, "libhwagent_rt API %u, built against %u\n",
                 hwagent_rt_api_version(), HWAGENT_RT_API_VERSION);
    return 1;
  }
  // The data and the initial parameters.
  hwagent_tensor_file_t *data = nullptr, *init = nullptr;
  if (hwagent_tensor_file_open((dir + "/digits.npz").c_str(), &data) !=
          HWAGENT_OK ||
      hwagent_tensor_file_open((dir + "/digits_cnn_init.safetensors").c_str(),
                               &init) != HWAGENT_OK)
    return fail("reading the data");
  hwagent_tensor_t x, y;
  if (hwagent_tensor_file_find(data, "x", &x) != HWAGENT_OK ||
      hwagent_tensor_file_find(data, "y", &y) != HWAGENT_OK)
    return fail("digits.npz");
  if (x.dtype != HWAGENT_DTYPE_F32 || y.dtype != HWAGENT_DTYPE_I64) {
    std::fprintf(stderr, "trainer: digits.npz: x must be f32, y i64\n");
    return 1;
  }

  // The session and the two compiled functions, bound by name.
  const hwagent_model_info_t *model = __hwagent_model_info();
  hwagent_options_t options;
  hwagent_options_init(&options);
  options.log_path = log.empty() ? nullptr : log.c_str();
  hwagent_session_t *session = nullptr;
  hwagent_step_t *train = nullptr, *eval = nullptr;
  if (hwagent_session_create(model, &options, &session) != HWAGENT_OK)
    return fail("creating the runtime session");
  hwagent_session_make_current(session);
  if (hwagent_step_create(model, "train_step", &train) != HWAGENT_OK ||
      hwagent_step_create(model, "eval_step", &eval) != HWAGENT_OK)
    return fail("the compiled functions");
  const hwagent_function_info_t *fn = hwagent_step_function(train);
  std::vector<Buffer> params;
  for (uint32_t a = 0; a < fn->num_args; ++a) {
    const hwagent_value_info_t &info = fn->args[a];
    if (info.role != HWAGENT_ROLE_PARAMETER)
      continue;
    hwagent_tensor_t t;
    if (hwagent_tensor_file_find(init, info.name, &t) != HWAGENT_OK)
      return fail("digits_cnn_init.safetensors");
    params.push_back({&info, {}});
    Buffer &p = params.back();
    int64_t bytes = p.elements() * hwagent_dtype_size(info.dtype);
    if (t.dtype != info.dtype || hwagent_tensor_elements(&t) != p.elements()) {
      std::fprintf(stderr,
                   "trainer: parameter '%s' does not match the "
                   "step\n",
                   info.name);
      return 1;
    }
    p.bytes.assign(static_cast<char *>(t.data),
                   static_cast<char *>(t.data) + bytes);
  }
  params.reserve(params.size());
  std::vector<Buffer> trainArgs, evalArgs;
  if (!bindAll(train, trainArgs, params) || !bindAll(eval, evalArgs, params))
    return fail("binding the buffers");
  if (!checkData(trainArgs, x, y))
    return 1;

  int64_t samples = x.shape[0];
  int64_t trainSamples = samples * 4 / 5;
  int64_t batch = find(trainArgs, "x")->info->shape[0];
  float first = NAN, last = NAN;
  double accuracy = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int64_t b = 0; b + batch <= trainSamples; b += batch) {
      fill(trainArgs, x, y, b);
      if (hwagent_step_run(train) != HWAGENT_OK)
        return fail("train_step");
      hwagent_tensor_t loss;
      hwagent_step_result(train, "loss", &loss);
      last = *static_cast<float *>(loss.data);
      if (std::isnan(first))
        first = last;
      hwagent_session_end_step(session, last);
    }
    double correct = 0, lossSum = 0;
    int64_t batches = 0;
    for (int64_t b = trainSamples; b + batch <= samples; b += batch) {
      fill(evalArgs, x, y, b);
      if (hwagent_step_run(eval) != HWAGENT_OK)
        return fail("eval_step");
      hwagent_tensor_t loss, hits;
      hwagent_step_result(eval, "loss", &loss);
      hwagent_step_result(eval, "correct", &hits);
      lossSum += *static_cast<float *>(loss.data);
      correct += *static_cast<float *>(hits.data);
      ++batches;
    }
    hwagent_session_discard_step(session);
    accuracy = correct / double(batches * batch);
    hwagent_step_stats_t stats;
    hwagent_session_step_stats(session, &stats);
    std::printf(
        "epoch %d  train loss %.5f  validation loss %.5f  accuracy "
        "%.2f%%  step %.3f ms (cpu %.0f%% measured, ane %.0f%% "
        "simulated), %.3f mJ modelled\n",
        epoch, last, lossSum / batches, 100 * accuracy,
        stats.last_step_seconds * 1e3, stats.share[HWAGENT_BACKEND_CPU] * 100,
        stats.share[HWAGENT_BACKEND_ANE] * 100, stats.last_step_joules * 1e3);
  }
  if (!save.empty()) {
    std::vector<hwagent_tensor_t> tensors;
    for (Buffer &p : params) {
      hwagent_tensor_t t = {};
      t.name = p.info->name;
      t.data = p.bytes.data();
      t.rank = p.info->rank;
      t.dtype = p.info->dtype;
      for (int32_t d = 0; d < t.rank; ++d)
        t.shape[d] = p.info->shape[d];
      tensors.push_back(t);
    }
    if (hwagent_safetensors_write(save.c_str(), tensors.data(),
                                  uint32_t(tensors.size()), nullptr,
                                  0) != HWAGENT_OK)
      return fail("saving the parameters");
    std::printf("trainer: saved the parameters to %s\n", save.c_str());
  }
  hwagent_step_destroy(train);
  hwagent_step_destroy(eval);
  hwagent_tensor_file_close(data);
  hwagent_tensor_file_close(init);
  if (hwagent_session_destroy(session) != HWAGENT_OK)
    return fail("closing the session");
  std::printf("trainer: loss %.5f -> %.5f over %d epochs, validation "
              "accuracy %.2f%%\n",
              first, last, epochs, 100 * accuracy);
  return std::isfinite(last) && last < first && accuracy >= 0.8 ? 0 : 1;
}
