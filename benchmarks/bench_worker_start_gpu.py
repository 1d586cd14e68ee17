"""What the timing process's start costs, with and without Python's compiled bytecode, and a loaded GPT-2
backward timed at once after ``load()`` where that bytecode is cached.

    python benchmarks/bench_worker_start_gpu.py        # on a CUDA machine with transformers

A timing process imports torch and Inductor, then runs the graph's code (which imports more of Inductor and
loads its Triton kernels). Where torch's site-packages hold no ``.pyc`` files and ``PYTHONDONTWRITEBYTECODE``
is set (the GPU machines' image), every process compiles those sources anew; a pip install compiles them once.
It prints those steps in a new process as the environment is, then with a bytecode cache
(``PYTHONPYCACHEPREFIX``) cold and warm, then ``bench()`` of the backward at once after ``load()`` with that cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.children import child_environment

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import zoo  # noqa: E402 - the tests' workloads

STEPS = r"""
import sys, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
import torch._inductor.async_compile, torch._inductor.runtime.triton_heuristics
t2 = time.perf_counter()
exec(compile(open(sys.argv[1]).read(), "<graph>", "exec"), {"__name__": "graph"})
t3 = time.perf_counter()
print(f"import torch {t1 - t0:.2f} s, Inductor {t2 - t1:.2f} s, the graph's code {t3 - t2:.2f} s, all {t3 - t0:.2f} s")
"""


def main() -> None:
    package = Path(torch.__file__).parent
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE')!r}, .pyc files under torch/_inductor: "
          f"{sum(1 for _ in (package / '_inductor').rglob('*.pyc'))}")
    with kernelviz.capture() as cap:
        zoo.gpt2_training_step()()
    backward = max((g for g in cap.graphs if g.kind == "backward"), key=lambda g: len(g.launches))
    folder = Path(tempfile.mkdtemp(prefix="kernelviz-start-"))
    code = folder / "backward.py"
    code.write_text(backward.code)
    cached = {"PYTHONPYCACHEPREFIX": str(folder / "pyc")}
    for label, extra in (("as the environment is", {}), ("bytecode cache, cold", cached),
                         ("bytecode cache, warm", cached)):
        env = {**child_environment(), **extra}
        if extra:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        done = subprocess.run([sys.executable, "-c", STEPS, str(code)], env=env, capture_output=True, text=True)
        print(f"  a new process, {label}: {done.stdout.strip() or done.stderr.strip()[-300:]}")
    os.environ.update(cached)  # the timing processes inherit it
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for when in ("at once", "at once, again"):
        loaded = kernelviz.load(backward.code)  # starts the timing process: torch sees a GPU here
        start = time.perf_counter()
        loaded.bench(progress=False)
        graph = loaded.graphs[0]
        failed = sum(1 for launch in graph.launches if launch.timing and launch.timing.error)
        print(f"  the backward loaded from its code, bytecode cached, bench() {when} after load(): "
              f"{time.perf_counter() - start:.2f} s ({len(graph.launches)} launches on {graph.timed_on}, "
              f"{failed} failed)")


if __name__ == "__main__":
    main()
