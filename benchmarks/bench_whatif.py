"""What-ifs against the truth: for each model, ``cap.whatif()`` in one process, then each reported patch applied by
hand to the same step in clean processes (kernelviz never imported there), the step timed with and without it in
turns, and a table: model, change, the what-if's saving ± noise, the clean processes' saving ± noise, whether they
agree (within 15%, or within the noise), the numerics verdict, and the what-if's wall time.

    PYTHONPATH=$PWD python benchmarks/bench_whatif.py                 # GPU models and the CPU step
    PYTHONPATH=$PWD python benchmarks/bench_whatif.py --models cpu_train

Models: ``mobilenet`` (torchvision mobilenet_v3_small, batch 8, fp32 inference: launch-bound), ``resnet_train``
(resnet18 + SGD, batch 32, a training step), ``gpt2`` (a 4-layer GPT-2 from transformers' config, no download,
fp32 inference, batch 4 x 128 tokens), ``cpu_train`` (an MLP's training step on the CPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROUNDS = 3  # clean processes per side, in turns
STEPS = 40  # timed steps per clean process (after WARM)
WARM = 5
AGREE = 0.15
GPU_MODELS = ("mobilenet", "resnet_train", "gpt2")


def build(name: str, kind: str | None):
    """The model's step as a user writes it, with the patch of ``kind`` applied by hand (None: as captured)."""
    import torch
    import torch._inductor.config as config

    device = "cpu" if name == "cpu_train" else "cuda"
    torch.manual_seed(0)
    mode = None
    if kind == "cudagraphs":
        mode = "reduce-overhead"
    elif kind == "cpp_wrapper":
        config.cpp_wrapper = True
    elif kind == "tf32":
        torch.set_float32_matmul_precision("high")
    elif kind == "max_autotune":
        config.max_autotune = True
    elif kind == "coordinate_descent":
        config.coordinate_descent_tuning = True
    elif kind == "freezing":
        config.freezing = True
    elif kind == "cpp_gemm_template":
        config.max_autotune = True
        config.max_autotune_gemm_backends = "CPP,ATEN"
    layout = torch.channels_last if kind == "channels_last" else torch.contiguous_format
    if name == "mobilenet":
        import torchvision

        model = torchvision.models.mobilenet_v3_small().to(device).eval().to(memory_format=layout)
        x = torch.randn(8, 3, 224, 224, device=device).to(memory_format=layout)
        compiled = torch.compile(model, mode=mode)

        def step():
            with torch.no_grad():
                return compiled(x)
    elif name == "resnet_train":
        import torchvision

        model = torchvision.models.resnet18().to(device).to(memory_format=layout)
        x = torch.randn(32, 3, 224, 224, device=device).to(memory_format=layout)
        target = torch.randint(0, 1000, (32,), device=device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        compiled = torch.compile(model, mode=mode)

        step = _train_step(compiled, x, target, opt)
    elif name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=8192, n_positions=256)
        model = GPT2LMHeadModel(cfg).to(device).eval()
        ids = torch.randint(0, cfg.vocab_size, (4, 128), device=device)
        compiled = torch.compile(model, mode=mode)

        def step():
            with torch.no_grad():
                return compiled(ids).logits
    else:
        model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                    torch.nn.ReLU(), torch.nn.Linear(512, 10))
        x, target = torch.randn(64, 256), torch.randint(0, 10, (64,))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        compiled = torch.compile(model, mode=mode)

        step = _train_step(compiled, x, target, opt)
    return step, device


