//===- ReportTest.cpp - the partition report model and its renderers ------===//
//
// One model, one renderer per format: the JSON a report writes reads back
// into the same model (hwagent-report and hwagent-run --html build their
// pages from it), and the DOT writer escapes what comes from the input.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Report/Format.h"
#include "HwAgent/Report/PartitionReport.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace hwreport;

namespace {

PartitionReport sample() {
  PartitionReport r;
  r.target = "apple-m4";
  r.simulated = {hwcore::BackendKind::ane, hwcore::BackendKind::gpu};
  FunctionReport f;
  f.name = "train \"step\"";
  f.labels = {hwcore::BackendKind::cpu, hwcore::BackendKind::ane};
  f.simulated = {false, true};
  for (hwcore::Strategy s : hwcore::kAllStrategies)
    f.strategies.push_back({s,
                            s == hwcore::Strategy::ane
                                ? std::numeric_limits<double>::infinity()
                                : 1e-3 * (1 + int(s)),
                            0.25});
  f.seconds = f.programSeconds = 2e-3;
  f.programJoules = 0.1;
  f.staticJoules = 0.01;
  f.joules = 0.11;
  f.objective = hwcore::Objective::energy;
  f.lowerBound = 0.09;
  f.gapPercent = 12.5;
  f.evaluations = 42;
  ProgramReport p;
  p.id = 0;
  p.backend = hwcore::BackendKind::ane;
  p.regions = {0, 1};
  p.nodes = {0, 1};
  p.seconds = 2e-3;
  p.weightUpdate = hwcore::WeightUpdate::reload;
  p.binding = "compute";
  p.description = "program 0 on ane (simulated)";
  p.onBackends = {{hwcore::BackendKind::cpu, false, 0, 0,
                   hwcore::WeightUpdate::none, "region 1: fp16"},
                  {hwcore::BackendKind::ane, true, 2e-3, 0.1,
                   hwcore::WeightUpdate::reload, ""}};
  f.programs.push_back(p);
  RegionReport region;
  region.id = 0;
  region.key = "00ff";
  region.backend = hwcore::BackendKind::ane;
  region.costs = {{hwcore::BackendKind::cpu, true, 1e-3, 0,
                   hwcore::WeightUpdate::none, "compute-bound"}};
  region.location = "loc(\"x.mlir\":3:4)";
  region.phase = hwcore::Phase::backward;
  region.features = RegionFeatures{1000, 64, 32, 0, 0, 8, 16, 0, false};
  region.ops = {{"linalg.matmul", 2}, {"func.call @f", 1}};
  f.regions.push_back(region);
  f.regions.push_back(region);
  f.regions.back().id = 1;
  f.boundaries = {{-1, 0, 4096, 4096, 1e-5}, {0, -1, 4, 4, 1e-6}};
  r.functions.push_back(f);
  return r;
}

std::string json(const PartitionReport &report) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeJson(report, os);
  return text;
}

TEST(Report, JsonReadsBackIntoTheSameModel) {
  std::string written = json(sample());
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(written);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  llvm::Expected<PartitionReport> read = readJson(*parsed);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(json(*read), written);
  // The ops by name, and each program's region nodes found again by id.
  EXPECT_EQ(read->functions[0].regions[0].ops.size(), 2u);
  EXPECT_EQ(read->functions[0].programs[0].nodes,
            (std::vector<unsigned>{0, 1}));
  // An illegal strategy is null in JSON and infinite in the model.
  EXPECT_TRUE(
      std::isinf(read->functions[0].totals(hwcore::Strategy::ane)->seconds));
}

TEST(Report, FlopsReadInDecimalUnits) {
  EXPECT_EQ(formatFlops(38663094272.0), "38.7 GFLOP");
  EXPECT_EQ(formatFlops(462.4e6), "462.4 MFLOP");
  EXPECT_EQ(formatFlops(1.5e12), "1.5 TFLOP");
  EXPECT_EQ(formatFlops(12), "12 FLOP");
}

TEST(Report, NonFiniteNumbersAreValidJsonAndReadBackInfinite) {
  // Issue 38, item 15: an idle power of DBL_MAX made joules and watts
  // infinite and the report a bare `inf`, which hwagent-report refused.
  PartitionReport r = sample();
  FunctionReport &f = r.functions[0];
  constexpr double inf = std::numeric_limits<double>::infinity();
  f.idleJoules = inf;
  f.joules = inf;
  f.powerCap = inf;
  f.gapPercent = std::nan("");
  f.lowerBound = -inf;
  f.programs[0].joules = inf;
  f.programs[0].utilization = std::nan("");
  f.programs[0].onBackends[1].joules = inf;
  std::string written = json(r);
  EXPECT_EQ(written.find("inf"), std::string::npos) << written;
  EXPECT_EQ(written.find("nan"), std::string::npos) << written;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(written);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  llvm::Expected<PartitionReport> read = readJson(*parsed);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  const FunctionReport &back = read->functions[0];
  EXPECT_TRUE(std::isinf(back.idleJoules));
  EXPECT_TRUE(std::isinf(back.powerCap));
  EXPECT_TRUE(std::isinf(back.programs[0].joules));
  EXPECT_TRUE(std::isinf(back.programs[0].onBackends[1].joules));
  // Written again, the same valid document.
  EXPECT_EQ(json(*read), written);
}

TEST(Report, ReadingRefusesWordsOutsideTheVocabulary) {
  std::string written = json(sample());
  size_t at = written.find("\"backend\": \"ane\"");
  ASSERT_NE(at, std::string::npos);
  written.replace(at, 16, "\"backend\": \"npu\"");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(written);
  ASSERT_TRUE(bool(parsed));
  llvm::Expected<PartitionReport> read = readJson(*parsed);
  ASSERT_FALSE(bool(read));
  EXPECT_NE(llvm::toString(read.takeError()).find("unknown name 'npu'"),
            std::string::npos);
}

TEST(Report, DotEscapesNamesAndColoursByTheVocabulary) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeRegionGraph(sample(), os);
  EXPECT_NE(text.find("label=\"@train \\\"step\\\""), std::string::npos)
      << text;
  EXPECT_NE(text.find(hwcore::backendColor(hwcore::BackendKind::ane)),
            std::string::npos);
  std::string graph = programGraph(sample());
  EXPECT_NE(graph.find("id=\"prog-0-0\""), std::string::npos) << graph;
  EXPECT_EQ(escapeDot("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

} // namespace
