"""kernelviz's figures against the same step measured outside kernelviz, each side in a process of its own.

    python benchmarks/bench_truth.py                    # every model this machine can run (GPU ones need CUDA)
    python benchmarks/bench_truth.py --models cpu_mlp --rounds 3
    python benchmarks/bench_truth.py --root ../old-checkout          # the same with another kernelviz

For each model, interleaved over ``--rounds`` rounds, fresh processes that share one Inductor cache:

- ``clean``: never imports kernelviz; the compiled step timed by wall clock (``step(); synchronize``), median of
  ``--calls`` calls after a warm-up;
- ``change``: the same, with the change the findings suggest applied by hand (GPU: ``mode="reduce-overhead"``, or
  for ``skip_mlp``, whose CUDA graph reduce-overhead skips, the skip's cause removed; CPU:
  ``torch._inductor.config.cpp_wrapper = True``);
- ``import``: imports kernelviz, then times the step as ``clean`` does (importing must cost nothing);
- ``kernelviz``: one ``kernelviz.capture(bench=True)`` around four steps; its graphs' as-run figures and the savings its
  findings predict; then the step timed again as ``clean`` does, 1, 3, 8 and 16 s after the capture's work is done
  (its timing and stages: the session as it was found; the table's row is at 3 s).

The table compares: the sum of the graphs' plain ``call()`` with the clean step (a step holds more than its graphs:
dynamo's guards, autograd between a forward and its backward; the row says which); each predicted saving (rules
``launch-bound``, ``cudagraph-skip``, ``wrapper-overhead``) with clean - change; the step after a capture, and after
an import, with the clean step. A row holds when it is within its tolerance (10% for the figures, 25% for savings,
5% for the session, which may run faster, never slower) or within the spread of the interleaved processes (max - min
over the rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAVING_RULES = ("launch-bound", "cudagraph-skip", "wrapper-overhead")
STEPS_CAPTURED = 4  # steps in the capture block (the in-step time needs 3 warm calls: recorder.runs.STEP_CALLS)
AFTER_S = (1, 3, 8, 16)  # seconds after the capture's exit at which the step is timed again (the table: 3 s)


# The models: each returns (step, change) where step() runs one compiled step; change: how the change is applied
def mobilenet(change: bool):
    """torchvision mobilenet_v3_small, inference, batch 8, fp32: a launch-bound step."""
    import torch
    import torchvision

    model = torchvision.models.mobilenet_v3_small().cuda().eval()
    x = torch.randn(8, 3, 224, 224, device="cuda")
    compiled = torch.compile(model, mode="reduce-overhead" if change else None)

    def step():
        with torch.no_grad():
            return compiled(x)
    return step


def gpt_train(change: bool):
    """A 4-layer pre-norm transformer (d 256, 4 heads, seq 128, batch 8) training step, fp32, SGD, forward and
    backward compiled: a launch-bound training step."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True, norm_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False),
                                torch.nn.Linear(256, 512)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(8, 128, 256, device="cuda")
    y = torch.randint(0, 512, (8, 128), device="cuda")
    compiled = torch.compile(model, mode="reduce-overhead" if change else None)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(compiled(x).flatten(0, 1), y.flatten())
        loss.backward()
        opt.step()
        return loss
    return step


def skip_mlp(change: bool):
    """An 8-layer MLP (width 256, batch 32) inference compiled with mode="reduce-overhead", fp32, that counts its
    calls in place in a GPU tensor it is given: reduce-overhead skips its CUDA graph ("mutated inputs"); the change,
    as the finding's remedy says, counts in a buffer of the module instead (kept in the CUDA graph)."""
    import torch

    torch.manual_seed(0)
    layers = []
    for _ in range(8):
        layers += [torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.GELU()]

    class Counted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = torch.nn.Sequential(*layers)
            self.register_buffer("calls", torch.zeros(()))

        def forward(self, x, calls=None):
            (self.calls if calls is None else calls).add_(1)
            return self.mlp(x)

    model = Counted().cuda().eval()
    x, calls = torch.randn(32, 256, device="cuda"), torch.zeros((), device="cuda")
    compiled = torch.compile(model, mode="reduce-overhead")

    def step():
        with torch.no_grad():
            return compiled(x) if change else compiled(x, calls)
    return step


def cpu_mlp(change: bool):
    """A 6-layer MLP (width 64, batch 16) on the CPU, inference: Python between small C++ kernels."""
    import torch
    import torch._inductor.config as config

    if change:
        config.cpp_wrapper = True
    torch.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(64, 64), torch.nn.LayerNorm(64), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).eval()
    x = torch.randn(16, 64)
    compiled = torch.compile(model)

    def step():
        with torch.no_grad():
            return compiled(x)
    return step


