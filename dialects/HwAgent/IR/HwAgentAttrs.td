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
    - `rows`: innermost rows of the region's activations (operands and
      results that are not weights): each static tensor's elements over its
      last extent, summed (what a backend that aligns rows pays for);
    - `loops`: the region contains a loop or recurrence;
    - `phase`: training phase when it could be told;
    - `weight_gradient`: the region computes a gradient of the parameters
      (printed only when true);
    - `winograd_flops`: FLOPs of convolutions with a 3x3 window, unit stride
      and dilation and more than one input channel (what Winograd's minimal
      filtering applies to; printed only when non-zero).

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
    "int64_t":$rows,
    "bool":$hasLoops,
    "::mlir::hwagent::Phase":$phase,
    "bool":$weightGradient,
    "int64_t":$winogradFlops
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
    `note "..."` for a legal entry and by `terms <...>`, the cost model's
    terms for the region inside a program (#hwagent.cost_terms), which the
    partitioner prices programs from. `seconds` is the region as a program
    of its own (launch and weight handling included).
  }];
  let parameters = (ins
    "::mlir::hwagent::Backend":$backend,
    APFloatParameter<"">:$seconds,
    "bool":$legal,
    StringRefParameter<"why the backend is illegal, or a note">:$reason,
    "::mlir::hwagent::CostTermsAttr":$terms
  );
  let builders = [
    AttrBuilder<(ins "::mlir::hwagent::Backend":$backend,
                     "::llvm::APFloat":$seconds, "bool":$legal,
                     "::llvm::StringRef":$reason), [{
      return $_get($_ctxt, backend, seconds, legal, reason, CostTermsAttr());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def HwAgent_CostTermsAttr : HwAgent_Attr<"CostTerms", "cost_terms"> {
  let summary = "A region's cost on one backend, term by term, inside a program";
  let description = [{
    Seconds of compute with weights resident (`compute`) and with weights
    passed as inputs (`input_compute`), of the region's own memory traffic
    with weights resident and passed as inputs (`memory`, `input_memory`) and of its launch inside a program (`region_launch`); its
    FLOPs, the bytes of its weights as the backend holds them, whether its
    working set spills out of on-chip memory, and the multiplier telemetry
    puts on the backend's programs. Without terms an entry's seconds are
    taken as compute (hand-written IR).

    Example:
    ```mlir
    #hwagent.cost_terms<compute = 1.0e-04, input_compute = 2.0e-04,
                        memory = 1.0e-05, input_memory = 2.0e-05,
                        region_launch = 1.0e-06,
                        flops = 1048576, weight_bytes = 4096, spilled = false,
                        telemetry = 1.0>
    ```
  }];
  let parameters = (ins
    APFloatParameter<"">:$compute,
    APFloatParameter<"">:$input_compute,
    APFloatParameter<"">:$memory,
    APFloatParameter<"">:$input_memory,
    APFloatParameter<"">:$region_launch,
    "int64_t":$flops,
    "int64_t":$weight_bytes,
    "::mlir::BoolAttr":$spilled,
    APFloatParameter<"">:$telemetry
  );
  let assemblyFormat = "`<` struct(params) `>`";
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

def HwAgent_ObjectiveAttr : EnumAttr<HwAgent_Dialect, HwAgent_ObjectiveEnum,
                                     "objective"> {
  let summary = "What a placement minimizes: time, energy or edp";
  let description = [{
    On a module after hwagent-assign-backends with `objective=energy` or
    `edp`: `hwagent.objective = #hwagent.objective<energy>`. The lowering
    writes it into the model info; the runtime's sessions optimize it.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def HwAgent_WeightUpdateAttr : EnumAttr<HwAgent_Dialect, HwAgent_WeightUpdateEnum,
                                        "weight_update"> {
  let summary = "How a program takes new weights every step";
  let assemblyFormat = "`<` $value `>`";
}

// Device fields with their defaults: a field at its default is not printed
// and may be left out.
class HwAgent_Real<string value> : APFloatParameter<""> {
  let defaultValue = "::llvm::APFloat(" # value # ")";
}
class HwAgent_Int<string value> : DefaultValuedParameter<"int64_t", value>;
def HwAgent_Flag : OptionalParameter<"::mlir::BoolAttr">;
def HwAgent_Dict : OptionalParameter<"::mlir::DictionaryAttr">;
def HwAgent_List : OptionalParameter<"::mlir::ArrayAttr">;
def HwAgent_Str : OptionalParameter<"::mlir::StringAttr">;

def HwAgent_DeviceAttr : HwAgent_Attr<"Device", "device"> {
  let summary = "The device model of one backend of a chip";
  let description = [{
    Every field of a backend's description (docs/targets.md), so that the
    module carries its target losslessly: later passes and the lowering read
    it instead of resolving the target again. Field names are the target
    file's; fields at their default (the target file's) are not printed and
    may be left out.

    Example:
    ```mlir
    #hwagent.device<backend = ane, simulated = true,
      peak_flops = {f16 = 1.86e13 : f64},
      kind_efficiency = {matmul = 3.0e-01 : f64}, ramp_flops = 3.5e9,
      ramp_exponent = 0.38, program_ramp = true, compute_type = "f16",
      bandwidth = 6.4e10, fused_memory = true, sram_bytes = 33554432,
      spill_factor = 1.4, launch = 1.0e-4, region_launch = 1.0e-6,
      weight_updates = ["input", "recompile", "reload"],
      input_weight_efficiency = 0.5, compile = 0.011,
      compile_per_byte = 1.0e-8, reload_per_byte = 1.6e-9,
      max_weight_bytes = 2147483648, max_compiles = 119, restart = 1.0,
      static_shapes = true, max_dim = 16384, max_rank = 4,
      op_kinds = ["conv", "matmul"], element_types = ["f16", "f32"]>
    #hwagent.device<backend = cpu, peak_flops = {f32 = 1.0e9 : f64},
                    bandwidth = 1.0e9>
    ```
  }];
  let parameters = (ins
    "::mlir::hwagent::Backend":$backend,
    HwAgent_Flag:$simulated,
    "::mlir::DictionaryAttr":$peak_flops,
    HwAgent_Real<"0.0">:$matrix_flops,
    HwAgent_Dict:$kind_efficiency,
    HwAgent_Real<"1.0">:$ramp_flops,
    HwAgent_Real<"1.0">:$ramp_exponent,
    HwAgent_Flag:$program_ramp,
    HwAgent_Str:$compute_type,
    APFloatParameter<"">:$bandwidth,
    HwAgent_Flag:$fused_memory,
    HwAgent_Int<"0">:$sram_bytes,
    HwAgent_Int<"0">:$row_alignment,
    HwAgent_Real<"1.0">:$spill_factor,
    HwAgent_Flag:$serial_memory,
    HwAgent_Real<"1.0">:$winograd_gain,
    HwAgent_Real<"0.0">:$launch,
    HwAgent_Real<"0.0">:$region_launch,
    HwAgent_List:$weight_updates,
    HwAgent_Real<"1.0">:$input_weight_efficiency,
    HwAgent_Real<"0.0">:$compile,
    HwAgent_Real<"0.0">:$compile_per_byte,
    HwAgent_Real<"0.0">:$reload,
    HwAgent_Real<"0.0">:$reload_per_byte,
    HwAgent_Int<"0">:$max_weight_bytes,
    HwAgent_Int<"0">:$max_compiles,
    HwAgent_Real<"0.0">:$restart,
    HwAgent_Real<"0.0">:$idle_power,
    HwAgent_Real<"0.0">:$active_power,
    HwAgent_Real<"0.0">:$energy_per_flop,
    HwAgent_Real<"0.0">:$energy_per_byte,
    HwAgent_Real<"0.0">:$host_power,
    HwAgent_Real<"0.0">:$launch_energy,
    HwAgent_Real<"0.0">:$dvfs_exponent,
    HwAgent_Real<"1.0">:$min_clock,
    HwAgent_Int<"1">:$threads,
    HwAgent_Real<"1.0">:$parallel_exponent,
    HwAgent_Flag:$static_shapes,
    HwAgent_Int<"0">:$max_dim,
    HwAgent_Int<"0">:$max_rank,
    HwAgent_List:$op_kinds,
    HwAgent_List:$element_types
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The description this attribute carries; fails (with `error` set to
    /// "<field>: <what>") on names the core does not know.
    ::mlir::FailureOr<::hwcore::BackendDescription>
    toDescription(std::string &error) const;
    static DeviceAttr get(::mlir::MLIRContext *context,
                          const ::hwcore::BackendDescription &description);
  }];
}

def HwAgent_LinkAttr : HwAgent_Attr<"Link", "link"> {
  let summary = "Price of a boundary from one backend to another";
  let description = [{
    Data crossing from `from` to `to` costs `sync` once per program
    boundary, `bytes / bandwidth`, and `bytes / convert_bandwidth` for f32
    data converted to or from f16 (0 = conversion free).

    Example:
    ```mlir
    #hwagent.link<from = cpu, to = gpu, bandwidth = 1.2e11,
                  convert_bandwidth = 0.0, sync = 2.0e-5>
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
    The whole target description (docs/targets.md), lossless: `devices`
    describe the backends, `links` the ordered pairs priced on their own,
    and `transfer_bandwidth`, `convert_bandwidth` and `sync` the default
    link for the other pairs. `hwagent-estimate-costs` writes it on the
    module; `hwagent-assign-backends` and `hwagent-lower-to-runtime` read it.

    Example:
    ```mlir
    #hwagent.target<"apple-m4" description "Apple M4", transfer_bandwidth = 1.0e11,
                    convert_bandwidth = 5.0e10, sync = 2.0e-5, static_power = 0.2,
                    devices = [#hwagent.device<...>, ...],
                    links = [#hwagent.link<from = cpu, to = gpu, ...>, ...]>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"target name">:$name,
    StringRefParameter<"what the target is", [{""}]>:$description,
    ArrayRefParameter<"::mlir::hwagent::DeviceAttr", "backends">:$devices,
    APFloatParameter<"">:$transferBandwidth,
    APFloatParameter<"">:$convertBandwidth,
    APFloatParameter<"">:$sync,
    OptionalArrayRefParameter<"::mlir::hwagent::LinkAttr", "links">:$links,
    HwAgent_Real<"0.0">:$staticPower
  );
  let assemblyFormat = [{
    `<` $name (`description` $description^)? `,`
    `transfer_bandwidth` `=` $transferBandwidth `,`
    `convert_bandwidth` `=` $convertBandwidth `,` `sync` `=` $sync `,`
    (`static_power` `=` $staticPower^ `,`)?
    `devices` `=` `[` $devices `]` (`,` `links` `=` `[` $links^ `]`)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The description of `backend`, or null when the target lacks it.
    ::mlir::hwagent::DeviceAttr lookup(::mlir::hwagent::Backend backend) const;
    /// The target this attribute carries (it verified, so this succeeds
    /// for any attribute that exists).
    ::hwcore::TargetDescription toDescription() const;
    static TargetAttr get(::mlir::MLIRContext *context,
                          const ::hwcore::TargetDescription &description);
  }];
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

def HwAgent_ProgramAttr : HwAgent_Attr<"Program", "program"> {
  let summary = "A program: regions compiled together and launched once";
  let description = [{
    A convex, connected set of a function's regions placed on one backend
    (its regions carry `program = <id>`). `costs` are the program's
    predicted seconds per execution on each backend where all its regions
    are legal (launch and weight handling included; at the peak clock, also
    under a power cap, whose clock the runtime applies itself), `weights`
    how it takes
    new weights every step on its backend, `weight_bytes` the weights it
    holds. `hwagent-assign-backends` writes one per program in the
    function's `hwagent.programs`; `hwagent-lower-to-runtime` emits one
    dispatch per program.

    Example:
    ```mlir
    #hwagent.program<id = 0, backend = ane, regions = [0, 1, 2],
                     costs = <cpu = 2.1e-03, ane = 4.2e-04, gpu = 1.1e-03>,
                     weights = input, weight_bytes = 73728>
    ```
  }];
  let parameters = (ins
    "int64_t":$id,
    "::mlir::hwagent::Backend":$backend,
    "::mlir::DenseI64ArrayAttr":$regions,
    "::mlir::hwagent::CostsAttr":$costs,
    "::mlir::hwagent::WeightUpdate":$weights,
    "int64_t":$weight_bytes
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // HWAGENT_IR_HWAGENTATTRS_TD
