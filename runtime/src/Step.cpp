//===- Step.cpp - compiled functions bound to buffers by name -------------===//
//
// hwagent_step_t: what every driver of a compiled step used to write by
// hand. The model info names each argument and result of the module's
// public functions with its dtype, shape and role (the compiler's
// describeFunction); a step builds the memref descriptors MLIR's C interface
// expects from the buffers bound by name, calls the function through the
// packed entry the compiler emitted, copies each parameter's new value into
// its buffer and frees what the generated code returned.
//
//===----------------------------------------------------------------------===//

#include "hwagent_rt/hwagent_kernels.h"
#include "hwagent_rt/hwagent_rt.h"

#include "Errors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// "f32 [8, 64]".
std::string describe(int32_t dtype, int32_t rank, const int64_t *shape) {
  if (rank < 0)
    return absl::StrCat(hwagent_dtype_name(dtype), " scalar");
  if (!shape || rank > HWAGENT_MAX_RANK)
    return absl::StrCat(hwagent_dtype_name(dtype), " of rank ", rank,
                        shape ? "" : " with no shape");
  std::vector<std::string> dims;
  for (int32_t d = 0; d < rank; ++d)
    dims.push_back(shape[d] < 0 ? "?" : std::to_string(shape[d]));
  return absl::StrCat(hwagent_dtype_name(dtype), " [",
                      absl::StrJoin(dims, ", "), "]");
}

/// Bytes of a memref descriptor of rank `rank`.
size_t descriptorBytes(int32_t rank) { return (3 + 2 * size_t(rank)) * 8; }

/// Size and alignment of a result inside the C interface's result struct.
std::pair<size_t, size_t> resultLayout(const hwagent_value_info_t &v) {
  if (v.rank >= 0)
    return {descriptorBytes(v.rank), 8};
  size_t size = size_t(std::max<int64_t>(1, hwagent_dtype_size(v.dtype)));
  return {size, size};
}

struct Argument {
  void *data = nullptr;
  bool bound = false;
  std::vector<int64_t> shape;
  std::vector<int64_t> descriptor;
};

} // namespace

struct hwagent_step {
  const hwagent_function_info_t *function = nullptr;
  std::vector<Argument> args;
  std::vector<size_t> resultOffsets;
  /// The C interface's result struct (8-byte aligned).
  std::vector<int64_t> resultWords;
  std::vector<hwagent_tensor_t> results;
  /// Buffers the last run returned that results still view.
  std::vector<void *> owned;
  bool ran = false;

  void releaseOwned() {
    for (void *p : owned)
      hwagent_buffer_free(p);
    owned.clear();
  }
  ~hwagent_step() { releaseOwned(); }
};

