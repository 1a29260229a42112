//===- Booster.cpp - XGBoost's trees through its C API --------------------===//

#include "HwAgent/Learn/CostLearner.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace hwlearn;

namespace {
/// Boosting rounds and tree shape: small trees, a small step, few rounds,
/// for the few hundred regions a machine's profiles hold (TVM's XGBoost
/// cost model uses depth 6 on thousands of measured schedules).
constexpr int kRounds = 60;
const char *const kParams[][2] = {{"booster", "gbtree"},
                                  {"objective", "reg:squarederror"},
                                  {"max_depth", "3"},
                                  {"eta", "0.1"},
                                  {"min_child_weight", "2"},
                                  {"lambda", "1"},
                                  {"subsample", "1"},
                                  {"nthread", "1"},
                                  {"seed", "0"},
                                  {"verbosity", "0"}};

/// "xgboost: <its last error>" when `status` is not 0.
bool failed(int status, std::string &error) {
  if (status == 0)
    return false;
  error = std::string("xgboost: ") + XGBGetLastError();
  return true;
}

/// A DMatrix freed on scope exit.
struct Matrix {
  DMatrixHandle handle = nullptr;
  ~Matrix() {
    if (handle)
      XGDMatrixFree(handle);
  }
};

bool makeMatrix(const std::vector<std::vector<float>> &rows, unsigned columns,
                Matrix &out, std::string &error) {
  std::vector<float> flat;
  flat.reserve(rows.size() * columns);
  for (const std::vector<float> &row : rows) {
    if (row.size() != columns) {
      error = "a feature row has " + std::to_string(row.size()) +
              " values, the model reads " + std::to_string(columns);
      return false;
    }
    flat.insert(flat.end(), row.begin(), row.end());
  }
  return !failed(XGDMatrixCreateFromMat(flat.data(), rows.size(), columns,
                                        std::nanf(""), &out.handle),
                 error);
}
} // namespace

Booster::Booster(Booster &&other) noexcept
    : handle(other.handle), numFeatures(other.numFeatures) {
  other.handle = nullptr;
}

Booster &Booster::operator=(Booster &&other) noexcept {
  std::swap(handle, other.handle);
  std::swap(numFeatures, other.numFeatures);
  return *this;
}

Booster::~Booster() {
  if (handle)
    XGBoosterFree(handle);
}

std::optional<Booster> Booster::train(const std::vector<Sample> &samples,
                                      std::string &error) {
  if (samples.size() < 2) {
    error = "at least 2 samples are needed to train, got " +
            std::to_string(samples.size());
    return std::nullopt;
  }
  unsigned columns = samples.front().x.size();
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  double mean = 0;
  for (const Sample &s : samples) {
    rows.push_back(s.x);
    labels.push_back(static_cast<float>(s.y));
    mean += s.y / samples.size();
  }
  Matrix data;
  if (!makeMatrix(rows, columns, data, error) ||
      failed(XGDMatrixSetFloatInfo(data.handle, "label", labels.data(),
                                   labels.size()),
             error))
    return std::nullopt;
  BoosterHandle handle = nullptr;
  if (failed(XGBoosterCreate(&data.handle, 1, &handle), error))
    return std::nullopt;
  Booster booster(handle, columns);
  for (const auto &param : kParams)
    if (failed(XGBoosterSetParam(handle, param[0], param[1]), error))
      return std::nullopt;
  // Start from the mean log ratio: the trees learn what varies around it.
  std::string base = std::to_string(mean);
  if (failed(XGBoosterSetParam(handle, "base_score", base.c_str()), error))
    return std::nullopt;
  for (int round = 0; round < kRounds; ++round)
    if (failed(XGBoosterUpdateOneIter(handle, round, data.handle), error))
      return std::nullopt;
  return booster;
}

