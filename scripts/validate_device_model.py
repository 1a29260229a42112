#!/usr/bin/env python3
"""Validates hwagent's device model against published measurements.

Builds the workloads behind the published figures (device_model_workloads.py),
predicts each with `hwagent-opt --partition-backends` (strategy cpu / ane /
gpu: every region on that backend where legal) and prints predicted vs
published with the ratio per row, then every published "which backend is
faster" comparison and whether the prediction goes the same way round. The
rows come in two sets kept apart (device_model_rows.py, docs/validation.md):
the calibration set the built-in values were chosen against and a held-out
set nothing was chosen against; both are printed, and a summary puts them
side by side with the band.

Run on demand, not a test:

    scripts/validate_device_model.py [--build build] [--markdown]
        [--baseline 'ane.serial_memory=false,gpu.winograd_gain=1']

`--baseline` adds a column predicted with those backend values changed on
every target (the model before a change, when the change is a target
value). Goal (issues 11, 23, 36): every ratio within 0.7-1.4x and every
comparison the same way round. Power rows (issue 20): the backend's
predicted watts while it runs the workload (its programs' joules over their
seconds: the time model and the power model together) against
docs/energy-facts.md, and the power model alone at the published throughput.
The tables in docs/validation.md are this script's --markdown output.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from device_model_rows import (CALIBRATION, COMPARISONS, ENERGY_ROWS,  # noqa: E402
                               HELD_OUT, HELD_OUT_COMPARISONS, MEASURED_RATE)
from device_model_workloads import STORIES_CLASSIFIER, WORKLOADS  # noqa: E402

BAND = (0.7, 1.4)


def target_file(spec, calibrate, tmp):
    """'name' or 'name:backend.key=value,...' (a built-in target, printed by
    hwagent-calibrate --print-target, with backend values changed: e.g.
    'apple-m1:cpu.threads=1')."""
    if ":" not in spec:
        return spec
    name, overrides = spec.split(":", 1)
    path = os.path.join(tmp, name + "-" + overrides.replace("=", "").replace(",", "-") + ".json")
    if not os.path.exists(path):
        text = subprocess.run([calibrate, "--print-target", name], check=True,
                              capture_output=True, text=True).stdout
        target = json.loads(text)
        target["name"] = os.path.basename(path)[:-5]
        for override in overrides.split(","):
            key, value = override.split("=")
            backend, field = key.split(".")
            for b in target["backends"]:
                if b["backend"] == backend:
                    b[field] = json.loads(value)
        with open(path, "w") as f:
            json.dump(target, f)
    return path


def partition(opt, calibrate, tmp, workload, options):
    """Partitions `workload` (written once into `tmp`) with the
    partition-backends `options` (a 'target=name:overrides' is resolved to
    a file) and returns its function's report."""
    src = os.path.join(tmp, workload + ".mlir")
    if not os.path.exists(src):
        with open(src, "w") as f:
            f.write(WORKLOADS[workload]())
    report = os.path.join(tmp, "report.json")
    subprocess.run([opt, src, f"--partition-backends={options} report={report}",
                    "-o", os.devnull], check=True, capture_output=True, text=True)
    with open(report) as f:
        return json.load(f)["functions"][0]


def target_value(calibrate, target, backend, key):
    """A value of a built-in target as hwagent-calibrate prints it."""
    if target not in _PRINTED_TARGETS:
        _PRINTED_TARGETS[target] = json.loads(subprocess.run(
            [calibrate, "--print-target", target], check=True,
            capture_output=True, text=True).stdout)
    for b in _PRINTED_TARGETS[target]["backends"]:
        if b["backend"] == backend:
            return b[key]
    return None


def stories_step(opt, calibrate, tmp, target, extra):
    """A Stories110M training step as the static pipeline runs it (maderix
    train_large): 12 layers partitioned over the CPU and the ANE with the
    weights baked into the ANE programs and taken anew once per 10-step
    update; the classifier's three GEMMs and Adam (7 passes over the 109.5M
    f32 parameters, once per update) on the CPU."""
    spec = target_file(target, calibrate, tmp)
    layer = partition(opt, calibrate, tmp, "stories_layer",
                      f"target={spec} strategy=optimal backends=cpu,ane "
                      f"training=true update-every=10 {extra}")
    seconds = 12 * layer["step_time"]["optimal"]
    for m, k, n in STORIES_CLASSIFIER:
        seconds += predict(opt, calibrate, tmp, f"gemm{m}x{k}x{n}", target, "cpu", "")
    bandwidth = target_value(calibrate, target.split(":")[0], "cpu", "bandwidth")
    return seconds + 7 * 4 * 109.53e6 / bandwidth / 10


