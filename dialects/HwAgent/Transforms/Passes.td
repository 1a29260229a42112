//===- Passes.td - hwagent passes --------------------------*- tablegen -*-===//

#ifndef HWAGENT_TRANSFORMS_PASSES_TD
#define HWAGENT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FormRegions : Pass<"hwagent-form-regions", "::mlir::ModuleOp"> {
  let summary = "Cluster each function into convex hwagent.region ops";
  let description = [{
    Cuts every function into `hwagent.region`s around compute anchors
    (convolutions, depthwise, matmul/batch_matmul, contractions and reductions,
    pooling, normalization; their TOSA forms), fusing neighbouring elementwise,
    broadcast, reshape and cast ops the way IREE forms dispatch regions.
    Loops, calls and opaque/unregistered ops are regions of their own.
    Regions are convex: no use-def path leaves a region and re-enters it.
    Scalar constants and `tensor.empty` are cloned into each region using
    them; tensor constants (weights) become region operands.

    Functions only reached through `func.call` are left alone (they are part
    of their call site's region) unless `include-callees` is set.

    First, linalg.generic ops that compute a small constant from splat
    constants (torch-mlir's 0-d i64 scalars converted to f32, as in
    hardswish) are folded into `arith.constant`: like any constant they are
    then cloned into the regions that use them, and no region exists only
    because of a constant.

    Example: `hwagent-opt --hwagent-form-regions="granularity=per-layer max-ops=32"`.
  }];
  let options = [
    Option<"granularity", "granularity", "::mlir::hwagent::Granularity",
           "::mlir::hwagent::Granularity::Fused",
           "How much to put in one region",
           [{::mlir::hwagent::granularityValues()}]>,
    Option<"maxOps", "max-ops", "unsigned", "0",
           "Most ops in one region (constants and tensor.empty excluded); 0 = no cap">,
    Option<"includeCallees", "include-callees", "bool", "false",
           "Also form regions inside functions that are called from others">,
  ];
  let statistics = [
    Statistic<"numRegions", "regions", "Regions formed">,
    Statistic<"numOpsClustered", "ops-clustered", "Ops placed in regions">,
    Statistic<"numConstantsFolded", "constants-folded",
              "Constant computations folded before clustering">,
  ];
  let dependentDialects = ["::mlir::hwagent::HwAgentDialect"];
}

def Profile : Pass<"hwagent-profile", "::mlir::ModuleOp"> {
  let summary = "Attach #hwagent.features to every region (profile_workload)";
  let description = [{
    Computes each region's features (docs/features.md): FLOPs, bytes read and
    written, parameters, op-type histogram, depth, element types, dynamic
    dimensions, largest dimension and rank, loops, training phase. Functions
    holding regions get the whole function's features as `hwagent.features`,
    so that the region FLOPs can be checked to add up. Ops no estimator knows
    are reported with a warning and counted as zero FLOPs.

    `report=<file|->` writes the machine-readable profile (JSON, schema
    `hwagent.profile` version 1, docs/features.md).
  }];
  let options = [
    Option<"report", "report", "std::string", "\"\"",
           "Write the JSON profile report to this file ('-' for stdout)">,
  ];
  let dependentDialects = ["::mlir::hwagent::HwAgentDialect"];
}