std::optional<Booster> Booster::load(const std::string &json,
                                     unsigned numFeatures, std::string &error) {
  BoosterHandle handle = nullptr;
  if (failed(XGBoosterCreate(nullptr, 0, &handle), error))
    return std::nullopt;
  Booster booster(handle, numFeatures);
  if (failed(XGBoosterLoadModelFromBuffer(handle, json.data(), json.size()),
             error))
    return std::nullopt;
  bst_ulong features = 0;
  if (failed(XGBoosterGetNumFeature(handle, &features), error))
    return std::nullopt;
  if (features != numFeatures) {
    error = "the trees read " + std::to_string(features) +
            " features, the file names " + std::to_string(numFeatures);
    return std::nullopt;
  }
  return booster;
}

std::optional<std::string> Booster::save(std::string &error) const {
  bst_ulong length = 0;
  const char *bytes = nullptr;
  if (failed(XGBoosterSaveModelToBuffer(handle, "{\"format\": \"json\"}",
                                        &length, &bytes),
             error))
    return std::nullopt;
  return std::string(bytes, length);
}

std::optional<double> Booster::predict(const std::vector<float> &x,
                                       std::string &error) const {
  Matrix data;
  if (!makeMatrix({x}, numFeatures, data, error))
    return std::nullopt;
  bst_ulong length = 0;
  const float *result = nullptr;
  if (failed(XGBoosterPredict(handle, data.handle, 0, 0, 0, &length, &result),
             error))
    return std::nullopt;
  if (length != 1) {
    error = "xgboost: expected one prediction, got " + std::to_string(length);
    return std::nullopt;
  }
  return static_cast<double>(result[0]);
}

ErrorSummary hwlearn::summarize(std::vector<double> errors) {
  ErrorSummary summary;
  summary.count = errors.size();
  if (errors.empty())
    return summary;
  std::sort(errors.begin(), errors.end());
  auto quantile = [&](double q) {
    double at = q * (errors.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(at));
    size_t hi = std::min(lo + 1, errors.size() - 1);
    return errors[lo] + (at - lo) * (errors[hi] - errors[lo]);
  };
  summary.median = quantile(0.5);
  summary.p90 = quantile(0.9);
  double band = std::log(1.5);
  summary.withinBand =
      double(std::count_if(errors.begin(), errors.end(),
                           [&](double e) { return e <= band + 1e-12; })) /
      errors.size();
  return summary;
}

std::optional<HeldOutError>
hwlearn::leaveOneModelOut(const std::vector<Sample> &all, std::string &error) {
  std::set<int> groups;
  for (const Sample &s : all)
    groups.insert(s.group);
  HeldOutError result;
  std::vector<double> learned, analytic, geometricMean;
  for (int held : groups) {
    std::set<std::string> heldKeys;
    std::vector<const Sample *> test;
    for (const Sample &s : all)
      if (s.group == held) {
        heldKeys.insert(s.key);
        test.push_back(&s);
      }
    std::vector<Sample> train;
    for (const Sample &s : all)
      if (s.group != held && !heldKeys.count(s.key))
        train.push_back(s);
    if (train.size() < 2)
      continue;
    double meanLog = 0;
    for (const Sample &s : train)
      meanLog += s.y / train.size();
    meanLog = std::clamp(meanLog, std::log(0.1), std::log(10.0));
    std::optional<Booster> booster = Booster::train(train, error);
    if (!booster)
      return std::nullopt;
    for (const Sample *s : test) {
      std::optional<double> predicted = booster->predict(s->x, error);
      if (!predicted)
        return std::nullopt;
      // Clamped as the cost pass applies it.
      double correction = std::clamp(*predicted, std::log(0.1), std::log(10.0));
      learned.push_back(std::fabs(correction - s->y));
      analytic.push_back(std::fabs(s->y));
      geometricMean.push_back(std::fabs(meanLog - s->y));
    }
    ++result.groups;
  }
  result.learned = summarize(std::move(learned));
  result.analytic = summarize(std::move(analytic));
  result.geometricMean = summarize(std::move(geometricMean));
  return result;
}