def predict(opt, calibrate, tmp, workload, target, strategy, extra):
    """The predicted step time, or for per-program microbenchmarks (their
    operands already on the device, fp16 for the ANE) the programs' time
    without the host boundaries."""
    if workload == "stories110m":
        return stories_step(opt, calibrate, tmp, target, extra)
    fn = partition(opt, calibrate, tmp, workload,
                   f"target={target_file(target, calibrate, tmp)} strategy={strategy} {extra}")
    if workload.startswith(("gemm", "chain", "conv3x3")):
        return fn["program_time"]
    return fn["step_time"][strategy]


ROUTING_WORKLOADS = [("MobileNetV1-224", "mobilenet"), ("MobileNetV2-224", "mobilenetv2"),
                     ("MobileNetV3-Small-224", "mobilenetv3small"), ("ResNet-18-224", "resnet18"),
                     ("ResNet-50-224", "resnet50"), ("SqueezeNet-1.1-224", "squeezenet"),
                     ("EfficientNet-B0-224", "efficientnetb0")]
ROUTING_TARGETS = ["apple-m1", "apple-m2-pro", "apple-m4", "apple-m4-max"]


def routing(opt, calibrate, tmp):
    """Where the optimal placement puts each whole CNN (inference, batch 1)
    on every built-in Apple target, and the step time per strategy."""
    rows = []
    for label, workload in ROUTING_WORKLOADS:
        for target in ROUTING_TARGETS:
            fn = partition(opt, calibrate, tmp, workload, f"target={target}")
            counts = {}
            for region in fn["regions"]:
                counts[region["backend"]] = counts.get(region["backend"], 0) + 1
            placement = ", ".join(f"{n} on {b}" for b, n in sorted(counts.items(), key=lambda kv: -kv[1]))
            times = fn["step_time"]
            rows.append((label, target, placement, len(fn["programs"]),
                         times["optimal"], times["cpu"], times["ane"], times["gpu"]))
    return rows


def predict_power(opt, calibrate, tmp, workload, target, strategy):
    """Watts of `strategy`'s backend while it runs the workload: its
    programs' joules (the host's share excluded, as powermetrics reports the
    unit alone) over their seconds."""
    fn = partition(opt, calibrate, tmp, workload,
                   f"target={target_file(target, calibrate, tmp)} strategy={strategy}")
    on = [p for p in fn["programs"] if p["backend"] == strategy]
    return sum(p["joules"] for p in on) / sum(p["seconds"] for p in on)


def power_at(calibrate, target, strategy, tflops):
    """The power model alone: the backend's active power plus its energy per
    FLOP at the published throughput (None without one)."""
    if tflops is None:
        return None
    active = target_value(calibrate, target, strategy, "active_power")
    if active is None:
        return None
    return active + target_value(calibrate, target, strategy, "energy_per_flop") * tflops * 1e12


_PRINTED_TARGETS = {}


def with_baseline(target, baseline):
    """`target` with the `baseline` overrides ('backend.key=value,...')
    added to its own."""
    if not baseline:
        return target
    return target + ("," if ":" in target else ":") + baseline