extern "C" {

const char *hwagent_dtype_name(int32_t dtype) {
  static const char *const names[HWAGENT_NUM_DTYPES] = {
      "f32", "f16", "f64", "i32", "i64", "i8", "u8", "bool"};
  return dtype >= 0 && dtype < HWAGENT_NUM_DTYPES ? names[dtype] : "unknown";
}

int64_t hwagent_dtype_size(int32_t dtype) {
  static const int64_t sizes[HWAGENT_NUM_DTYPES] = {4, 2, 8, 4, 8, 1, 1, 1};
  return dtype >= 0 && dtype < HWAGENT_NUM_DTYPES ? sizes[dtype] : 0;
}

const char *hwagent_role_name(int32_t role) {
  static const char *const names[] = {"input", "label", "parameter", "loss",
                                      "output"};
  return role >= 0 && role <= HWAGENT_ROLE_OUTPUT ? names[role] : "unknown";
}

int64_t hwagent_tensor_elements(const hwagent_tensor_t *tensor) {
  if (!tensor || tensor->rank < 0 || tensor->rank > HWAGENT_MAX_RANK)
    return -1;
  int64_t n = 1;
  for (int32_t d = 0; d < tensor->rank; ++d)
    if (tensor->shape[d] < 0 || __builtin_mul_overflow(n, tensor->shape[d], &n))
      return -1;
  return n;
}

const hwagent_function_info_t *
hwagent_model_function(const hwagent_model_info_t *model, const char *name) {
  if (!model || !name || model->version != HWAGENT_MODEL_INFO_VERSION)
    return nullptr;
  for (uint32_t f = 0; f < model->num_functions; ++f)
    if (std::strcmp(model->functions[f].name, name) == 0)
      return &model->functions[f];
  return nullptr;
}

hwagent_status_t hwagent_step_create(const hwagent_model_info_t *model,
                                     const char *function,
                                     hwagent_step_t **step) {
  using hwagent_rt::fail;
  if (!step)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_step_create: no step");
  *step = nullptr;
  if (!model || !function)
    return fail(HWAGENT_INVALID_ARGUMENT,
                "hwagent_step_create: no model or function name");
  if (model->version != HWAGENT_MODEL_INFO_VERSION)
    return fail(HWAGENT_VERSION_MISMATCH,
                absl::StrCat("model info version ", model->version,
                             ", this library reads version ",
                             HWAGENT_MODEL_INFO_VERSION,
                             ": recompile the step with this hwagent"));
  const hwagent_function_info_t *fn = hwagent_model_function(model, function);
  if (!fn) {
    std::vector<std::string> names;
    for (uint32_t f = 0; f < model->num_functions; ++f)
      names.push_back(absl::StrCat("@", model->functions[f].name));
    return fail(HWAGENT_NOT_FOUND,
                absl::StrCat("the model has no function @", function,
                             names.empty() ? "" : " (it has ",
                             absl::StrJoin(names, ", "),
                             names.empty() ? "" : ")"));
  }
  if (!fn->invoke)
    return fail(HWAGENT_INVALID_ARGUMENT,
                absl::StrCat("@", function,
                             " has no entry point (lowered without "
                             "hwagent-lower-to-llvm's packed entries?)"));
  auto s = std::make_unique<hwagent_step>();
  s->function = fn;
  s->args.resize(fn->num_args);
  size_t offset = 0;
  for (uint32_t r = 0; r < fn->num_results; ++r) {
    auto [size, align] = resultLayout(fn->results[r]);
    offset = (offset + align - 1) / align * align;
    s->resultOffsets.push_back(offset);
    offset += size;
  }
  s->resultWords.assign(offset / 8 + 1, 0);
  s->results.resize(fn->num_results);
  *step = s.release();
  return HWAGENT_OK;
}

void hwagent_step_destroy(hwagent_step_t *step) { delete step; }

const hwagent_function_info_t *
hwagent_step_function(const hwagent_step_t *step) {
  return step ? step->function : nullptr;
}

hwagent_status_t hwagent_step_bind(hwagent_step_t *step, const char *name,
                                   void *data, int32_t dtype, int32_t rank,
                                   const int64_t *shape) {
  using hwagent_rt::fail;
  if (!step || !name)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_step_bind: no step/name");
  const hwagent_function_info_t *fn = step->function;
  for (uint32_t a = 0; a < fn->num_args; ++a) {
    const hwagent_value_info_t &info = fn->args[a];
    if (std::strcmp(info.name, name) != 0)
      continue;
    auto mismatch = [&] {
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat("argument '", name, "' of @", fn->name, " is ",
                               describe(info.dtype, info.rank, info.shape),
                               ", bound ", describe(dtype, rank, shape)));
    };
    if (!data)
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat("argument '", name, "' bound to no data"));
    if (info.dtype < 0)
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat("argument '", name, "' of @", fn->name,
                               " has an element type the C API cannot bind"));
    if (dtype != info.dtype || rank != info.rank || rank > HWAGENT_MAX_RANK ||
        (rank > 0 && !shape))
      return mismatch();
    for (int32_t d = 0; d < rank; ++d)
      if (shape[d] < 0 || (info.shape[d] >= 0 && shape[d] != info.shape[d]))
        return mismatch();
    Argument &arg = step->args[a];
    arg.data = data;
    arg.bound = true;
    arg.shape.assign(shape, shape + std::max(rank, 0));
    if (rank >= 0) {
      // {allocated, aligned, offset, sizes[rank], strides[rank]}.
      arg.descriptor.assign(descriptorBytes(rank) / 8, 0);
      std::memcpy(&arg.descriptor[0], &data, sizeof(void *));
      std::memcpy(&arg.descriptor[1], &data, sizeof(void *));
      int64_t stride = 1;
      for (int32_t d = rank - 1; d >= 0; --d) {
        arg.descriptor[3 + d] = shape[d];
        arg.descriptor[3 + rank + d] = stride;
        stride *= shape[d];
      }
    }
    return HWAGENT_OK;
  }
  std::vector<std::string> names;
  for (uint32_t a = 0; a < fn->num_args; ++a)
    names.push_back(fn->args[a].name);
  return fail(HWAGENT_NOT_FOUND,
              absl::StrCat("@", fn->name, " has no argument '", name,
                           "' (its arguments: ", absl::StrJoin(names, ", "),
                           ")"));
}