def _train_step(compiled, x, target, opt):
    """One SGD step of ``compiled`` on ``x`` against ``target``."""
    import torch

    def step():
        loss = torch.nn.functional.cross_entropy(compiled(x), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def time_steps(step, device: str, n: int) -> list[float]:
    import torch

    out = []
    for _ in range(n):
        if device == "cuda":
            torch.cuda.synchronize()
        began = time.perf_counter()
        step()
        if device == "cuda":
            torch.cuda.synchronize()
        out.append((time.perf_counter() - began) * 1e3)
    return out


def clean(name: str, kind: str) -> None:
    """In a clean process: the step with the patch applied by hand, timed; its ms as JSON on stdout."""
    assert "kernelviz" not in sys.modules
    step, device = build(name, None if kind == "none" else kind)
    time_steps(step, device, WARM)
    print(json.dumps(time_steps(step, device, STEPS)))


def capture(name: str, budget_s: float, out: str) -> None:
    """In its own process: the step captured (timed), then ``cap.whatif()``; the rows written to ``out``."""
    import torch  # noqa: F401 - first: kernelviz imported beside torch keeps each compile's FX graph

    import kernelviz

    step, device = build(name, None)
    with kernelviz.capture():  # the compile seen (a graph from a cache kernelviz did not fill is compiled again)
        step()
    for _ in range(2):
        step()
    with kernelviz.capture(bench=True) as cap:
        step()
    began = time.perf_counter()
    rows = cap.whatif(budget_s=budget_s, progress=False)
    spent = time.perf_counter() - began
    launches = sum(len(g.launches) for g in cap.graphs)
    Path(out).write_text(json.dumps({"rows": [dataclasses.asdict(r) for r in rows],
                                     "seconds": spent, "launches": launches, "graphs": len(cap.graphs)}))


def _run(args: list[str], timeout: float = 1800) -> str:
    env = dict(os.environ)
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
    return done.stdout


def _half_iqr(values: list[float]) -> float:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return (q3 - q1) / 2


def truth(name: str, kind: str) -> tuple[float, float]:
    """The clean processes' saving of ``kind`` (ms) and its noise, sides in turns."""
    base: list[float] = []
    patched: list[float] = []
    for _ in range(ROUNDS):
        base += json.loads(_run(["--clean", name, "none"]).strip().splitlines()[-1])
        patched += json.loads(_run(["--clean", name, kind]).strip().splitlines()[-1])
    return statistics.median(base) - statistics.median(patched), _half_iqr(base) + _half_iqr(patched)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join((*GPU_MODELS, "cpu_train")))
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--clean", nargs=2, metavar=("MODEL", "KIND"))
    parser.add_argument("--capture", nargs=2, metavar=("MODEL", "OUT"))
    args = parser.parse_args()
    if args.clean:
        return clean(*args.clean)
    if args.capture:
        return capture(args.capture[0], args.budget, args.capture[1])
    print(f"{'model':<13} {'change':<20} {'what-if saving':>18} {'clean saving':>18} {'agree?':>7} numerics")
    for name in args.models.split(","):
        out = Path(f"/tmp/kernelviz_whatif_{name}.json")
        try:
            _run(["--capture", name, str(out), "--budget", str(args.budget)])
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"{name:<13} capture failed: {exc}")
            continue
        found = json.loads(out.read_text())
        print(f"{name:<13} whatif(): {found['seconds']:.1f} s for {found['graphs']} graphs, {found['launches']} "
              f"launches (budget {args.budget:g} s)")
        for row in found["rows"]:
            if row.get("after_ms") is None:
                print(f"{'':<13} {row['kind']:<20} {row.get('reason') or ''}"[:160])
                continue
            saving = row["before_ms"] - row["after_ms"]
            noise = (row.get("before_noise_ms") or 0) + (row.get("after_noise_ms") or 0)
            try:
                real, real_noise = truth(name, row["kind"])
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                print(f"{'':<13} {row['kind']:<20} {saving:>9.3f} ± {noise:<6.3f} clean run failed: {exc}"[:160])
                continue
            agree = abs(saving - real) <= AGREE * abs(real) or abs(saving - real) <= noise + real_noise
            print(f"{'':<13} {row['kind']:<20} {saving:>9.3f} ± {noise:<6.3f} {real:>9.3f} ± {real_noise:<6.3f} "
                  f"{'yes' if agree else 'NO':>7} {row['verdict']} (max rel {row.get('max_rel_diff') or 0:.1e}, "
                  f"compile {row.get('compile_s') or 0:.1f} s)")


if __name__ == "__main__":
    main()
