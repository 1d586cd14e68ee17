"""AOTInductor packages: what kernelviz costs around them. Builds a transformer block's package (CPU, or CUDA with
--cuda) without and with a capture around ``aoti_compile_and_package``, then times ``kernelviz.load`` of the
package, its views (text, HTML, notebook payload) and ``bench()``; prints each figure.

    python benchmarks/bench_aoti.py [--cuda] [--width=128]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.views.payload import payload

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_aoti_gpu import Block  # noqa: E402


def _timed(label: str, fn):
    start = time.perf_counter()
    out = fn()
    print(f"{label:<44} {time.perf_counter() - start:8.3f} s")
    return out


def main() -> None:
    device = "cuda" if "--cuda" in sys.argv else "cpu"
    width = next((int(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--width=")), 128)
    torch.manual_seed(0)
    model, x = Block(width).to(device).eval(), torch.randn(4, 64, width, device=device)
    print(f"torch {torch.__version__}, {device}, block of width {width}")
    with tempfile.TemporaryDirectory() as folder, torch.no_grad():
        plain, captured = Path(folder) / "plain.pt2", Path(folder) / "captured.pt2"
        def build():
            return torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=str(plain))

        _timed("a first build (warms headers and caches)", build)
        _timed("export + aoti_compile_and_package", build)

        def in_capture():
            with kernelviz.capture() as cap:
                torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=str(captured))
            return cap

        cap = _timed("the same inside kernelviz.capture()", in_capture)
        graph = cap.graphs[0]
        print(f"  {len(graph.kernels)} kernels, {len(graph.launches)} launches, "
              f"{len(graph.package.constants)} constants, wrapper {len(graph.code) / 1024:.1f} KB")
        loaded = _timed("kernelviz.load(package)", lambda: kernelviz.load(plain))
        _timed("str(capture)", lambda: str(loaded))
        _timed("capture.to_html()", loaded.to_html)
        _timed("notebook payload", lambda: payload(loaded))
        _timed("capture.bench()", lambda: loaded.bench(progress=False))
        g = loaded.graphs[0]
        print(f"  busy {g.gpu_busy_ms:.3f} ms ({g.as_run.unit}), plain run {g.as_run.plain_ms:.3f} ms over "
              f"{g.as_run.runs} runs, gap {g.gap_ms if g.gap_ms is None else f'{g.gap_ms:.3f} ms'}")


if __name__ == "__main__":
    main()
