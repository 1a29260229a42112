//===- Vocabulary.h - the C API's words tied to the core's ------*- C++ -*-===//
//
// The C header's enums (hwagent_types.h) carry the values of the core's
// (HwAgent/Core/Vocabulary.h, where each word is declared): values cross
// between them by a cast, and these checks fail to compile when one side
// gains or changes a word the other lacks.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_RT_VOCABULARY_H
#define HWAGENT_RT_VOCABULARY_H

#include "hwagent_rt/hwagent_types.h"

#include "HwAgent/Core/Vocabulary.h"

namespace hwagent_rt::vocabulary {

#define HWAGENT_TIED(c, core)                                                  \
  static_assert(static_cast<int64_t>(c) == static_cast<int64_t>(core),         \
                #c " and " #core " differ")
HWAGENT_TIED(HWAGENT_BACKEND_CPU, hwcore::BackendKind::cpu);
HWAGENT_TIED(HWAGENT_BACKEND_ANE, hwcore::BackendKind::ane);
HWAGENT_TIED(HWAGENT_BACKEND_GPU, hwcore::BackendKind::gpu);
HWAGENT_TIED(HWAGENT_NUM_BACKENDS, hwcore::kNumBackendKinds);
HWAGENT_TIED(HWAGENT_WEIGHTS_STATIC, hwcore::WeightUpdate::none);
HWAGENT_TIED(HWAGENT_WEIGHTS_INPUT, hwcore::WeightUpdate::input);
HWAGENT_TIED(HWAGENT_WEIGHTS_RECOMPILE, hwcore::WeightUpdate::recompile);
HWAGENT_TIED(HWAGENT_WEIGHTS_RELOAD, hwcore::WeightUpdate::reload);
HWAGENT_TIED(HWAGENT_NUM_WEIGHT_UPDATES, hwcore::kNumWeightUpdates);
HWAGENT_TIED(HWAGENT_OBJECTIVE_TIME, hwcore::Objective::time);
HWAGENT_TIED(HWAGENT_OBJECTIVE_ENERGY, hwcore::Objective::energy);
HWAGENT_TIED(HWAGENT_OBJECTIVE_EDP, hwcore::Objective::edp);
HWAGENT_TIED(HWAGENT_NUM_OBJECTIVES, hwcore::kNumObjectives);
HWAGENT_TIED(HWAGENT_THERMAL_NOMINAL, hwcore::ThermalState::nominal);
HWAGENT_TIED(HWAGENT_THERMAL_FAIR, hwcore::ThermalState::fair);
HWAGENT_TIED(HWAGENT_THERMAL_SERIOUS, hwcore::ThermalState::serious);
HWAGENT_TIED(HWAGENT_THERMAL_CRITICAL, hwcore::ThermalState::critical);
#undef HWAGENT_TIED

} // namespace hwagent_rt::vocabulary

#endif // HWAGENT_RT_VOCABULARY_H
