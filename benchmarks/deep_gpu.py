"""Deep-inspection figures on a GPU: the repro scripts of every kernel and graph of the mlp, norms,
training-step and resnet18 workloads (how many run and match), the size of a resnet18 capture's JSON
with and without the compiled stages, and what reading the stages costs.

    python benchmarks/deep_gpu.py [OUT_DIR [WORKLOAD...]]     # on a CUDA machine with torchvision

Writes every repro script and its output under OUT_DIR (default: a temporary folder).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
import torch.nn.functional as F

import kernelviz
from kernelviz.ir import read_stages
from kernelviz.repro import ReproError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import zoo  # noqa: E402


def mlp():
    model, x = zoo.make_mlp("cuda"), torch.randn(4096, 32, device="cuda")
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(model)(x)
    return cap


def norms_fn(x, w, b, img, mean, var, gw, gb):
    return (zoo.layer_norm_relu(x, w, b), F.batch_norm(img, mean, var, gw, gb, training=False),
            F.group_norm(img, 8, gw, gb), F.rms_norm(x, (x.shape[-1],), w))


def norms():
    x, w, b = (torch.randn(4096, 256, device="cuda"), torch.randn(256, device="cuda"), torch.randn(256, device="cuda"))
    img = torch.randn(32, 64, 28, 28, device="cuda")
    stats = [torch.randn(64, device="cuda").abs() + 0.5 for _ in range(4)]
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(norms_fn)(x, w, b, img, *stats)
    return cap


def training_step():
    model = zoo.make_mlp("cuda")
    x, target = torch.randn(256, 32, device="cuda"), torch.randint(0, 32, (256,), device="cuda")
    with kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(zoo.training_step)(model, x, target)
    return cap


def resnet18():
    torchvision = kernelviz.needs("torchvision", "vision", "benchmarks/deep_gpu.py")

    model = torchvision.models.resnet18().eval().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(model)(x)
    return cap


def run_script(path: Path) -> tuple[str, int, str]:
    try:
        done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return path.stem, -1, "timed out after 240 s"
    path.with_suffix(".log").write_text(done.stdout + done.stderr)
    last = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or [""])[-1]
    return path.stem, done.returncode, last


def repros(name: str, cap, out: Path) -> tuple[int, int]:
    """Write every repro of ``cap`` under ``out/name`` and run them; return (passed, total)."""
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    scripts, missing = [], []
    for g, graph in enumerate(cap.graphs):
        items = [(f"g{g}_{k.name}", k.to_repro) for k in graph.kernels] + [(f"g{g}_call", graph.to_repro)]
        for stem, make in items:
            try:
                path = folder / f"{stem}.py"
                path.write_text(make())
                scripts.append(path)
            except ReproError as exc:
                missing.append(f"{stem}: {exc}")
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(run_script, scripts))
    passed = sum(1 for _, rc, _ in results if rc == 0)
    kernels = sum(1 for path in scripts if not path.stem.endswith("_call"))
    print(f"{name}: {passed}/{len(scripts)} repro scripts ran and matched ({kernels} kernels, "
          f"{len(scripts) - kernels} graphs); {len(missing)} without a repro")
    for stem, rc, last in results:
        print(f"  {'ok' if rc == 0 else f'FAIL({rc})'} {stem}: {last[:200]}")
    for line in missing:
        print(f"  no repro: {line}")
    for graph in cap.graphs:
        for warning in graph.warnings:
            print(f"  warning {graph.id}: {warning}")
    return passed, len(scripts)


def stage_cost(cap) -> float:
    """Seconds to read every graph's stages again (what a capture's build spends on them)."""
    start = time.perf_counter()
    for graph in cap.graphs:
        run = graph._run
        read_stages(graph, run.compiled() if run is not None and run.compiled is not None else None)
    return time.perf_counter() - start


def sizes(cap) -> None:
    whole = len(cap.to_json().encode())
    stripped = kernelviz.Capture.from_json(cap.to_json())
    for kernel in stripped.kernels:
        kernel.ir = None
    without = len(stripped.to_json().encode())
    stage_bytes = sum(s.bytes for k in cap.kernels if k.ir for s in k.ir.stages)
    kept = sum(len(s.text.encode()) for k in cap.kernels if k.ir for s in k.ir.stages)
    truncated = sum(1 for k in cap.kernels if k.ir for s in k.ir.stages if s.truncated_bytes)
    print(f"resnet18 capture JSON: {whole / 1024:.0f} KB with the stages, {without / 1024:.0f} KB without "
          f"({len(cap.kernels)} kernels; stages {stage_bytes / 1024:.0f} KB as compiled, {kept / 1024:.0f} KB kept, "
          f"{truncated} stages truncated at the cap)")
    try:
        from kernelviz.views.payload import payload

        static = len(json.dumps(payload(cap)).encode())
        live = len(json.dumps(payload(cap, per_kernel=False)).encode())
        print(f"resnet18 MIME payload: saved (static) {static / 1024:.0f} KB, live widget {live / 1024:.0f} KB")
    except ImportError as exc:
        print(f"payload size not measured: {exc}")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="kernelviz-deep-"))
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}; scripts under {out}")
    total_pass = total = 0
    workloads = {"mlp": mlp, "norms": norms, "training_step": training_step, "resnet18": resnet18}
    for name, workload in ((n, workloads[n]) for n in (sys.argv[2:] or workloads)):
        torch._dynamo.reset()
        start = time.perf_counter()
        cap = workload()
        tools = sorted({s.tool for k in cap.kernels if k.ir for s in k.ir.stages if s.name == "sass"})
        print(f"{name}: captured and timed in {time.perf_counter() - start:.1f} s; reading the stages again took "
              f"{stage_cost(cap):.2f} s for {sum(1 for k in cap.kernels if k.ir)} Triton kernels (SASS by {tools})")
        passed, count = repros(name, cap, out)
        total_pass, total = total_pass + passed, total + count
        if name == "resnet18":
            sizes(cap)
        if name == "mlp":
            (out / "mlp_capture.json").write_text(cap.to_json())
    print(f"all workloads: {total_pass}/{total} repro scripts ran and matched")


if __name__ == "__main__":
    main()
