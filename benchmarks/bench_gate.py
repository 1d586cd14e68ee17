"""The gate's noise and what it catches.

In one process (the default): false alarms over pairs of captures of one unchanged step, and detections of a
planted slowdown of one kernel (tests/gate_steps.py: 20% more sin · mul in the one fused kernel). Both sides are
of one process, so the check assumes the noise between processes (8% of a CPU time, 3% of a GPU time) and sees
only changes above about 34% on the CPU, 13% on a GPU.

    python benchmarks/bench_gate.py [--pairs 20] [--repeat 3] [--slower 5%] [--device cpu]

As CI sees it (``--processes``): every capture is its own process (tests/gate_models.py), a baseline is
``--baseline`` of them merged as ``--kernelviz-update`` merges them, and each current capture one more process.
With ``--pairs N``, N + baseline unchanged processes give N unchanged pairs (pair i: the baseline of processes
i .. i + baseline - 1 against process i + baseline), and ``--catches`` processes of each code change are checked
against the first baseline: ``slow`` (the activation's kernel about 20% slower; its measured slowdown and share
of the step are printed), ``added`` (a launch added) and ``unfused`` (a fusion lost), each counted caught only
where a reason names it. Prints progress per process, then per model the false alarms, the catches, the smallest
change the check could see (the median over the unchanged pairs) and every wrong verdict's reasons.

    python benchmarks/bench_gate.py --processes [--models transformer,cnn] [--pairs 5] [--catches 2]
    python benchmarks/bench_gate.py --processes --device cuda [--models resnet18,gpt2] [--pairs 5]
    python benchmarks/bench_gate.py --processes --device cuda --gpus 8     # 8 processes at a time, a GPU each
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from gate_steps import GPU_CHAINS, pairs  # noqa: E402

CHANGES = ("slow", "added", "unfused")


def _names(change: str, reason, verdict) -> bool:
    """Whether a reason names the change: the slowed kernel (the launch of a kernel whose name holds sin, failed
    alone or named as the explanation of a step or graph), the added launch, the lost fusion (where the diff pairs
    the unfused kernel as changed, not split, its other part is an added launch: the checks that named it are
    printed)."""
    if change == "added":
        return reason.check == "added launches"
    if change == "unfused":
        return reason.check in ("lost fusion", "added launches")
    slowed = [(g.id, f"#{x.index} ") for g in verdict.diff.b.graphs for x in g.launches
              if x.kernel_name and "sin" in x.kernel_name]
    return any(reason.graph in ("", graph) and (reason.launch.startswith(i) or f"launch {i}" in reason.change)
               for graph, i in slowed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="timed captures behind each side (the fixture's)")
    parser.add_argument("--slower", default="5%")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--processes", action="store_true", help="every capture its own process (as CI sees it)")
    parser.add_argument("--models", help="with --processes: cpu: transformer,cnn; cuda: resnet18,gpt2")
    parser.add_argument("--baseline", type=int, default=3, help="with --processes: processes behind a baseline")
    parser.add_argument("--catches", type=int, default=2, help="with --processes: processes of each code change")
    parser.add_argument("--gpus", type=int, default=1, help="with --processes: this many processes at a time, each "
                        "on a GPU of its own (baseline and current then come from different GPUs of one kind, as "
                        "from CI's machines)")
    parser.add_argument("--keep", metavar="DIR", help="with --processes: keep every capture in DIR")
    parser.add_argument("--chain", metavar="BASE,SLOW", help="with --processes: sin · mul pairs in the slowed "
                        "kernel, unchanged and slowed (default: tests/gate_models.py's CHAINS)")
    args = parser.parse_args()
    if args.processes:
        by_process(args)
    else:
        in_process(args)


def in_process(args) -> None:
    import torch

    torch.set_num_threads(1)  # see tests/test_gate.py: one thread per kernel on a 2-core machine others share
    gpu = {"chains": GPU_CHAINS, "rows": 2048, "cols": 2048} if args.device.startswith("cuda") else {}
    started = time.perf_counter()
    counts = pairs(args.pairs, args.repeat, args.slower, args.device, **gpu)
    print(f"{args.pairs} pairs, repeat {args.repeat}, threshold {args.slower}, {args.device}: "
          f"false alarms {counts.false_alarms}/{counts.pairs}, planted slowdown detected {counts.detected}/"
          f"{counts.pairs} (the kernel measured {100 * (counts.slowdown - 1):+.1f}% slower, median), "
          f"{time.perf_counter() - started:.0f} s")
    for line in counts.lines:
        print("  " + line)


def by_process(args) -> None:
    from kernelviz.gate import check

    gpu = args.device.startswith("cuda")
    models = (args.models or ("resnet18,gpt2" if gpu else "transformer,cnn")).split(",")
    runs = [(m, "base") for m in models for _ in range(args.pairs + args.baseline)] + \
        [(m, v) for m in models for v in CHANGES for _ in range(args.catches)]
    started = time.perf_counter()
    made: dict[tuple[str, str], list[str]] = {}
    gpus = max(1, args.gpus)
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as temporary:
        folder = args.keep or temporary
        Path(folder).mkdir(parents=True, exist_ok=True)
        order = _interleaved(runs)
        for first in range(0, len(order), gpus):  # ``gpus`` processes at a time, each on a GPU of its own
            batch = []
            for k, (model, variant) in enumerate(order[first:first + gpus], start=first):
                out = str(Path(folder) / f"{model}-{variant}-{k}.json")
                command = [sys.executable, str(ROOT / "tests" / "gate_models.py"), model, variant, out, "--repeat",
                           "1", "--device", args.device, *(["--chain", args.chain] if args.chain else [])]
                env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(k - first)) if args.gpus > 1 else None
                batch.append((model, variant, out, subprocess.Popen(command, cwd=ROOT, env=env, text=True,
                                                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
            for model, variant, out, proc in batch:
                _, stderr = proc.communicate()
                if proc.returncode:
                    sys.exit(f"{model} {variant}: exit status {proc.returncode}\n{stderr[-2000:]}")
                made.setdefault((model, variant), []).append(out)
            done, spent = min(first + gpus, len(order)), time.perf_counter() - started
            print(f"[{done}/{len(order)}] {', '.join(f'{m} {v}' for m, v, _, _ in batch)}: {spent:.0f} s, about "
                  f"{spent / done * (len(order) - done):.0f} s left", file=sys.stderr, flush=True)
        for model in models:
            _report(model, made, args, check)


def _interleaved(runs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The runs in rounds (a model's base, slow, added, unfused, the next model's ...), so that a drift of the
    machine falls on every kind of run alike."""
    queues: dict[tuple[str, str], int] = {}
    for run in runs:
        queues[run] = queues.get(run, 0) + 1
    out = []
    while queues:
        for run in list(queues):
            out.append(run)
            queues[run] -= 1
            if not queues[run]:
                del queues[run]
    return out