def predict_rows(opt, calibrate, rows, baseline):
    """(label, target, predicted, published, ratio, in band, source,
    predicted with the baseline or None) per row."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, workload, target, strategy, extra, published, source in rows:
            p = predict(opt, calibrate, tmp, workload, target, strategy, extra)
            before = None
            if baseline:
                before = predict(opt, calibrate, tmp, workload, with_baseline(target, baseline),
                                 strategy, extra)
            ratio = p / published
            out.append((label, target.replace(":", " "), p, published, ratio,
                        BAND[0] <= ratio <= BAND[1], source, before))
    return out


def predict_power_rows(opt, calibrate):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, workload, target, strategy, published, source in ENERGY_ROWS:
            p = predict_power(opt, calibrate, tmp, workload, target, strategy)
            alone = power_at(calibrate, target, strategy,
                             MEASURED_RATE.get((workload, target, strategy)))
            ratio = p / published
            out.append((label, target, p, published, ratio, BAND[0] <= ratio <= BAND[1], source, alone))
    return out


def compare(rows, comparisons, column=2):
    """Per published ordering, whether the prediction (or with column=7
    the baseline's) goes the same way round."""
    predicted = {row[0]: row[column] for row in rows}
    return [(faster, slower, predicted[faster] < predicted[slower]) for faster, slower in comparisons]


def yes(ok):
    return "yes" if ok else "**no**"


def print_rows(title, rows, comparisons, markdown, baseline):
    if markdown:
        before = " predicted before |" if baseline else ""
        print(f"| {title} | target |{before} predicted | published | ratio | in 0.7-1.4 | source |")
        print("|---|---|" + ("---|" if baseline else "") + "---|---|---|---|---|")
        for label, target, p, pub, ratio, ok, source, prior in rows:
            cell = f" {prior * 1e3:.3f} ms ({prior / pub:.2f}) |" if baseline else ""
            print(f"| {label} | {target} |{cell} {p * 1e3:.3f} ms | {pub * 1e3:.3f} ms | {ratio:.2f} | {yes(ok)} | {source} |")
        print()
        print("| published: faster | than | predicted the same way round |")
        print("|---|---|---|")
        for faster, slower, same in comparisons:
            print(f"| {faster} | {slower} | {yes(same)} |")
        print()
        return
    print(f"{title:52} {'target':22} {'predicted':>11} {'published':>11} {'ratio':>6}" +
          ("  before" if baseline else ""))
    for label, target, p, pub, ratio, ok, source, prior in rows:
        cell = f"  {prior / pub:6.2f}" if baseline else ""
        print(f"{label:52} {target:22} {p * 1e3:9.3f}ms {pub * 1e3:9.3f}ms {ratio:6.2f}{cell}"
              f"{'' if ok else '  OUT OF BAND'}")
    for faster, slower, same in comparisons:
        print(f"{'ok   ' if same else 'WRONG'} {faster} < {slower}")
    print()


def print_power(rows, markdown):
    if markdown:
        print("| power row | target | predicted | published | ratio | in 0.7-1.4 | at the published rate | source (docs/energy-facts.md section: row) |")
        print("|---|---|---|---|---|---|---|---|")
        for label, target, p, pub, ratio, ok, source, alone in rows:
            at = f"{alone:.2f} W ({alone / pub:.2f})" if alone is not None else "-"
            print(f"| {label} | {target} | {p:.2f} W | {pub:.2f} W | {ratio:.2f} | {yes(ok)} | {at} | {source} |")
        print()
        return
    print(f"{'power row':52} {'target':22} {'predicted':>10} {'published':>10} {'ratio':>6} {'at the published rate':>22}")
    for label, target, p, pub, ratio, ok, source, alone in rows:
        at = f"{alone:8.2f} W ({alone / pub:.2f})" if alone is not None else ""
        print(f"{label:52} {target:22} {p:8.2f} W {pub:8.2f} W {ratio:6.2f} {at:>22}{'' if ok else '  OUT OF BAND'}")
    print()


def summary_line(name, rows, comparisons, ratio_of=lambda row: row[4]):
    ratios = [ratio_of(row) for row in rows]
    inside = sum(BAND[0] <= r <= BAND[1] for r in ratios)
    worst = max(ratios, key=lambda r: max(r, 1 / r))
    agree = f"{sum(c[2] for c in comparisons)}/{len(comparisons)}" if comparisons is not None else "-"
    return (f"| {name} | {len(rows)} | {inside}/{len(rows)} | {statistics.median(ratios):.2f} | "
            f"{min(ratios):.2f}-{max(ratios):.2f} | {worst:.2f} | {agree} |")


def print_summary(calibration, held_out, calib_cmp, held_cmp, power, baseline):
    print(f"| set | rows | within {BAND[0]}-{BAND[1]}x | median ratio | range | worst | orderings |")
    print("|---|---|---|---|---|---|---|")
    def before(row):
        return row[7] / row[3]
    if baseline:
        print(summary_line("calibration, before", calibration,
                           compare(calibration, COMPARISONS, 7), before))
    print(summary_line("calibration", calibration, calib_cmp))
    if baseline:
        print(summary_line("held out, before", held_out,
                           compare(held_out, HELD_OUT_COMPARISONS, 7), before))
    print(summary_line("held out", held_out, held_cmp))
    print(summary_line("power (calibration, modelled)", power, None))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--baseline", default="",
                        help="backend values changed on every target for a 'before' column")
    parser.add_argument("--routing", action="store_true",
                        help="print where whole CNNs go on every target instead")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "hwagent-opt")
    calibrate = os.path.join(args.build, "bin", "hwagent-calibrate")
    if args.routing:
        print_routing(opt, calibrate)
        return 0
    calibration = predict_rows(opt, calibrate, CALIBRATION, args.baseline)
    held_out = predict_rows(opt, calibrate, HELD_OUT, args.baseline)
    power = predict_power_rows(opt, calibrate)
    calib_cmp = compare(calibration, COMPARISONS)
    held_cmp = compare(held_out, HELD_OUT_COMPARISONS)
    print_rows("calibration row", calibration, calib_cmp, args.markdown, args.baseline)
    print_rows("held-out row", held_out, held_cmp, args.markdown, args.baseline)
    print_power(power, args.markdown)
    print_summary(calibration, held_out, calib_cmp, held_cmp, power, args.baseline)
    print("\nEvery ANE and GPU time is a prediction of the simulated device model.")
    return 0


def print_routing(opt, calibrate):
    with tempfile.TemporaryDirectory() as tmp:
        print("| network | target | optimal placement | programs | optimal | cpu | ane | gpu |")
        print("|---|---|---|---|---|---|---|---|")
        for label, target, placement, programs, *times in routing(opt, calibrate, tmp):
            cells = " | ".join(f"{t * 1e3:.3f} ms" for t in times)
            print(f"| {label} | {target} | {placement} | {programs} | {cells} |")
    print("\nAll ANE and GPU times are predictions of the simulated device model.")


if __name__ == "__main__":
    sys.exit(main())
