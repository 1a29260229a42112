"""The published rows docs/validation.md compares the device model with,
kept in two sets that never mix:

- CALIBRATION: the figures the built-in targets' values were chosen
  against (docs/targets.md cites each), and the rows that motivated a
  structural rule (ANEForge's M4 Max one-layer convolution sweep: the GPU's
  Winograd convolutions, the ANE's unoverlapped traffic);
- HELD_OUT: published measurements no value or rule was chosen against,
  added with issue 36 to see how the model does on figures it has not seen.

Each row: (label, workload, target, strategy, extra partition options,
published seconds, source). Comparisons: (published faster, slower).
"""

MS = 1e-3


def gemm_seconds(n, tflops):
    return 2.0 * n ** 3 / (tflops * 1e12)


CALIBRATION = [
    ("MobileNetV1-224, ANE", "mobilenet", "apple-m1", "ane", "", 1.05 * MS, "1: TF PR #47605"),
    ("MobileNetV1-224, GPU", "mobilenet", "apple-m1", "gpu", "", 2.70 * MS, "1: TF PR #47605"),
    ("MobileNetV1-224, CPU 4 threads", "mobilenet", "apple-m1", "cpu", "", 9.09 * MS, "1: TF PR #47639"),
    ("MobileNetV1-224, CPU 1 thread", "mobilenet", "apple-m1:cpu.threads=1", "cpu", "", 18.8 * MS, "1: TF PR #47639"),
    ("MobileNetV2-224, ANE (A14: M1's ANE, half its memory bus)", "mobilenetv2",
     "apple-m1:ane.bandwidth=3.05e10", "ane", "", 1.73 * MS, "5: EfficientFormer #9"),
    ("1x1 conv chain x32, ANE", "chain32", "apple-m4-max", "ane", "", 0.408 * MS, "1: maderix BENCHMARK_RESULTS"),
    ("1x1 conv chain x64, ANE", "chain64", "apple-m4-max", "ane", "", 0.244 * MS, "1: maderix BENCHMARK_RESULTS"),
    ("1x1 conv chain x128, ANE", "chain128", "apple-m4-max", "ane", "", 0.385 * MS, "1: maderix BENCHMARK_RESULTS"),
]
for n, ane, gpu, cpu in [(512, 1.29, 0.26, 1.21), (1024, 2.88, 1.34, 1.43),
                         (2048, 4.89, 2.69, 1.44), (4096, 5.44, 2.80, 1.50)]:
    CALIBRATION += [
        (f"GEMM {n}, ANE", f"gemm{n}", "apple-m4", "ane", "", gemm_seconds(n, ane), "2: ANEForge rooflines"),
        (f"GEMM {n}, GPU", f"gemm{n}", "apple-m4", "gpu", "", gemm_seconds(n, gpu), "2: ANEForge rooflines"),
        (f"GEMM {n}, CPU", f"gemm{n}", "apple-m4", "cpu", "", gemm_seconds(n, cpu), "2: ANEForge rooflines"),
    ]
# The same tool on the M4 Max (ENERGY-FACTS.md: its throughput column).
for n, ane, gpu in [(1024, 5.79, 1.96), (2048, 8.87, 10.6), (4096, 6.68, 11.8)]:
    CALIBRATION += [
        (f"GEMM {n}, ANE, M4 Max", f"gemm{n}", "apple-m4-max", "ane", "", gemm_seconds(n, ane),
         "ENERGY-FACTS: ANEForge M4 Max roofline"),
        (f"GEMM {n}, GPU, M4 Max", f"gemm{n}", "apple-m4-max", "gpu", "", gemm_seconds(n, gpu),
         "ENERGY-FACTS: ANEForge M4 Max roofline"),
    ]
