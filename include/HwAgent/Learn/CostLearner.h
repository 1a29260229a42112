//===- CostLearner.h - gradient-boosted corrections of the cost model -*- C++
//-*-===//
//
// The learned part of the cost model: per backend, gradient-boosted trees
// (XGBoost, as TVM's cost model) from a region's learned-cost features and
// its analytic prediction to log(measured / analytic), trained on the
// runtime's profile databases, judged by leave-one-model-out error, and
// stored as XGBoost's JSON model with hwagent's metadata (schema
// `hwagent.learned-cost-model`, docs/cost-model.md "Learned correction").
// A library: it returns errors as text, the tools decide what to show.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_LEARN_COSTLEARNER_H
#define HWAGENT_LEARN_COSTLEARNER_H

#include "HwAgent/Core/Vocabulary.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hwlearn {

/// What every model predicts: the natural log of measured / analytic.
constexpr const char *kTarget = "log(measured/analytic)";
constexpr int64_t kModelSchemaVersion = 1;

/// One measured region on one backend.
struct Sample {
  /// The region's learned-cost features, then log10 of the analytic time.
  std::vector<float> x;
  /// log(measured / analytic).
  double y = 0;
  /// The step (one profile database) it was measured in.
  int group = 0;
  /// Structural hash: a region measured in the held-out step is not
  /// trained on when that step is held out (in use it would be measured).
  std::string key;
};

/// |log(predicted / measured)| over a set of regions.
struct ErrorSummary {
  double median = 0;
  double p90 = 0;
  /// Share with predicted / measured in [1/1.5, 1.5].
  double withinBand = 0;
  int64_t count = 0;
};
ErrorSummary summarize(std::vector<double> absLogErrors);

/// Leave-one-model-out: each group held out in turn.
struct HeldOutError {
  /// `geometricMean`: the analytic model scaled by the geometric mean of
  /// the other steps' measured / analytic (the per-backend correction the
  /// cost pass applies without trees, had it their profiles).
  ErrorSummary learned, analytic, geometricMean;
  int64_t groups = 0;
  /// Whether the learned model's median and p90 both beat the analytic's.
  bool learnedBetter() const {
    return learned.count > 0 && learned.median < analytic.median &&
           learned.p90 <= analytic.p90;
  }
  /// Whether they also beat the geometric-mean correction's (true when
  /// the file has no such figure): where a profile gives the cost pass that
  /// correction, the trees replace it only then.
  bool learnedBeatsGeometricMean() const {
    return geometricMean.count == 0 || (learned.median < geometricMean.median &&
                                        learned.p90 <= geometricMean.p90);
  }
};

/// The trees of one backend (an XGBoost booster).
class Booster {
public:
  Booster(Booster &&other) noexcept;
  Booster &operator=(Booster &&other) noexcept;
  ~Booster();

  /// Trains on `samples` (at least 2) with hwagent's fixed parameters
  /// (docs/cost-model.md).
  static std::optional<Booster> train(const std::vector<Sample> &samples,
                                      std::string &error);
  /// Loads XGBoost's JSON model text.
  static std::optional<Booster> load(const std::string &json,
                                     unsigned numFeatures, std::string &error);
  /// XGBoost's JSON model text.
  std::optional<std::string> save(std::string &error) const;
  /// log(measured / analytic) predicted for one feature row.
  std::optional<double> predict(const std::vector<float> &x,
                                std::string &error) const;

private:
  explicit Booster(void *handle, unsigned numFeatures)
      : handle(handle), numFeatures(numFeatures) {}
  void *handle = nullptr;
  unsigned numFeatures = 0;
};

/// Leave-one-model-out error of the learned model vs the analytic one.
std::optional<HeldOutError> leaveOneModelOut(const std::vector<Sample> &all,
                                             std::string &error);

/// One backend's model and what is known of it.
struct BackendModel {
  hwcore::BackendKind backend = hwcore::BackendKind::cpu;
  int64_t trainingSize = 0;
  HeldOutError heldOut;
  /// XGBoost's JSON model.
  std::string booster;
};

/// The model file.
struct LearnedCostModel {
  std::string target = kTarget;
  /// The inputs, in order: the region's features, then the analytic time.
  std::vector<std::string> featureNames;
  std::vector<BackendModel> backends;

  const BackendModel *lookup(hwcore::BackendKind kind) const;
};

std::string writeModel(const LearnedCostModel &model);
/// Parses and checks a model file: errors name the field ("backends[0].
/// target: ..."); the boosters are loaded by the caller.
std::optional<LearnedCostModel> parseModel(const std::string &text,
                                           std::string &error);

} // namespace hwlearn

#endif // HWAGENT_LEARN_COSTLEARNER_H