def EstimateCosts : Pass<"hwagent-estimate-costs", "::mlir::ModuleOp"> {
  let summary = "Predict each region's time and legality on every backend (predict_performance)";
  let description = [{
    Attaches `#hwagent.costs` to every region: predicted seconds on each
    backend of the target, or `illegal` with the reason, and a note naming
    the binding term (docs/cost-model.md). Regions without features are
    profiled first. The module gets `hwagent.target`, a `#hwagent.target`
    summary of the target used.

    - `target`: a built-in name (apple-m1, apple-m2-pro, apple-m4,
      apple-m4-max, the phone chips apple-a16 and apple-a17-pro, host) or a
      target JSON file (docs/targets.md);
    - `telemetry`: a snapshot file (utilization, thermal state, free memory);
    - `profile-db`: measured times keyed by region structural hash; a match
      refines the estimate, stale or unmatched entries are reported and
      ignored;
    - `learned-model`: a model file hwagent-learn wrote (gradient-boosted
      trees over log(measured/analytic)); regions without a profile entry
      take its correction on each backend whose held-out error beats the
      analytic model's, the per-backend geometric mean elsewhere;
    - `training`: weights change every step (backends that bake weights into
      programs pay to take new ones: as inputs, recompiled or reloaded);
    - `update-every=k`: the step accumulates gradients and the weights
      change once per k steps: a recompile or reload is paid once per
      update, spread over k steps (inputs still stream every step);
    - `fp16-gradients`: allow weight-gradient and optimizer regions on fp16
      backends (the ANE) with loss scaling; by default they stay in fp32;
    - `backends=cpu,ane`: the backends a partition may use (the CPU, which
      runs the host, must be one).

    The resolved target goes on the module as a lossless `#hwagent.target`
    (`hwagent.target`) with `hwagent.training`: later passes and the
    lowering read them instead of resolving the target again.
  }];
  let options = [
    Option<"target", "target", "std::string", "::hwcore::kDefaultTarget",
           "Built-in target name or target JSON file">,
    Option<"telemetry", "telemetry", "std::string", "\"\"",
           "Telemetry snapshot JSON file">,
    Option<"profileDb", "profile-db", "std::string", "\"\"",
           "Measured profile JSON file">,
    Option<"learnedModel", "learned-model", "std::string", "\"\"",
           "Learned cost model file (hwagent-learn)">,
    Option<"training", "training", "bool", "true",
           "Weights change every step (training rather than inference)">,
    Option<"updateEvery", "update-every", "int64_t", "1",
           "Steps per weight update (gradient accumulation): taking new "
           "weights is paid once per update">,
    Option<"fp16Gradients", "fp16-gradients", "bool", "false",
           "Allow weight gradients and optimizer updates on fp16 backends">,
    Option<"weightsAsInputs", "weights-as-inputs", "bool", "false",
           "Weight arguments arrive anew at every call even outside a "
           "training step (e.g. an inference runtime that passes weights)">,
    ListOption<"backends", "backends", "std::string",
               "Backends a partition may use (default: all of the target's)">,
  ];
  let dependentDialects = ["::mlir::hwagent::HwAgentDialect"];
}

