//===- Dataset.cpp - datasets and checkpoints for hwagent-run -------------===//

#include "Trainer/Dataset.h"

#include "hwagent_rt/hwagent_tensor_file.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::hwagent;

std::vector<int64_t> hwagent::permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(std::max<int64_t>(n, 0));
  for (int64_t i = 0; i < n; ++i)
    p[i] = i;
  uint64_t state = seed;
  auto next = [&] {
    // splitmix64 (Steele, Lea, Flood 2014).
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t i = n - 1; i >= 1; --i)
    std::swap(p[i], p[int64_t(next() % uint64_t(i + 1))]);
  return p;
}

std::string hwagent::shapeText(const int64_t *shape, int64_t rank) {
  std::string s = "[";
  for (int64_t d = 0; d < rank; ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

static bool isInteger(int32_t dtype) {
  return dtype == HWAGENT_DTYPE_I32 || dtype == HWAGENT_DTYPE_I64 ||
         dtype == HWAGENT_DTYPE_I8 || dtype == HWAGENT_DTYPE_U8;
}

static int64_t integerAt(const hwagent_tensor_t &t, int64_t k) {
  switch (t.dtype) {
  case HWAGENT_DTYPE_I32: {
    int32_t v;
    std::memcpy(&v, static_cast<const char *>(t.data) + 4 * k, 4);
    return v;
  }
  case HWAGENT_DTYPE_I64: {
    int64_t v;
    std::memcpy(&v, static_cast<const char *>(t.data) + 8 * k, 8);
    return v;
  }
  case HWAGENT_DTYPE_I8:
    return static_cast<const int8_t *>(t.data)[k];
  default:
    return static_cast<const uint8_t *>(t.data)[k];
  }
}

struct Dataset::Source {
  std::string path;
  hwagent_tensor_file_t *file = nullptr;
  std::vector<hwagent_tensor_t> arrays;
  /// Arrays already checked for finite values.
  std::vector<bool> checked;
  ~Source() { hwagent_tensor_file_close(file); }
  int64_t samples() const { return arrays.empty() ? 0 : arrays[0].shape[0]; }
};

Dataset::~Dataset() = default;

std::unique_ptr<Dataset> Dataset::open(const DatasetOptions &options,
                                       llvm::raw_ostream &errs) {
  std::unique_ptr<Dataset> d(new Dataset());
  d->options = options;
  auto load = [&](const std::string &path) -> bool {
    auto source = std::make_unique<Source>();
    source->path = path;
    if (hwagent_tensor_file_open(path.c_str(), &source->file) != HWAGENT_OK) {
      errs << "hwagent-run: " << hwagent_error_message() << "\n";
      return false;
    }
    uint32_t count = hwagent_tensor_file_count(source->file);
    for (uint32_t i = 0; i < count; ++i) {
      hwagent_tensor_t t;
      hwagent_tensor_file_get(source->file, i, &t);
      if (t.rank < 1) {
        errs << "hwagent-run: " << path << ": array '" << t.name
             << "' is a scalar; a dataset holds samples along its first "
                "dimension\n";
        return false;
      }
      if (!source->arrays.empty() && t.shape[0] != source->samples()) {
        errs << llvm::formatv("hwagent-run: {0}: array '{1}' holds {2} "
                              "samples, array '{3}' {4}\n",
                              path, t.name, t.shape[0], source->arrays[0].name,
                              source->samples());
        return false;
      }
      source->arrays.push_back(t);
    }
    source->checked.assign(count, false);
    d->sources.push_back(std::move(source));
    return true;
  };
  if (!load(options.path))
    return nullptr;
  int64_t n = d->sources[0]->samples();
  if (!options.validationPath.empty()) {
    if (!load(options.validationPath))
      return nullptr;
    for (int64_t i = 0; i < n; ++i)
      d->train.push_back(i);
    for (int64_t i = 0; i < d->sources[1]->samples(); ++i)
      d->validationIndices.push_back(i);
    return d;
  }
  if (!(options.split >= 0 && options.split < 1)) {
    errs << "hwagent-run: --val-split must be in [0, 1)\n";
    return nullptr;
  }
  int64_t held = int64_t(std::floor(options.split * double(n)));
  std::vector<int64_t> p = permutation(n, options.seed);
  d->validationIndices.assign(p.end() - held, p.end());
  d->train.assign(p.begin(), p.end() - held);
  std::sort(d->train.begin(), d->train.end());
  return d;
}

bool Dataset::checkArray(const Source &source, unsigned array,
                         llvm::raw_ostream &errs) {
  const hwagent_tensor_t &t = source.arrays[array];
  if (source.checked[array] ||
      (t.dtype != HWAGENT_DTYPE_F32 && t.dtype != HWAGENT_DTYPE_F64))
    return true;
  int64_t n = hwagent_tensor_elements(&t);
  for (int64_t k = 0; k < n; ++k) {
    double v;
    if (t.dtype == HWAGENT_DTYPE_F32) {
      float f;
      std::memcpy(&f, static_cast<const char *>(t.data) + 4 * k, 4);
      v = f;
    } else {
      std::memcpy(&v, static_cast<const char *>(t.data) + 8 * k, 8);
    }
    if (!std::isfinite(v)) {
      errs << llvm::formatv("hwagent-run: {0}: array '{1}' holds {2} at "
                            "element {3}\n",
                            source.path, t.name, v, k);
      return false;
    }
  }
  const_cast<Source &>(source).checked[array] = true;
  return true;
}

bool Dataset::bind(std::vector<ArgBuffer> &args, const std::string &fn,
                   bool validation, llvm::raw_ostream &errs) {
  const Source &source =
      *(validation && sources.size() > 1 ? sources[1] : sources[0]);
  std::vector<unsigned> data;
  for (auto [a, arg] : llvm::enumerate(args))
    if (arg.role != HWAGENT_ROLE_PARAMETER && !arg.shared)
      data.push_back(a);
  // By name when any name matches, else by position.
  auto byName = [&](const std::string &name) -> int {
    for (auto [i, t] : llvm::enumerate(source.arrays))
      if (name == t.name)
        return int(i);
    return -1;
  };
  bool anyName = false;
  for (unsigned a : data)
    anyName |= byName(args[a].name) >= 0;
  if (!anyName && data.size() > source.arrays.size()) {
    errs << llvm::formatv("hwagent-run: {0} holds {1} arrays for the {2} "
                          "inputs of @{3}\n",
                          source.path, source.arrays.size(), data.size(), fn);
    return false;
  }
  std::vector<Binding> bound;
  for (auto [position, a] : llvm::enumerate(data)) {
    ArgBuffer &arg = args[a];
    int array = anyName ? byName(arg.name) : int(position);
    if (array < 0) {
      std::string names;
      for (const hwagent_tensor_t &t : source.arrays)
        names += (names.empty() ? "'" : ", '") + std::string(t.name) + "'";
      errs << llvm::formatv("hwagent-run: {0} has no array for argument "
                            "'{1}' of @{2} (it has {3})\n",
                            source.path, arg.name, fn, names);
      return false;
    }
    const hwagent_tensor_t &t = source.arrays[array];
    int64_t batch = arg.shape.empty() ? 1 : arg.shape[0];
    if (batch <= 0) {
      errs << llvm::formatv("hwagent-run: argument '{0}' of @{1} has a batch "
                            "of {2} samples; --data needs at least one\n",
                            arg.name, fn, batch);
      return false;
    }
    int64_t argSample = arg.shape.empty() ? 1 : arg.elements / batch;
    int64_t arraySample =
        t.shape[0] ? hwagent_tensor_elements(&t) / t.shape[0] : 0;
    std::string what = llvm::formatv(
        "{0}: array '{1}' ({2} {3}) cannot feed argument '{4}' of @{5} "
        "({6} {7})",
        source.path, t.name, hwagent_dtype_name(t.dtype),
        shapeText(t.shape, t.rank), arg.name, fn, hwagent_dtype_name(arg.dtype),
        shapeText(arg.shape.data(), arg.shape.size()));
    bool oneHot = false;
    if (arg.dtype == HWAGENT_DTYPE_F32 && t.dtype == HWAGENT_DTYPE_F32 &&
        arraySample == argSample) {
      // Samples as they are (a reshape: 64 values feed 1x8x8).
    } else if (arg.dtype == HWAGENT_DTYPE_F32 && isInteger(t.dtype) &&
               t.rank == 1 && arg.shape.size() == 2) {
      oneHot = true;
    } else if ((arg.dtype == HWAGENT_DTYPE_I32 ||
                arg.dtype == HWAGENT_DTYPE_I64) &&
               isInteger(t.dtype) && arraySample == argSample) {
    } else {
      errs << "hwagent-run: " << what << ": the dtype or per-sample shape "
           << "differs\n";
      return false;
    }
    if (t.shape[0] < batch) {
      errs << "hwagent-run: " << what << ": fewer samples than one batch\n";
      return false;
    }
    if (!checkArray(source, array, errs))
      return false;
    if (isInteger(t.dtype)) {
      int64_t limit = oneHot
                          ? arg.shape[1]
                          : (options.classes > 0 ? options.classes : INT64_MAX);
      int64_t n = hwagent_tensor_elements(&t);
      for (int64_t k = 0; k < n; ++k) {
        int64_t label = integerAt(t, k);
        if (label < 0 || label >= limit) {
          errs << llvm::formatv("hwagent-run: {0}: label {1} at sample {2} "
                                "of array '{3}' is out of range for "
                                "argument '{4}' of @{5} (0..{6})\n",
                                source.path, label, k, t.name, arg.name, fn,
                                limit == INT64_MAX ? -1 : limit - 1);
          return false;
        }
      }
    }
    bound.push_back({unsigned(a), &source, unsigned(array), oneHot});
  }
  bindings[validation] = std::move(bound);
  return true;
}

std::vector<bool> Dataset::feeds(bool validation, size_t numArgs) const {
  std::vector<bool> fed(numArgs, false);
  if (auto it = bindings.find(validation); it != bindings.end())
    for (const Binding &binding : it->second)
      if (binding.arg < numArgs)
        fed[binding.arg] = true;
  return fed;
}

void Dataset::fill(std::vector<ArgBuffer> &args, bool validation, int64_t epoch,
                   int64_t b) {
  const std::vector<int64_t> *indices = &validationIndices;
  if (!validation) {
    if (orderEpoch != epoch) {
      order = train;
      if (options.shuffle) {
        std::vector<int64_t> p =
            permutation(train.size(), options.seed + 1 + uint64_t(epoch));
        for (size_t i = 0; i < p.size(); ++i)
          order[i] = train[p[i]];
      }
      orderEpoch = epoch;
    }
    indices = &order;
  }
  fillRows(args, validation, [&](int64_t i, int64_t batch) {
    return (*indices)[(b * batch + i) % indices->size()];
  });
}

void Dataset::fillPadded(std::vector<ArgBuffer> &args, int64_t first,
                         int64_t count) {
  fillRows(args, true, [&](int64_t i, int64_t) {
    return validationIndices[first + std::min(i, count - 1)];
  });
}

template <typename Index>
void Dataset::fillRows(std::vector<ArgBuffer> &args, bool validation,
                       Index rowIndex) {
  for (const Binding &binding : bindings[validation]) {
    ArgBuffer &arg = args[binding.arg];
    const hwagent_tensor_t &t = binding.source->arrays[binding.array];
    int64_t batch = arg.shape.empty() ? 1 : arg.shape[0];
    int64_t sample = arg.elements / batch;
    char *out = arg.data();
    for (int64_t i = 0; i < batch; ++i) {
      int64_t index = rowIndex(i, batch);
      if (binding.oneHot) {
        float *row = reinterpret_cast<float *>(out) + i * sample;
        std::fill(row, row + sample, 0.0f);
        row[integerAt(t, index)] = 1.0f;
      } else if (arg.dtype == t.dtype) {
        int64_t bytes = sample * hwagent_dtype_size(t.dtype);
        std::memcpy(out + i * bytes,
                    static_cast<const char *>(t.data) + index * bytes, bytes);
      } else {
        for (int64_t k = 0; k < sample; ++k) {
          int64_t v = integerAt(t, index * sample + k);
          if (arg.dtype == HWAGENT_DTYPE_I32)
            reinterpret_cast<int32_t *>(out)[i * sample + k] = int32_t(v);
          else
            reinterpret_cast<int64_t *>(out)[i * sample + k] = v;
        }
      }
    }
  }
}
