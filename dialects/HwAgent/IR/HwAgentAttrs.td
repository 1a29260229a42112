//===- HwAgentAttrs.td - hwagent attributes ----------------*- tablegen -*-===//

#ifndef HWAGENT_IR_HWAGENTATTRS_TD
#define HWAGENT_IR_HWAGENTATTRS_TD

include "HwAgent/IR/HwAgentBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class HwAgent_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<HwAgent_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def HwAgent_BackendAttr : EnumAttr<HwAgent_Dialect, HwAgent_BackendEnum,
                                   "backend"> {
  let summary = "An execution backend: cpu, ane or gpu";
  let assemblyFormat = "`<` $value `>`";
}

def HwAgent_PhaseAttr : EnumAttr<HwAgent_Dialect, HwAgent_PhaseEnum, "phase"> {
  let summary = "Training phase (forward, backward, optimizer) of an op";
  let description = [{
    Users put `hwagent.phase = #hwagent.phase<backward>` on ops (or functions)
    whose phase cannot be told from callee or function names.
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// FeaturesAttr
//===----------------------------------------------------------------------===//

def HwAgent_FeaturesAttr : HwAgent_Attr<"Features", "features"> {
  let summary = "Profiled workload features of a region (profile_workload)";
  let description = [{
    Exact counts for static shapes (conventions in docs/features.md):

    - `flops`: arithmetic operations, a multiply-add counts 2;
    - `bytes_read` / `bytes_written`: bytes of the region's operands / results;
    - `params` / `param_bytes`: elements and bytes of weights (function
      arguments or constants feeding a contraction in its weight position);
    - `ops`: op-type histogram, only non-zero kinds are printed;
    - `depth`: longest chain of dependent ops inside the region;
    - `types`: element types the region computes in;
    - `dynamic_dims`: number of dynamic dimensions among operand/result types
      (when non-zero, counts are lower bounds that take each such dim as 1);
    - `max_dim` / `max_rank`: largest static extent and rank of any tensor;
    - `loops`: the region contains a loop or recurrence;
    - `phase`: training phase when it could be told.

    Every field is optional when parsing and defaults to zero/empty/unknown.

    Example:
    ```mlir
    #hwagent.features<flops = 2048, bytes_read = 512, bytes_written = 256,
                      params = 64, param_bytes = 256, ops = {matmul = 1},
                      depth = 1, types = [f32], max_dim = 16, max_rank = 2,
                      phase = forward>
    ```
  }];
  let parameters = (ins
    "int64_t":$flops,
    "int64_t":$bytesRead,
    "int64_t":$bytesWritten,
    "int64_t":$params,
    "int64_t":$paramBytes,
    ArrayRefParameter<"int64_t", "op count per OpKind">:$opHistogram,
    "int64_t":$depth,
    ArrayRefParameter<"::mlir::Type", "element types">:$elementTypes,
    "int64_t":$dynamicDims,
    "int64_t":$maxDim,
    "int64_t":$maxRank,
    "bool":$hasLoops,
    "::mlir::hwagent::Phase":$phase
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of ops of `kind` in the region.
    int64_t getOpCount(::mlir::hwagent::OpKind kind) const;
    /// Total ops counted in the histogram.
    int64_t getTotalOps() const;
    /// FLOPs per byte of region input and output; 0 when no bytes move.
    double getArithmeticIntensity() const;
  }];
}

//===----------------------------------------------------------------------===//
// Costs
//===----------------------------------------------------------------------===//

def HwAgent_BackendCostAttr : HwAgent_Attr<"BackendCost", "backend_cost"> {
  let summary = "Predicted cost and legality of a region on one backend";
  let description = [{
    `seconds` is the predicted execution time when `legal`; an illegal
    placement carries the reason a person reads in explanations. Written in
    full inside `#hwagent.costs` as `cpu = 1.0e-03` (legal) or
    `ane = illegal "dynamic dimension in operand 0"`, optionally followed by
    `note "..."` for a legal entry.
  }];
  let parameters = (ins
    "::mlir::hwagent::Backend":$backend,
    APFloatParameter<"">:$seconds,
    "bool":$legal,
    StringRefParameter<"why the backend is illegal, or a note">:$reason
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def HwAgent_CostsAttr : HwAgent_Attr<"Costs", "costs"> {
  let summary = "Per-backend predicted costs of a region (predict_performance)";
  let description = [{
    Example:
    ```mlir
    #hwagent.costs<cpu = 1.2e-03, ane = illegal "dynamic shape", gpu = 4.0e-04>
    ```
    Each backend appears at most once.
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::hwagent::BackendCostAttr", "entries">:$entries
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The entry for `backend`, or null when the costs do not mention it.
    ::mlir::hwagent::BackendCostAttr lookup(::mlir::hwagent::Backend backend) const;
  }];
}

//===----------------------------------------------------------------------===//
// Target descriptions
//===----------------------------------------------------------------------===//

def HwAgent_DeviceAttr : HwAgent_Attr<"Device", "device"> {
  let summary = "Hardware description of one backend of a chip";
  let description = [{
    Parameters of the analytic cost model (docs/cost-model.md):
    `peak_flops` (FLOP/s at the backend's compute type), the utilization ramp
    `util = min(1, (flops / ramp_flops) ** ramp_exponent)`, `bandwidth`
    (bytes/s), `dispatch` (seconds per region launch), `sram_bytes` (on-chip
    memory, 0 = none) and `spill_factor` (slow-down of the memory term beyond
    it), `compile` (seconds to (re)compile a region), `max_dim` (largest
    extent per axis, 0 = unlimited) and `max_rank`.

    Example:
    ```mlir
    #hwagent.device<backend = ane, peak_flops = 1.1e13, ramp_flops = 1.8e10,
                    ramp_exponent = 0.38, bandwidth = 1.2e11, dispatch = 1.5e-4,
                    sram_bytes = 33554432, spill_factor = 2.0, compile = 0.03,
                    max_dim = 16384, max_rank = 4>
    ```
  }];
  let parameters = (ins
    "::mlir::hwagent::Backend":$backend,
    APFloatParameter<"">:$peak_flops,
    APFloatParameter<"">:$ramp_flops,
    APFloatParameter<"">:$ramp_exponent,
    APFloatParameter<"">:$bandwidth,
    APFloatParameter<"">:$dispatch,
    "int64_t":$sram_bytes,
    APFloatParameter<"">:$spill_factor,
    APFloatParameter<"">:$compile,
    "int64_t":$max_dim,
    "int64_t":$max_rank
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def HwAgent_LinkAttr : HwAgent_Attr<"Link", "link"> {
  let summary = "Price of a boundary from one backend to another";
  let description = [{
    A boundary from `from` to `to` costs `sync + bytes / bandwidth`, plus
    `bytes / convert_bandwidth` when f32 data crosses to or from the ANE
    (0 = conversion free).

    Example:
    ```mlir
    #hwagent.link<from = cpu, to = gpu, bandwidth = 1.2e11,
                  convert_bandwidth = 6.0e10, sync = 5.0e-5>
    ```
  }];
  let parameters = (ins
    "::mlir::hwagent::Backend":$from,
    "::mlir::hwagent::Backend":$to,
    APFloatParameter<"">:$bandwidth,
    APFloatParameter<"">:$convert_bandwidth,
    APFloatParameter<"">:$sync
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def HwAgent_TargetAttr : HwAgent_Attr<"Target", "target"> {
  let summary = "A heterogeneous chip: its backends and the links between them";
  let description = [{
    Example:
    ```mlir
    #hwagent.target<"apple-m4", transfer_bandwidth = 1.2e11, sync = 2.0e-4,
                    devices = [#hwagent.device<...>, ...],
                    links = [#hwagent.link<from = cpu, to = gpu, ...>, ...]>
    ```
    `transfer_bandwidth` (bytes/s) and `sync` (seconds) price a boundary
    between two backends without a link of their own; `links` (optional)
    price ordered pairs. Each backend and each pair is described at most
    once.
  }];
  let parameters = (ins
    StringRefParameter<"target name">:$name,
    ArrayRefParameter<"::mlir::hwagent::DeviceAttr", "backends">:$devices,
    APFloatParameter<"">:$transferBandwidth,
    APFloatParameter<"">:$sync,
    OptionalArrayRefParameter<"::mlir::hwagent::LinkAttr", "links">:$links
  );
  let assemblyFormat = [{
    `<` $name `,` `transfer_bandwidth` `=` $transferBandwidth `,` `sync` `=` $sync
    `,` `devices` `=` `[` $devices `]` (`,` `links` `=` `[` $links^ `]`)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The description of `backend`, or null when the target lacks it.
    ::mlir::hwagent::DeviceAttr lookup(::mlir::hwagent::Backend backend) const;
  }];
}

#endif // HWAGENT_IR_HWAGENTATTRS_TD