def AssignBackends : Pass<"hwagent-assign-backends", "::mlir::ModuleOp"> {
  let summary = "Place every region on a backend (select_backend)";
  let description = [{
    Minimizes the predicted step time: the regions' predicted costs plus the
    cost of every boundary where a value crosses between backends (including
    the host, on the CPU, for function arguments and results). Two backends:
    an exact minimum s-t cut; three: alpha-expansion. Illegal placements are
    hard constraints. Sets `backend` on every region. docs/partitioning.md.

    Regions placed together form programs (convex, connected, one backend,
    launched once); the step time prices each program once (launch, weight
    handling, utilization over its FLOPs) and the boundaries between
    programs. The target is the module's `#hwagent.target`.

    - `strategy`: optimal (default), greedy (offload everything an
      accelerator supports), local (cheapest backend per region, boundaries
      ignored), cpu, ane, gpu; the others are always computed for the report;
    - `objective`: what optimal minimizes: time (default), energy (the
      step's modelled joules) or edp (joules x seconds);
    - `power-cap=<W>`: the average power over the step may not exceed it;
      optimal finds the best placement under it or fails saying none fits;
    - `explain`: one remark per region: chosen backend, time on each
      backend, margin to the runner-up, what decided;
    - `report=<file|->`: JSON (schema hwagent.partition v1);
    - `dot=<file>`: the region graph coloured by backend;
    - `summary`: a table on stderr.
  }];
  let options = [
    Option<"strategy", "strategy", "::hwcore::Strategy",
           "::hwcore::Strategy::optimal", "Assignment strategy",
           [{::mlir::hwagent::strategyValues()}]>,
    Option<"objective", "objective", "::hwcore::Objective",
           "::hwcore::Objective::time",
           "What the optimal placement minimizes",
           [{::mlir::hwagent::objectiveValues()}]>,
    Option<"powerCap", "power-cap", "double", "0.0",
           "Most average watts a placement may draw over the step "
           "(0 = no cap)">,
    Option<"explain", "explain", "bool", "false",
           "Emit one remark per region explaining its placement">,
    Option<"report", "report", "std::string", "\"\"",
           "Write the JSON partition report to this file ('-' for stdout)">,
    Option<"dot", "dot", "std::string", "\"\"",
           "Write the region graph in Graphviz format to this file">,
    Option<"html", "html", "std::string", "\"\"",
           "Write one self-contained HTML page of the partition to this file "
           "(graph drawn by Graphviz; docs/report.md)">,
    Option<"summary", "summary", "bool", "false",
           "Print a summary table to stderr">,
  ];
  let statistics = [
    Statistic<"numPrograms", "programs", "Programs formed">,
    Statistic<"numEvaluations", "evaluations",
              "Placements priced exactly by the partitioner">,
    Statistic<"numMoves", "refinement-moves",
              "Refinement moves that lowered the step time">,
  ];
  let dependentDialects = ["::mlir::hwagent::HwAgentDialect"];
}

def InsertTransfers : Pass<"hwagent-insert-transfers", "::mlir::ModuleOp"> {
  let summary = "Make every boundary between backends an explicit hwagent.transfer";
  let description = [{
    After hwagent-assign-backends: every value that crosses from one backend
    to another (the host counts as the CPU) goes through one
    `hwagent.transfer`, shared by all consumers on the destination backend.
    ANE regions exchange f16: their f32 tensor operands and results become
    f16 at the region boundary (an `arith.extf`/`arith.truncf` inside keeps
    the body as written until lowering produces the f16 variant), and the
    transfers into and out of them convert f32 <-> f16.
  }];
  let dependentDialects = ["::mlir::hwagent::HwAgentDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerToRuntime : Pass<"hwagent-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Dispatch every program through the runtime";
  let description = [{
    After partitioning: the regions of each program become one function per
    backend variant (`__hwagent_<fn>_p<N>_cpu` as written;
    `__hwagent_<fn>_p<N>_ane` storing every value in f16 between f32
    arithmetic, the ANE's numerics; the simulated GPU runs the CPU variant)
    and the program one run-time choice among them: `hwagent_rt_select`,
    then an `scf.index_switch` whose cases bracket the call with
    `hwagent_rt_begin`/`hwagent_rt_end` (one launch per program). An ANE
    execution the runtime reports failed (or whose results hold inf/NaN) is
    re-run on the CPU variant with the same inputs. A program's regions are
    first made contiguous (programs are convex). `hwagent.transfer` becomes
    the conversion it stands for.

    The model table (regions, programs, boundaries between programs, links,
    predictions) is emitted as constant LLVM globals of the runtime's C
    types (`hwagent_model_info_t` in hwagent_rt.h), returned by
    `__hwagent_model_info()`; sessions are created from it
    (docs/runtime.md).
  }];
  let options = [
    Option<"emitCInterface", "emit-c-interface", "bool", "true",
           "Add llvm.emit_c_interface to the public functions">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def LinalgToKernels : Pass<"hwagent-linalg-to-kernels", "::mlir::ModuleOp"> {
  let summary = "Call the runtime's packed-SGEMM kernel for large f32 contractions";
  let description = [{
    On bufferized code: every linalg op with two f32 inputs, one f32 output,
    a multiply-accumulate body and indexing maps that are affine sums of the
    loops (matmul in any transposition, batch_matmul, conv_2d_* with strides
    and dilations, and the linalg.generic convolution gradients a training
    step writes) becomes a call of `hwagent_contract_f32` (hwagent_kernels.h)
    with a constant spec of its loops and maps, when it does at least
    `min-flops` floating-point operations and is either no degenerate GEMM
    (each of M, N and K at least `min-dim`) or a convolution the kernel runs
    as oneDNN's convolution primitive (depthwise ones included;
    HwAgent/Core/Convolution.h). The kernel runs convolutions with oneDNN's
    convolution primitives and views or packs other contractions as
    matrices for oneDNN's SGEMM (docs/cpu-backend.md); the rest lowers to
    loops.
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t",
           "::mlir::hwagent::kDefaultKernelMinFlops",
           "Smallest contraction (2 x loop points) sent to the kernel">,
    Option<"minDim", "min-dim", "int64_t", "4",
           "Smallest M, N and K of a GEMM (not a convolution) sent to the kernel">,
  ];
  let statistics = [
    Statistic<"numKernelCalls", "kernel-calls",
              "Contractions sent to the kernel">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ExpandStridedCopies : Pass<"hwagent-expand-strided-copies", "::mlir::ModuleOp"> {
  let summary = "Turn memref.copy between strided views into linalg.copy";
  let description = [{
    finalize-memref-to-llvm lowers a memref.copy whose operands are not
    both contiguous to a call of the runner utilities' generic `memrefCopy`,
    which walks the elements one by one through their descriptors (the
    padding of every convolution input bufferizes to such a copy). As
    linalg.copy it becomes a loop nest the JIT vectorizes along the
    innermost unit stride; contiguous copies stay memcpy.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def EmitInvokers : Pass<"hwagent-emit-invokers", "::mlir::ModuleOp"> {
  let summary = "Define the packed entry points of the model's functions";
  let description = [{
    hwagent-lower-to-runtime declares `__hwagent_invoke_<fn>(ptr)` for
    every public function and lists it in the model info's function table.
    After the LLVM lowering this pass defines each: it loads argument i's
    address from slot i of the array it receives and calls
    `_mlir_ciface_<fn>` with them, passing (or storing) the results through
    the last slot. The runtime's hwagent_step_t calls functions only through
    these, so no driver writes memref descriptors by hand.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FreshOutputs : Pass<"hwagent-fresh-outputs", "::mlir::func::FuncOp"> {
  let summary = "Give linalg ops that overwrite their output a tensor.empty init";
  let description = [{
    convert-elementwise-to-linalg uses an op's first operand as the init of
    the linalg.generic it creates, so every op of a chain offers to write
    into a value that later ops may still read. One-shot bufferization then
    checks each such offer against every other use of the values aliasing
    it, which grows with the square of the chain (a 1000-op chain: 50 s).
    When the payload never reads the output's block argument and every loop
    is parallel, the init's contents are dead: this pass replaces it by a
    `tensor.empty` of the same shape, and bufferization allocates the
    result (from the runtime's caching allocator, so no cost per step)
    without any conflict to analyse.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def OutlineChunks : Pass<"hwagent-outline-chunks", "::mlir::ModuleOp"> {
  let summary = "Cut long straight-line function bodies into functions of a few loops each";
  let description = [{
    LLVM's loop passes (IndVarSimplify above all) take time quadratic in the
    number of loops in one function: an imported LSTM or ResNet training
    step keeps thousands of small loops in one body. This pass, run on
    buffers after linalg became loops, moves each run of consecutive
    top-level ops holding at most `max-loops` loops (and `max-ops` ops) of a
    single-block function into a private function of its own, marked
    noinline, and calls it: the values the run reads become arguments, the
    values later ops read become results, constants are cloned in. Start-up
    then grows linearly with the step's size (docs/building.md).

    Example: a body of 200 loops with `max-loops=16` becomes 13 calls of
    `@<function>_part<k>` functions.
  }];
  let options = [
    Option<"maxLoops", "max-loops", "int64_t", "16",
           "Most top-level loops per outlined function">,
    Option<"maxOps", "max-ops", "int64_t", "512",
           "Most top-level ops per outlined function">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
}

def ShareLoopNests : Pass<"hwagent-share-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Compile identical linalg ops on buffers once, as one shared function";
  let description = [{
    A training step repeats itself: the blocks of a network have the same
    shapes, the backward pass repeats the forward's elementwise ops, the
    evaluation step repeats the forward. An imported GPT holds 505 linalg
    ops of which 122 differ; every copy became its own loop nest for LLVM to
    optimize, vectorize and compile (most of a cold start). This pass, run
    on buffers before linalg becomes loops, groups the module's linalg ops
    that are identical but for their operands (same op, attributes, operand
    types and body; constants they capture compared by value), moves each
    group of two or more into one private noinline function of the
    operands, and calls it in their place. Ops whose bodies read other
    values from above are left alone.

    Example: two `linalg.generic` adding 1.0 to `memref<4x8xf32>` buffers
    become two `func.call @__hwagent_shared_0(%a, %b)`.
  }];
  let options = [
    Option<"minCopies", "min-copies", "int64_t", "2",
           "Fewest identical ops that get a shared function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def SplitLongBlocks : Pass<"hwagent-split-long-blocks", "::mlir::func::FuncOp"> {
  let summary = "Cut long straight-line blocks into chains of short ones";
  let description = [{
    convert-scf-to-cf splits the enclosing block at every loop it lowers,
    which moves every op after the loop into a new block: on a function
    body of N top-level loops that is O(N^2) work. This pass cuts each block
    of the function body into blocks of at most `max-ops` ops joined by
    `cf.br` (values keep dominating their uses), after which the lowering
    is linear. Nested regions are left alone.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "64",
           "Most ops per block after the split">,
  ];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def ApproximateMath : Pass<"hwagent-approximate-math", "::mlir::ModuleOp"> {
  let summary = "Write the math functions LLVM has no instruction for as polynomials";
  let description = [{
    `math.erf` and `math.erfc` (GELU, imported from PyTorch) have no LLVM
    intrinsic and no lowering in `convert-math-to-llvm`. This pass applies
    MLIR's own polynomial approximations (populateMathPolynomialApproximation
    Patterns, f16/bf16 widened to f32 around them first), which are accurate
    to about 1e-7 and vectorize, so a compiled step needs no libm symbol for
    them. Runs before bufferization in hwagent-lower-to-llvm.

    Example: `%y = math.erf %x : f32` becomes a rational polynomial in `%x`
    of arith ops clamped to [-1, 1].
  }];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def FuseElementwise : Pass<"hwagent-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg ops on tensors";
  let description = [{
    linalg's producer-consumer fusion of elementwise generics
    (populateElementwiseOpsFusionPatterns), limited to an elementwise
    consumer (fusing into a contraction would hide it from
    hwagent-linalg-to-kernels) and a producer value with no other use (no
    recomputation). Each chain then touches its bytes once.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

include "LoopPasses.td"

def OutlineParallelLoops : Pass<"hwagent-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Run the large top-level scf.parallel loops on the runtime's threads";
  let description = [{
    After convert-linalg-to-parallel-loops, every top-level `scf.parallel`
    of a function (elementwise ops, depthwise convolutions, pads, the
    parallel dimensions of reductions, copies, the simulated ANE's f16
    rounding fused into them) whose estimated work reaches `min-work` is
    outlined: its body becomes `__hwagent_par_body_N(begin, end,
    captures...)`, which runs iterations [begin, end) of the outermost
    dimension (leading dimensions with few iterations are collapsed into
    it first), and the loop becomes a call of
    `__hwagent_par_dispatch_N(iterations, work_per_iteration, captures...)`.
    hwagent-define-parallel-dispatch defines the dispatcher once the LLVM
    lowering has flattened the captures. The runtime's
    `hwagent_parallel_for` chooses the threads per call from the work and
    the session's thread limit (docs/cpu-backend.md). Every iteration is
    computed by one thread in the same order, so results do not depend on
    the thread count. Work is counted in body ops times iterations.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t",
           "::mlir::hwagent::kDefaultParallelMinWork",
           "Loops with less estimated work (body ops x iterations) stay inline">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def DefineParallelDispatch : Pass<"hwagent-define-parallel-dispatch", "::mlir::ModuleOp"> {
  let summary = "Define the dispatchers hwagent-outline-parallel-loops declared";
  let description = [{
    On the LLVM dialect: each `__hwagent_par_dispatch_N` declaration gets a
    body that stores its captured operands (memref descriptors flattened to
    scalars by func-to-llvm) in a stack struct and calls
    `hwagent_parallel_for(trampoline, &struct, iterations, work)`; the
    trampoline `__hwagent_par_tramp_N(ctx, begin, end)` loads them back and
    calls `__hwagent_par_body_N`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LowerLibraryCalls : Pass<"hwagent-lower-library-calls", "::mlir::ModuleOp"> {
  let summary = "Rewrite ByteIR library calls (byre.compute_on_tensor) as linalg on tensors";
  let description = [{
    ByteIR writes the heavy ops of a training step as opaque library calls,
    `byre.compute_on_tensor` with a `callee` such as
    "ConvBackwardFilterOp_f16f16_f16" and the attributes of the mhlo op it
    stands for. This pass rewrites each into linalg-on-tensors with that
    op's semantics, the operand conventions of ByteIR's runtime kernels
    (bytedance/byteir runtime/lib/backends/cuda/providers/default: math/conv.cc,
    conv_backward.cc, matmul.cc, pool.cc, pool_grad.cc,
    normalization/batch_norm_*.cc, reduction/reduce_impl.h; docs/byteir.md):

    - `ConvOp(input, filter) -> output`: mhlo.convolution (window_strides,
      padding, lhs/rhs_dilation, feature_group_count, NCHW/NHWC layouts);
    - `ConvBackwardDataOp(grad_output, filter) -> grad_input` and
      `ConvBackwardFilterOp(input, grad_output) -> grad_filter`: the
      gradients of the forward convolution the attributes describe;
    - `BatchNormTrainingOp(input, scale, offset) -> output [, mean, var]`
      and `BatchNormGradOp(input, scale, grad_output) -> (grad_input,
      grad_scale, grad_offset)`: batch statistics over every dimension but
      `feature_index` (the gradient recomputes them, as cuDNN does);
    - `PoolMaxOp(input) -> output` (mhlo.reduce_window with max) and
      `PoolMaxGradOp(input, grad_output) -> grad_input` (select_and_scatter:
      the first maximum of each window takes its gradient);
    - `ReduceSumOp`, `ReduceMaxOp` over `dimensions`;
    - `MatmulOp(lhs, rhs) -> output` with `lhs/rhs_contracting_dimension`
      and `output_transpose`.

    Like the cuDNN and cuBLAS calls ByteIR makes, f16 and bf16 calls compute
    in f32 and round their results; the contractions are f32 generics whose
    body is one multiply-accumulate, which hwagent-linalg-to-kernels sends to
    the packed SGEMM kernel. An unknown callee, attributes that do not
    describe the operand shapes, and any other op of an unregistered dialect
    are errors naming the op and its location. hwagent-lower-to-llvm runs
    this pass first.

    Example: `hwagent-opt --allow-unregistered-dialect step.mlir
    --hwagent-lower-library-calls`.
  }];
  let statistics = [
    Statistic<"numLowered", "library-calls", "Library calls rewritten">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // HWAGENT_TRANSFORMS_PASSES_TD