def _report(model: str, made, args, check) -> None:
    """A model's rows: false alarms, catches, the smallest change seen, the slowed kernel's slowdown and share."""
    base, n = made[(model, "base")], args.baseline
    wrong: list[str] = []
    alarms, smallest = 0, []
    for i in range(args.pairs):
        verdict = check(base[i:i + n], base[i + n], slower=args.slower)
        alarms += verdict.failed
        wrong += [f"false alarm: {r.line()}" for r in verdict.reasons]
        smallest += [note for note in verdict.notes if note.startswith("smallest change")]
    caught, by = {}, {}
    for change in CHANGES:
        caught[change], by[change] = 0, set()
        for path in made[(model, change)]:
            verdict = check(base[:n], path, slower=args.slower)
            named = [r.check for r in verdict.reasons if _names(change, r, verdict)]
            caught[change] += bool(named)
            by[change].update(named)
            wrong += [] if named else [f"missed {change}: " + " | ".join(verdict.lines())]
    slowdown, share = _slowdown(base[:n], made[(model, "slow")])
    named = {c: f" (by {', '.join(sorted(by[c]))})" if by[c] else "" for c in CHANGES}
    print(f"{model} ({args.device}, baseline of {n} processes, threshold {args.slower}): false alarms {alarms}/"
          f"{args.pairs}; caught and named: slower kernel {caught['slow']}/{args.catches}{named['slow']} (measured "
          f"{slowdown}, {share} of the step), added launch {caught['added']}/{args.catches}, lost fusion "
          f"{caught['unfused']}/{args.catches}{named['unfused']}")
    if smallest:
        print(f"  {smallest[len(smallest) // 2]}")
    for line in wrong:
        print(f"  {line[:400]}")


def _slowdown(base: list[str], slow: list[str]) -> tuple[str, str]:
    """The slowed kernel's median time, slowed over unchanged, and its share of the unchanged step."""
    import kernelviz

    def kernel_ms(path: str) -> tuple[float, float]:
        capture = kernelviz.load(path)
        ms = step = 0.0
        for graph in capture.graphs:
            step += graph.as_run.plain_ms if graph.as_run else 0.0
            for launch in graph.launches:
                if launch.kernel_name and "sin" in launch.kernel_name and launch.timing:
                    kernel = graph.kernel(launch.kernel_name)
                    cpu = launch.timing.unit == "cpu"
                    ms += (kernel.timing.isolated_ms if cpu and kernel.timing else launch.timing.in_graph_ms) or 0.0
        return ms, step

    a, b = [kernel_ms(p) for p in base], [kernel_ms(p) for p in slow]
    ka, kb, step = (statistics.median(x[0] for x in a), statistics.median(x[0] for x in b),
                    statistics.median(x[1] for x in a))
    if not ka or not step:
        return "not found", "?"
    return f"{100 * (kb / ka - 1):+.0f}%", f"{100 * ka / step:.0f}%"


if __name__ == "__main__":
    main()