MODELS = {"mobilenet": ("cuda", mobilenet), "gpt_train": ("cuda", gpt_train), "skip_mlp": ("cuda", skip_mlp),
          "cpu_mlp": ("cpu", cpu_mlp)}


def _time_steps(step, device: str, calls: int, windows: int = 5) -> float:
    """Median wall ms of ``calls`` steps (each synchronized), after a warm-up, taken in ``windows`` windows 0.3 s
    apart: a launch-bound step's time in one quiet process moves between levels for seconds at a time."""
    import torch

    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(20):
        step()
    sync()
    times = []
    for window in range(windows):
        if window:
            time.sleep(0.3)
        for _ in range(max(1, calls // windows)):
            start = time.perf_counter()
            step()
            sync()
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def role(name: str, kind: str, calls: int) -> dict:
    """One measurement, in this (fresh) process."""
    device, make = MODELS[name]
    if kind == "import":
        import kernelviz  # noqa: F401
    step = make(kind == "change")
    if kind != "kernelviz":
        return {"step_ms": _time_steps(step, device, calls)}
    import kernelviz

    for _ in range(3):  # compiled and warm before the capture, as a user's second step
        step()
    with kernelviz.capture(bench=True) as cap:  # a user's loop: the step's own call() time needs 3 warm calls
        for _ in range(STEPS_CAPTURED):
            step()
    getattr(cap, "wait_timing", lambda: cap)()  # as the panel at the cell's end (a timing after the exit)
    cap.wait_stages()
    left = time.perf_counter()  # the capture's work done
    graphs = [g for g in cap.graphs if g.as_run is not None]
    found = {}
    for finding in cap.findings:
        if finding.rule in SAVING_RULES and finding.ms is not None:
            found[finding.rule] = found.get(finding.rule, 0.0) + finding.ms
    after = {}
    for at in AFTER_S:  # the step timed as a user's next cells come, the capture's work done or not
        time.sleep(max(0.0, left + at - time.perf_counter()))
        after[at] = _time_steps(step, device, calls)
    return {"plain_ms": sum(g.as_run.plain_ms for g in graphs), "graphs": [g.id for g in graphs],
            "timed_on": sorted({g.timed_on or "-" for g in cap.graphs}),
            "launch_cpu_ms": sum(g.as_run.launch_cpu_ms or 0.0 for g in graphs),
            "in_step_ms": [g.in_step_ms for g in graphs], "replay_ms": [g.as_run.replay_ms for g in graphs],
            "walls": [run.walls for _, run in cap.session.runs], "busy": cap.busy(),
            "savings": found, "findings": [[f.rule, f.ms] for f in cap.findings if f.rule in SAVING_RULES],
            "warnings": cap.warnings + [f"{g.id}: {w}" for g in cap.graphs for w in g.warnings],
            "after_ms": after[AFTER_S[1]], "after_series": after}


def _spawn(name: str, kind: str, calls: int, env: dict) -> dict:
    done = subprocess.run([sys.executable, __file__, "--role", name, kind, "--calls", str(calls)], env=env,
                          capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"{kind} exited {done.returncode}: {tail[:200]}"}
    return json.loads(lines[-1])


def _holds(measured: float, truth: list[float], tolerance: float, slower_only: bool = False) -> tuple[bool, str]:
    """Whether ``measured`` is within ``tolerance`` of the truth's median or within its spread (``slower_only``: a
    figure that may be lower, as a step after a capture may run faster than the clean one, never slower)."""
    mid = statistics.median(truth)
    spread = max(truth) - min(truth)
    off = measured - mid if slower_only else abs(measured - mid)
    ok = off <= tolerance * abs(mid) or off <= spread
    return ok, f"{(measured - mid) / mid:+.0%}" if mid else "-"


KINDS = ("clean", "change", "import", "kernelviz")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--role", nargs=2, metavar=("MODEL", "KIND"))
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose kernelviz the processes import (an "
                        "older one, to compare)")
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), help="the processes of each round (import: "
                        "the cost of importing kernelviz, the same for every model)")
    parser.add_argument("--out", help="append every process's result to this file (JSON lines) as it comes")
    parser.add_argument("--table", nargs="*", metavar="FILE", help="print the table of results saved by --out")
    args = parser.parse_args()
    if args.role:
        print(json.dumps(role(*args.role, args.calls)), flush=True)
        return 0
    if args.table:
        records = [json.loads(line) for path in args.table for line in Path(path).read_text().splitlines() if line]
        print_table(records, "saved results")
        return 0
    import torch

    names = args.models or [n for n, (device, _) in MODELS.items() if device == "cpu" or torch.cuda.is_available()]
    env = dict(os.environ, PYTHONPATH=args.root, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="truth-inductor-"),
               PYTHONPYCACHEPREFIX=os.environ.get("PYTHONPYCACHEPREFIX", tempfile.gettempdir() + "/truth-pyc"),
               PYTHONWARNINGS="ignore")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    records = []
    for name in names:
        for r in range(args.rounds):
            for kind in args.kinds:
                began = time.perf_counter()
                result = _spawn(name, kind, args.calls, env)
                record = {"model": name, "kind": kind, "round": r, "device": device, "torch": torch.__version__,
                          "calls": args.calls, **result}
                records.append(record)
                if args.out:
                    with open(args.out, "a") as out:
                        out.write(json.dumps(record) + "\n")
                print(f"{name} round {r + 1} {kind}: {result} ({time.perf_counter() - began:.0f} s)", flush=True)
    print_table(records, f"{device}, torch {torch.__version__}, {args.rounds} rounds, median of {args.calls} steps "
                f"each")
    return 0