hwagent_status_t hwagent_step_run(hwagent_step_t *step) {
  using hwagent_rt::fail;
  if (!step)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_step_run: no step");
  const hwagent_function_info_t *fn = step->function;
  std::vector<void *> packed;
  for (uint32_t a = 0; a < fn->num_args; ++a) {
    Argument &arg = step->args[a];
    if (!arg.bound)
      return fail(HWAGENT_INVALID_ARGUMENT,
                  absl::StrCat("argument '", fn->args[a].name, "' of @",
                               fn->name, " is not bound"));
    packed.push_back(fn->args[a].rank >= 0
                         ? static_cast<void *>(arg.descriptor.data())
                         : arg.data);
  }
  step->releaseOwned();
  std::fill(step->resultWords.begin(), step->resultWords.end(), 0);
  char *base = reinterpret_cast<char *>(step->resultWords.data());
  packed.push_back(base);
  fn->invoke(packed.data());
  step->ran = true;

  // Read every result; tensors come back in buffers the step now owns.
  std::vector<void *> returned, keep;
  for (uint32_t r = 0; r < fn->num_results; ++r) {
    const hwagent_value_info_t &info = fn->results[r];
    hwagent_tensor_t &out = step->results[r];
    out = {};
    out.name = info.name;
    out.dtype = info.dtype;
    char *at = base + step->resultOffsets[r];
    if (info.rank < 0) {
      out.rank = 0;
      out.data = at;
      continue;
    }
    out.rank = info.rank;
    void *allocated, *aligned;
    int64_t offset;
    std::memcpy(&allocated, at, sizeof(void *));
    std::memcpy(&aligned, at + 8, sizeof(void *));
    std::memcpy(&offset, at + 16, 8);
    std::memcpy(out.shape, at + 24, 8 * size_t(info.rank));
    out.data =
        static_cast<char *>(aligned) + offset * hwagent_dtype_size(info.dtype);
    if (allocated && !std::count(returned.begin(), returned.end(), allocated))
      returned.push_back(allocated);
    if (info.updates < 0 && allocated)
      keep.push_back(allocated);
  }
  // Parameters: the new values into the caller's buffers.
  for (uint32_t r = 0; r < fn->num_results; ++r) {
    const hwagent_value_info_t &info = fn->results[r];
    if (info.updates < 0 || uint32_t(info.updates) >= fn->num_args)
      continue;
    Argument &arg = step->args[info.updates];
    int64_t bytes = hwagent_tensor_elements(&step->results[r]) *
                    hwagent_dtype_size(info.dtype);
    if (arg.data != step->results[r].data)
      std::memmove(arg.data, step->results[r].data, size_t(bytes));
    step->results[r].data = arg.data;
  }
  for (void *p : returned) {
    bool isArgument = false;
    for (const Argument &arg : step->args)
      isArgument |= arg.data == p;
    if (isArgument)
      continue;
    if (std::count(keep.begin(), keep.end(), p))
      step->owned.push_back(p);
    else
      hwagent_buffer_free(p);
  }
  return HWAGENT_OK;
}

hwagent_status_t hwagent_step_result(const hwagent_step_t *step,
                                     const char *name,
                                     hwagent_tensor_t *result) {
  using hwagent_rt::fail;
  if (!step || !name || !result)
    return fail(HWAGENT_INVALID_ARGUMENT, "hwagent_step_result: bad call");
  if (!step->ran)
    return fail(HWAGENT_INVALID_ARGUMENT,
                absl::StrCat("@", step->function->name, " has not run yet"));
  for (const hwagent_tensor_t &r : step->results)
    if (std::strcmp(r.name, name) == 0) {
      *result = r;
      return HWAGENT_OK;
    }
  return fail(HWAGENT_NOT_FOUND, absl::StrCat("@", step->function->name,
                                              " has no result '", name, "'"));
}

} // extern "C"