CALIBRATION += [
    ("LLaMA-7B layer fwd seq 512, weights as inputs, ANE", "llama", "apple-m4-max", "ane",
     "weights-as-inputs=true", 3.13 / 32, "2: rustane README"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m4", "ane", "", 0.10 * MS, "1: maderix part 2"),
    ("Stories110M training step, static pipeline, ANE + CPU", "stories110m", "apple-m4", "optimal", "",
     106.7 * MS, "maderix/ANE training/README.md: train_large 106.7 ms/step (M4)"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m1", "ane", "", 0.21 * MS, "1: ANEForge / ane-guide"),
]

# Published orderings: (faster row label, slower row label)
COMPARISONS = [
    ("MobileNetV1-224, ANE", "MobileNetV1-224, GPU"),
    # Published on two devices of one ANE generation (M1 and A14): half the
    # FLOPs, yet slower.
    ("MobileNetV1-224, ANE", "MobileNetV2-224, ANE (A14: M1's ANE, half its memory bus)"),
    ("MobileNetV1-224, GPU", "MobileNetV1-224, CPU 4 threads"),
    ("MobileNetV1-224, CPU 4 threads", "MobileNetV1-224, CPU 1 thread"),
] + [(f"GEMM {n}, ANE", f"GEMM {n}, GPU") for n in (512, 1024, 2048, 4096)] \
  + [(f"GEMM {n}, CPU", f"GEMM {n}, GPU") for n in (512, 1024)] \
  + [(f"GEMM {n}, GPU", f"GEMM {n}, CPU") for n in (2048, 4096)] \
  + [(f"GEMM {n}, ANE", f"GEMM {n}, CPU") for n in (512, 1024, 2048, 4096)] \
  + [("GEMM 1024, ANE, M4 Max", "GEMM 1024, GPU, M4 Max")] \
  + [(f"GEMM {n}, GPU, M4 Max", f"GEMM {n}, ANE, M4 Max") for n in (2048, 4096)]

# ANEForge bench/results/rooflines, device_saturation_sweep: one 3x3
# convolution per program (stride 1, same padding, 64 x 64 maps), channels
# in = out = C at batch B, fp16 on the ANE and the GPU (MPS through MLX).
# (C, B, GPU ms, ANE ms) per machine.
CONV_SWEEP_M4_MAX = [(64, 16, 0.614, 0.942), (128, 16, 1.091, 2.430),
                     (256, 8, 1.576, 3.441), (512, 4, 2.757, 5.407)]
CONV_SWEEP_M4 = [(64, 16, 2.317, 2.292), (128, 16, 4.441, 4.707),
                 (256, 8, 6.312, 5.993), (512, 4, 10.936, 8.142)]
M4_MAX_FILE = "ANEForge roofline-apple-m4-max (Mac16,6): device_saturation_sweep conv"
M4_FILE = "ANEForge roofline-apple-m4 (Mac16,12): device_saturation_sweep conv"


def conv_sweep_rows(sweep, target, name, source):
    rows = []
    for c, batch, gpu, ane in sweep:
        workload = f"conv3x3_c{c}_b{batch}"
        rows += [(f"conv 3x3 C={c} B={batch} 64x64, ANE, {name}", workload, target, "ane", "", ane * MS, source),
                 (f"conv 3x3 C={c} B={batch} 64x64, GPU, {name}", workload, target, "gpu", "", gpu * MS, source)]
    return rows


def conv_sweep_comparisons(sweep, name):
    """The published ordering at every size where the two differ by more
    than 5 % (closer is a tie at the sources' run-to-run spread)."""
    out = []
    for c, batch, gpu, ane in sweep:
        if abs(gpu - ane) <= 0.05 * min(gpu, ane):
            continue
        ane_label = f"conv 3x3 C={c} B={batch} 64x64, ANE, {name}"
        gpu_label = f"conv 3x3 C={c} B={batch} 64x64, GPU, {name}"
        out.append((gpu_label, ane_label) if gpu < ane else (ane_label, gpu_label))
    return out


CALIBRATION += conv_sweep_rows(CONV_SWEEP_M4_MAX, "apple-m4-max", "M4 Max", M4_MAX_FILE)

HELD_OUT = conv_sweep_rows(CONV_SWEEP_M4, "apple-m4", "M4", M4_FILE) + [
    # freedomtan/measure_ane_capacity README (measure_conv_fp16.m): 20
    # chained 3x3 convolutions, 128 channels, 256 x 256, batch 1, fp16
    # constant weights, MPSGraph on the ANE and the GPU, Apple M1.
    ("conv 3x3 x20 chain C=128 256x256, ANE, M1", "conv3x3_chain20_c128_256", "apple-m1", "ane", "",
     35.70 * MS, "freedomtan/measure_ane_capacity README: M1 ANE 10.83 TOPS"),
    ("conv 3x3 x20 chain C=128 256x256, GPU, M1", "conv3x3_chain20_c128_256", "apple-m1", "gpu", "",
     129.10 * MS, "freedomtan/measure_ane_capacity README: M1 GPU 2.99 TOPS"),
]
# Whole networks on the phones as Apple's own tool reports them (issue 36
# item 4; added 2026-12-07, nothing chosen against them): Core ML, fp16,
# batch 1, 224 x 224, compute units `all`, the median of Xcode's
# Performance tab (iOS 17, Xcode 15), from coremltools' docs-guides
# opt-quantization-perf.md ("Latency in ms (per batch) on iPhone 14 Pro |
# iPhone 15 Pro") and opt-palettization-perf.md. Device time as Core ML
# reports it: no image decoding, no Python; docs/validation.md "What a
# prediction means" sets them beside harness-inclusive figures.
XCODE = "coremltools docs-guides opt-quantization-perf.md (Xcode Performance tab, median)"
HELD_OUT += [
    ("ResNet-50-224, Core ML all, A16", "resnet50", "apple-a16", "optimal", "", 1.52 * MS, XCODE),
    ("ResNet-50-224, Core ML all, A17 Pro", "resnet50", "apple-a17-pro", "optimal", "", 1.38 * MS, XCODE),
    ("MobileNetV2-224, Core ML all, A16", "mobilenetv2", "apple-a16", "optimal", "", 0.48 * MS, XCODE),
    ("MobileNetV2-224, Core ML all, A17 Pro", "mobilenetv2", "apple-a17-pro", "optimal", "", 0.49 * MS, XCODE),
    ("MobileNetV3-Small-224, Core ML all, A16", "mobilenetv3small", "apple-a16", "optimal", "", 0.13 * MS,
     "coremltools docs-guides opt-palettization-perf.md (Xcode Performance tab, median)"),
]
COMPARISONS += conv_sweep_comparisons(CONV_SWEEP_M4_MAX, "M4 Max")
HELD_OUT_COMPARISONS = conv_sweep_comparisons(CONV_SWEEP_M4, "M4") + [
    ("conv 3x3 x20 chain C=128 256x256, ANE, M1", "conv 3x3 x20 chain C=128 256x256, GPU, M1")]

# Published power (docs/energy-facts.md): (label, workload, target, strategy,
# published watts of the backend while it runs the workload, source row).
# Throughput the power rows were measured at (TFLOP/s), to price the power
# model alone at the published rate.
MEASURED_RATE = {}
for n, ane, gpu in [(512, 1.29, 0.26), (1024, 2.88, 1.34), (2048, 4.89, 2.69), (4096, 5.44, 2.80)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m4", "ane")] = ane
    MEASURED_RATE[(f"gemm{n}", "apple-m4", "gpu")] = gpu
for n, ane, gpu in [(512, 1.93, None), (1024, 5.79, 1.96), (2048, 8.87, 10.6), (4096, 6.68, 11.8)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m4-max", "ane")] = ane
    MEASURED_RATE[(f"gemm{n}", "apple-m4-max", "gpu")] = gpu
for n, ane in [(512, 0.46), (1024, 1.08), (2048, 2.30), (4096, 3.36)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m2-pro", "ane")] = ane
MEASURED_RATE.update({("gemm2048", "apple-m2-pro", "gpu"): 4.63, ("gemm4096", "apple-m2-pro", "gpu"): 5.02,
                      ("gemm256x4096", "apple-m1", "ane"): 3.59,
                      ("gemm2048", "apple-m4", "cpu"): 1.44, ("gemm2048", "apple-m4-max", "cpu"): 2.0})
ENERGY_ROWS = []
for n, ane, gpu in [(512, 1.49, 5.97), (1024, 2.39, 11.8), (2048, 3.20, 16.4), (4096, 3.64, 17.6)]:
    ENERGY_ROWS += [
        (f"GEMM {n}, ANE power", f"gemm{n}", "apple-m4", "ane", ane, "1: ANEForge M4 roofline"),
        (f"GEMM {n}, GPU power", f"gemm{n}", "apple-m4", "gpu", gpu, "2: ANEForge M4 roofline"),
    ]
ENERGY_ROWS += [("GEMM 2048, CPU power (8.3-9.2 W over N)", "gemm2048", "apple-m4", "cpu", 8.75,
                 "3: ANEForge M4 roofline")]
for n, ane, gpu in [(512, 2.19, None), (1024, 4.15, 24.2), (2048, 6.01, 41.3), (4096, 5.22, 44.3)]:
    ENERGY_ROWS.append((f"GEMM {n}, ANE power", f"gemm{n}", "apple-m4-max", "ane", ane,
                        "1: ANEForge M4 Max roofline"))
    if gpu:
        ENERGY_ROWS.append((f"GEMM {n}, GPU power", f"gemm{n}", "apple-m4-max", "gpu", gpu,
                            "2: ANEForge M4 Max roofline"))
ENERGY_ROWS += [("GEMM 2048, CPU power (6.6-8.2 W over N)", "gemm2048", "apple-m4-max", "cpu", 7.4,
                 "3: ANEForge M4 Max roofline")]
for n, ane in [(512, 1.73), (1024, 1.89), (2048, 1.67), (4096, 2.61)]:
    ENERGY_ROWS.append((f"GEMM {n}, ANE power", f"gemm{n}", "apple-m2-pro", "ane", ane,
                        "1: ANEForge M2 Pro roofline (indicative)"))
ENERGY_ROWS += [
    ("GEMM 2048, GPU power", "gemm2048", "apple-m2-pro", "gpu", 23.0, "2: ANEForge M2 Pro roofline"),
    ("GEMM 4096, GPU power", "gemm4096", "apple-m2-pro", "gpu", 24.5, "2: ANEForge M2 Pro roofline"),
    ("GEMM 256x4096x4096, ANE power", "gemm256x4096", "apple-m1", "ane", 3.11, "1: ANEForge M1 file"),
    ("tiny model, ANE power (dispatch floor)", "tiny", "apple-m1", "ane", 0.83,
     "1: ane-guide ch.10 (0.76-0.9 W)"),
]

