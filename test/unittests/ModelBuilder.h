//===- ModelBuilder.h - model tables for runtime tests ----------*- C++ -*-===//
//
// Builds the hwagent_model_info_t a compiled step would hand the runtime,
// one program per region unless said otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_TEST_MODELBUILDER_H
#define HWAGENT_TEST_MODELBUILDER_H

#include "hwagent_rt/hwagent_model_info.hpp"

#include <array>
#include <string>
#include <vector>

namespace hwagent_test {

class ModelBuilder {
public:
  explicit ModelBuilder(std::string target = "test") {
    model.target = std::move(target);
    for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a)
      for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
        model.links[a][b] = {
            1e11,
            a == HWAGENT_BACKEND_ANE || b == HWAGENT_BACKEND_ANE ? 5e10 : 0,
            2e-4};
  }

  /// A program of one region: assigned backend, predicted seconds per
  /// backend (0 = no variant there; the CPU always has one).
  ModelBuilder &program(int32_t assigned, std::array<double, 3> predicted,
                        uint64_t key = 0) {
    hwagent_region_info_t r = {};
    r.key = key ? key : 0xa0 + model.regions.size();
    r.id = model.regions.size();
    r.program = model.programs.size();
    hwagent_program_info_t p = {};
    p.assigned = assigned;
    p.first_region = model.regions.size();
    p.num_regions = 1;
    p.legal_mask = 1;
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      r.predicted[b] = p.predicted[b] = predicted[b];
      if (predicted[b] > 0)
        p.legal_mask |= 1u << b;
    }
    r.legal_mask = p.legal_mask;
    model.regions.push_back(r);
    model.programs.push_back(p);
    return *this;
  }
  ModelBuilder &edge(int32_t from, int32_t to, int64_t bytes,
                     int64_t convertBytes = -1) {
    model.edges.push_back(
        {from, to, bytes, convertBytes < 0 ? bytes : convertBytes});
    return *this;
  }
  ModelBuilder &link(int a, int b, double bandwidth, double convert,
                     double sync) {
    model.links[a][b] = {bandwidth, convert, sync};
    return *this;
  }
  /// Building a variant on `backend`: seconds plus per byte of the
  /// program's weights, and the compiles a process may do (0: no limit).
  ModelBuilder &compile(int backend, double seconds, double perByte = 0,
                        int64_t maxCompiles = 0) {
    model.compile[backend] = seconds;
    model.compilePerByte[backend] = perByte;
    model.maxCompiles[backend] = maxCompiles;
    return *this;
  }
  /// The target's power model (watts; docs/targets.md "Power").
  ModelBuilder &power(std::array<double, 3> idle, std::array<double, 3> running,
                      double staticPower, double boundary = 0,
                      double boundaryPerByte = 0) {
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      model.power.idle[b] = idle[b];
      model.power.running[b] = running[b];
    }
    model.power.static_power = staticPower;
    model.power.boundary = boundary;
    model.power.boundary_per_byte = boundaryPerByte;
    return *this;
  }
  /// Joules of an execution of the last program that do not grow with
  /// its time, per backend.
  ModelBuilder &fixedJoules(std::array<double, 3> joules) {
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
      model.programs.back().fixed_joules[b] = joules[b];
    return *this;
  }
  /// FLOPs of the last program.
  ModelBuilder &flops(int64_t flops) {
    model.programs.back().flops = flops;
    return *this;
  }
  /// Compute-bound seconds of the last program's predictions, per backend.
  ModelBuilder &clocked(std::array<double, 3> seconds) {
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
      model.programs.back().clocked[b] = seconds[b];
    return *this;
  }
  /// How `backend`'s clock scales under a cap (hwagent_clock_info_t).
  ModelBuilder &clock(int backend, double dvfsExponent, double minClock,
                      double activeWatts, double joulesPerFlop = 0) {
    model.clock.dvfs_exponent[backend] = dvfsExponent;
    model.clock.min_clock[backend] = minClock;
    model.clock.active[backend] = activeWatts;
    model.clock.per_flop[backend] = joulesPerFlop;
    return *this;
  }
  /// What the model was partitioned for.
  ModelBuilder &objective(int32_t objective, double powerCap = 0) {
    model.objective = objective;
    model.powerCap = powerCap;
    return *this;
  }
  /// Bytes of weights the last program holds.
  ModelBuilder &weights(int64_t bytes) {
    model.programs.back().weight_bytes = bytes;
    return *this;
  }
  /// Every pair: `bandwidth`, `sync`, conversion at `convert` to and from
  /// the ANE.
  ModelBuilder &links(double bandwidth, double convert, double sync) {
    for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a)
      for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
        link(a, b, bandwidth,
             a == HWAGENT_BACKEND_ANE || b == HWAGENT_BACKEND_ANE ? convert : 0,
             sync);
    return *this;
  }

  hwagent_model_info_t info() const { return model.info(); }

  hwagent_rt::OwnedModelInfo model;
};

} // namespace hwagent_test

#endif // HWAGENT_TEST_MODELBUILDER_H
