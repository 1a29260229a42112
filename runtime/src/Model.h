//===- Model.h - the compiled model a session runs --------------*- C++ -*-===//
//
// The session's copy of the hwagent_model_info_t the compiler emitted
// (hwagent_rt.h): programs with their predictions and variants, the regions
// they hold, and the boundaries between programs, checked once when the
// session is created (errors name the entry) and resolved into what the
// step-end logic needs (each program's boundaries).
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_MODEL_H
#define HWAGENT_RT_MODEL_H

#include "hwagent_rt/hwagent_model_info.hpp"

#include "Vocabulary.h"

#include "HwAgent/Core/Energy.h"
#include "HwAgent/Core/Target.h"

#include "absl/status/statusor.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hwagent_rt {

constexpr int kNumBackends = HWAGENT_NUM_BACKENDS;
/// A value per backend (hwcore::perBackend fills one).
template <typename T> using PerBackend = std::array<T, kNumBackends>;

/// The owning model info, checked, with what the step-end logic derives
/// from it.
struct Model : OwnedModelInfo {
  /// links[from][to] as the core prices them.
  hwcore::LinkDescription linkPrices[kNumBackends][kNumBackends];
  /// Per program, the edges (indices into `edges`) that touch it.
  std::vector<std::vector<uint32_t>> incident;
  /// `power` as the core's power model: the step energy and the prices of
  /// the objective are the compiler's formulas (HwAgent/Core/Energy.h).
  hwcore::PowerModel powerModel;

  static bool legal(const hwagent_program_info_t &p, int backend) {
    return backend >= 0 && backend < kNumBackends &&
           ((p.legal_mask >> backend) & 1u);
  }
  /// Seconds to move edge `e` between programs on backends a and b.
  double linkCost(const hwagent_edge_info_t &e, int a, int b) const;
  /// Seconds to build `program`'s variant on `backend` (compile plus per
  /// byte of the weights it bakes in).
  double buildCost(unsigned program, int backend) const;
  /// Seconds to move `program`'s weights from backend a to b when it
  /// changes backend (f32 on the host, f16 on the ANE).
  double weightMoveCost(unsigned program, int a, int b) const;
  /// Joules (modelled) of one execution of `program` on `backend` taking
  /// `seconds`: its fixed joules and the running power over its seconds.
  double programJoules(unsigned program, int backend, double seconds) const {
    return powerModel.programJoules(static_cast<hwcore::BackendKind>(backend),
                                    programs[program].fixed_joules[backend],
                                    seconds);
  }

  /// Frequency scaling under a power cap (`clock`, hwagent_clock_info_t;
  /// the compiler's formulas, hwcore::clockProgram): the clock `backend`
  /// runs at when the chip's is `clock` (its min_clock at least; 1 when it
  /// does not scale).
  double backendClock(int backend, double clock) const;
  /// The lowest clock any backend can run at (1: none scales).
  double lowestClock() const;
  /// An execution of `program` on `backend` at `clock` takes this times its
  /// seconds at the peak: its compute-bound share grows as 1/s.
  double stretch(unsigned program, int backend, double clock) const;
  /// Of a second of `backend`'s work, the watts its running power loses at
  /// `clock` (active power x (1 - s ^ dvfs_exponent)).
  double wattsSaved(int backend, double clock) const;
  /// Of an execution's fixed joules, those its FLOPs save at `clock`
  /// (joules per FLOP fall as s ^ (dvfs_exponent - 1)).
  double joulesSaved(unsigned program, int backend, double clock) const;
  /// programJoules of an execution that took `seconds` at `clock`.
  double programJoules(unsigned program, int backend, double seconds,
                       double clock) const {
    return programJoules(program, backend, seconds) -
           wattsSaved(backend, clock) * seconds -
           joulesSaved(program, backend, clock);
  }
};

/// Checks and copies `info`; errors name the entry ("program 3: ...").
absl::StatusOr<Model> loadModel(const hwagent_model_info_t *info);

} // namespace hwagent_rt

#endif // HWAGENT_RT_MODEL_H