def print_table(records: list[dict], where: str) -> None:
    """The table: per model, kernelviz's figures beside the clean processes'."""
    rows = []
    for name in dict.fromkeys(r["model"] for r in records):
        results = {k: [r for r in records if r["model"] == name and r["kind"] == k] for k in KINDS}
        rows += _model_rows(name, results)
    print(f"\nkernelviz against clean processes ({where}); ms")
    widths = [12, 40, 14, 10, 7]
    heads = ("model", "figure", "kernelviz", "outside", "off")
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths)) + "  verdict")
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + row[5])


def _model_rows(name: str, results: dict[str, list[dict]]) -> list[tuple]:
    ok = {k: [x for x in v if "error" not in x] for k, v in results.items()}
    if not ok["clean"] or not ok["kernelviz"]:
        return [(name, "-", "-", "-", "-", "could not run: " + "; ".join(
            x["error"] for v in results.values() for x in v if "error" in x)[:300])]
    rows = []
    clean = [x["step_ms"] for x in ok["clean"]]
    change = [x["step_ms"] for x in ok["change"]]
    kv = ok["kernelviz"]
    plain = statistics.median(x["plain_ms"] for x in kv)
    holds, off = _holds(plain, clean, 0.10)
    what = "one graph: the step is its call() and dynamo's guards" if len(kv[0]["graphs"]) == 1 else \
        f"{len(kv[0]['graphs'])} graphs: the step also holds autograd and the optimizer outside them"
    rows.append((name, "plain call(), summed", f"{plain:.3f}", f"{statistics.median(clean):.3f}", off,
                 ("holds" if holds else "MISSES") + f" ({what})"))
    if change:
        truth = [c - statistics.median(change) for c in clean]
        for rule in SAVING_RULES:
            predicted = [x["savings"][rule] for x in kv if rule in x["savings"]]
            if predicted:
                holds, off = _holds(statistics.median(predicted), truth, 0.25)
                rows.append((name, f"saving: {rule}", f"{statistics.median(predicted):.3f}",
                             f"{statistics.median(truth):.3f}", off, "holds" if holds else "MISSES"))
        if not any(r in x["savings"] for x in kv for r in SAVING_RULES):
            rows.append((name, "saving", "none predicted", f"{statistics.median(truth):.3f}", "-",
                         "no finding predicts one"))
    after = statistics.median(x["after_ms"] for x in kv)
    holds, off = _holds(after, clean, 0.05, slower_only=True)
    rows.append((name, "step after a capture", f"{after:.3f}", f"{statistics.median(clean):.3f}", off,
                 "holds" if holds else "MISSES"))
    if ok["import"]:
        imported = statistics.median(x["step_ms"] for x in ok["import"])
        holds, off = _holds(imported, clean, 0.05, slower_only=True)
        rows.append((name, "step after importing", f"{imported:.3f}", f"{statistics.median(clean):.3f}", off,
                     "holds" if holds else "MISSES"))
    rows.append((name, f"clean step (spread {max(clean) - min(clean):.3f} ms over {len(clean)})",
                 f"{statistics.median(clean):.3f}", "", "", f"timed on {', '.join(kv[0]['timed_on'])}"))
    return rows


if __name__ == "__main__":
    sys.exit(main())
