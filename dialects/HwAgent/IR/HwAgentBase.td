//===- HwAgentBase.td - hwagent dialect definition ---------*- tablegen -*-===//
//
// The hwagent dialect describes how a training graph is cut into regions,
// what each region costs on each backend of a heterogeneous SoC and where it
// was placed.
//
//===----------------------------------------------------------------------===//

#ifndef HWAGENT_IR_HWAGENTBASE_TD
#define HWAGENT_IR_HWAGENTBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def HwAgent_Dialect : Dialect {
  let name = "hwagent";
  let cppNamespace = "::mlir::hwagent";
  let summary = "Hardware-aware partitioning of training graphs";
  let description = [{
    The `hwagent` dialect carries the state of backend partitioning: regions of
    a training step (`hwagent.region`) annotated with profiled features,
    predicted per-backend costs and the chosen backend, and explicit transfers
    (`hwagent.transfer`) at the boundaries between backends.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
  // Attributes hwagent puts on ops it does not own; each has a helper
  // (getTargetAttrHelper(), ...) so no pass spells the name.
  let discardableAttrs = (ins
    /// The target the module was estimated for (hwagent-estimate-costs).
    "::mlir::hwagent::TargetAttr":$target,
    /// Whether weights change every step (hwagent-estimate-costs'
    /// `training`): programs pay for taking new weights.
    "::mlir::BoolAttr":$training,
    /// Steps per weight update (hwagent-estimate-costs' `update-every`;
    /// absent: every step).
    "::mlir::IntegerAttr":$update_every,
    /// What the placement minimizes when not the step time
    /// (hwagent-assign-backends' `objective`: #hwagent.objective<energy>
    /// or <edp>); the runtime's sessions optimize it too.
    "::mlir::hwagent::ObjectiveAttr":$objective,
    /// The average watts over a step the placement keeps under
    /// (hwagent-assign-backends' `power-cap`).
    "::mlir::FloatAttr":$power_cap,
    /// Weight arguments arrive anew at every call even outside a training
    /// step (hwagent-estimate-costs' `weights-as-inputs`).
    "::mlir::UnitAttr":$weights_as_inputs,
    /// A function's features as if it were one region (hwagent-profile).
    "::mlir::hwagent::FeaturesAttr":$features,
    /// A function's programs after partitioning (hwagent-assign-backends).
    "::mlir::ArrayAttr":$programs,
    /// An op's training phase, set by users where names cannot tell it.
    "::mlir::hwagent::PhaseAttr":$phase,
    /// A region's structural key before transfers changed its body.
    "::mlir::StringAttr":$key,
    /// Marks the f32<->f16 conversions hwagent-insert-transfers puts at an
    /// ANE region's boundary; hwagent-lower-to-runtime moves them into the
    /// ANE variant (the CPU variant of a program stays f32).
    "::mlir::UnitAttr":$boundary
  );
}

//===----------------------------------------------------------------------===//
// Enums. Backend, WeightUpdate, Objective and Phase/OpKind take their values
// from the core (HwAgent/Core/Vocabulary.h, where each word is declared);
// the dialect static_asserts that they agree (HwAgentDialect.cpp).
//===----------------------------------------------------------------------===//

def HwAgent_BackendEnum : I32EnumAttr<"Backend", "execution backend", [
    I32EnumAttrCase<"cpu", 0>,
    I32EnumAttrCase<"ane", 1>,
    I32EnumAttrCase<"gpu", 2>
  ]> {
  let cppNamespace = "::mlir::hwagent";
  let genSpecializedAttr = 0;
}

def HwAgent_PhaseEnum : I32EnumAttr<"Phase", "training phase", [
    I32EnumAttrCase<"unknown", 0>,
    I32EnumAttrCase<"forward", 1>,
    I32EnumAttrCase<"backward", 2>,
    I32EnumAttrCase<"optimizer", 3>,
    I32EnumAttrCase<"mixed", 4>
  ]> {
  let cppNamespace = "::mlir::hwagent";
  let genSpecializedAttr = 0;
}

/// Work categories of the op-type histogram. The order is the storage order
/// of `#hwagent.features` histograms; append only.
def HwAgent_OpKindEnum : I32EnumAttr<"OpKind", "category of work an op does", [
    I32EnumAttrCase<"conv", 0>,
    I32EnumAttrCase<"depthwise", 1>,
    I32EnumAttrCase<"matmul", 2>,
    I32EnumAttrCase<"elementwise", 3>,
    I32EnumAttrCase<"reduction", 4>,
    I32EnumAttrCase<"normalization", 5>,
    I32EnumAttrCase<"pooling", 6>,
    I32EnumAttrCase<"data_movement", 7>,
    I32EnumAttrCase<"control_flow", 8>,
    I32EnumAttrCase<"opaque", 9>
  ]> {
  let cppNamespace = "::mlir::hwagent";
  let genSpecializedAttr = 0;
}

def HwAgent_WeightUpdateEnum : I32EnumAttr<"WeightUpdate",
    "how a program takes new weights every training step", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"input", 1>,
    I32EnumAttrCase<"recompile", 2>,
    I32EnumAttrCase<"reload", 3>
  ]> {
  let cppNamespace = "::mlir::hwagent";
  let genSpecializedAttr = 0;
}

/// What the optimal placement minimizes (hwcore::Objective).
def HwAgent_ObjectiveEnum : I32EnumAttr<"Objective",
    "what the optimal placement minimizes", [
    I32EnumAttrCase<"time", 0>,
    I32EnumAttrCase<"energy", 1>,
    I32EnumAttrCase<"edp", 2>
  ]> {
  let cppNamespace = "::mlir::hwagent";
  let genSpecializedAttr = 0;
}

class HwAgent_Op<string mnemonic, list<Trait> traits = []> :
    Op<HwAgent_Dialect, mnemonic, traits>;

#endif // HWAGENT_IR_HWAGENTBASE_TD
