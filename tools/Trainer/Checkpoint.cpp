//===- Checkpoint.cpp - a step's parameters in safetensors ----------------===//

#include "Trainer/Checkpoint.h"

#include "Trainer/Dataset.h"

#include "hwagent_rt/hwagent_tensor_file.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <memory>

using namespace mlir;
using namespace mlir::hwagent;

namespace {
/// Calls `write` (hwagent_safetensors_write or _check) with the parameters
/// among `args` and `info` as metadata.
hwagent_status_t withCheckpoint(
    const std::string &path, const std::vector<ArgBuffer> &args,
    const CheckpointInfo &info,
    hwagent_status_t (*write)(const char *, const hwagent_tensor_t *, uint32_t,
                              const char *const *, uint32_t)) {
  std::vector<hwagent_tensor_t> tensors;
  for (const ArgBuffer &arg : args) {
    if (arg.role != HWAGENT_ROLE_PARAMETER)
      continue;
    hwagent_tensor_t t = {};
    t.name = arg.name.c_str();
    t.data = const_cast<char *>(arg.data());
    t.dtype = arg.dtype;
    t.rank = int32_t(arg.shape.size());
    for (size_t d = 0; d < arg.shape.size(); ++d)
      t.shape[d] = arg.shape[d];
    tensors.push_back(t);
  }
  std::string step = std::to_string(info.step);
  const char *metadata[] = {"format", "hwagent-checkpoint",
                            "step",   step.c_str(),
                            "entry",  info.entry.c_str()};
  return write(path.c_str(), tensors.data(), uint32_t(tensors.size()), metadata,
               3);
}
} // namespace

bool hwagent::saveCheckpoint(const std::string &path,
                             const std::vector<ArgBuffer> &args,
                             const CheckpointInfo &info,
                             llvm::raw_ostream &errs) {
  if (withCheckpoint(path, args, info, hwagent_safetensors_write) !=
      HWAGENT_OK) {
    errs << "hwagent-run: cannot save the checkpoint: "
         << hwagent_error_message() << "\n";
    return false;
  }
  return true;
}

bool hwagent::checkCheckpoint(const std::string &path,
                              const std::vector<ArgBuffer> &args,
                              const CheckpointInfo &info,
                              llvm::raw_ostream &errs) {
  if (withCheckpoint(path, args, info, hwagent_safetensors_check) !=
      HWAGENT_OK) {
    errs << "hwagent-run: the checkpoint could not be saved: "
         << hwagent_error_message() << "\n";
    return false;
  }
  return true;
}

bool hwagent::loadParameters(const std::string &path,
                             std::vector<ArgBuffer> &args, CheckpointInfo &info,
                             llvm::raw_ostream &errs) {
  hwagent_tensor_file_t *file = nullptr;
  if (hwagent_tensor_file_open(path.c_str(), &file) != HWAGENT_OK) {
    errs << "hwagent-run: " << hwagent_error_message() << "\n";
    return false;
  }
  std::unique_ptr<hwagent_tensor_file_t, void (*)(hwagent_tensor_file_t *)>
      closer(file, hwagent_tensor_file_close);
  auto fail = [&](const llvm::Twine &message) {
    errs << "hwagent-run: " << path << ": " << message << "\n";
    return false;
  };
  std::vector<std::string> used;
  for (ArgBuffer &arg : args) {
    if (arg.role != HWAGENT_ROLE_PARAMETER || arg.shared)
      continue;
    hwagent_tensor_t t;
    if (hwagent_tensor_file_find(file, arg.name.c_str(), &t) != HWAGENT_OK)
      return fail("no tensor for parameter '" + arg.name +
                  "' (a checkpoint of another model?)");
    std::vector<int64_t> shape(t.shape, t.shape + t.rank);
    if (t.dtype != arg.dtype || shape != arg.shape)
      return fail(llvm::formatv("tensor '{0}' is {1} {2}, parameter '{0}' is "
                                "{3} {4}",
                                arg.name, hwagent_dtype_name(t.dtype),
                                shapeText(t.shape, t.rank),
                                hwagent_dtype_name(arg.dtype),
                                shapeText(arg.shape.data(), arg.shape.size())));
    if (t.dtype == HWAGENT_DTYPE_F32) {
      const char *bytes = static_cast<const char *>(t.data);
      for (int64_t k = 0; k < arg.elements; ++k) {
        float v;
        std::memcpy(&v, bytes + 4 * k, 4);
        if (!std::isfinite(v))
          return fail(llvm::formatv("tensor '{0}' holds {1} at element {2}",
                                    arg.name, v, k));
      }
    }
    std::memcpy(arg.data(), t.data, arg.bytes());
    used.push_back(arg.name);
  }
  for (uint32_t i = 0; i < hwagent_tensor_file_count(file); ++i) {
    hwagent_tensor_t t;
    hwagent_tensor_file_get(file, i, &t);
    if (!llvm::is_contained(used, t.name))
      return fail(llvm::Twine("tensor '") + t.name +
                  "' is no parameter of the step (a checkpoint of another "
                  "model?)");
  }
  if (const char *step = hwagent_tensor_file_metadata(file, "step"))
    if (!llvm::to_integer(step, info.step, 10) || info.step < 0)
      return fail(llvm::Twine("bad step '") + step + "' in its metadata");
  if (const char *entry = hwagent_tensor_file_metadata(file, "entry"))
    info.entry = entry;
  return true;
}

std::optional<int64_t> hwagent::checkpointStep(const std::string &path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return std::nullopt;
  hwagent_tensor_file_t *file = nullptr;
  if (hwagent_tensor_file_open(path.c_str(), &file) != HWAGENT_OK)
    return std::nullopt;
  std::unique_ptr<hwagent_tensor_file_t, void (*)(hwagent_tensor_file_t *)>
      closer(file, hwagent_tensor_file_close);
  const char *format = hwagent_tensor_file_metadata(file, "format");
  const char *step = hwagent_tensor_file_metadata(file, "step");
  int64_t value = 0;
  if (!format || llvm::StringRef(format) != "hwagent-checkpoint" || !step ||
      !llvm::to_integer(step, value, 10) || value < 0)
    return std::nullopt;
  return value;
}

bool hwagent::checkWritable(const std::string &path, llvm::raw_ostream &errs) {
  if (hwagent_check_writable(path.c_str()) == HWAGENT_OK)
    return true;
  errs << "hwagent-run: " << hwagent_error_message() << "\n";
  return false;
}
