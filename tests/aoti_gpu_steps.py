"""The steps of tests/test_aoti_gpu.py one at a time, each in a process of its own, to find which one kills the
process where the test dies without a word (run on the GPU machine):

    python tests/aoti_gpu_steps.py OUT_DIR [STEP ...]

Each step prints ``step <name>: rc=<code>`` and its output's tail (``-X faulthandler``: the Python stack of a fault);
``OUT_DIR/<name>.txt`` holds its whole output. Steps: ``package`` (compile and package under kernelviz.capture()),
``reload_in_capturing_process`` (the same, then torch's own loader run in that process: where torch 2.11 faulted),
``torch_runner`` (torch's loader and a run in a fresh process), ``plain_package`` and ``plain_runner`` (the same
without kernelviz), ``replay`` (the package's run captured into a CUDA
graph and replayed, loaded single-threaded), ``load_show`` (kernelviz.load, text, HTML), ``bench`` (cap.bench()),
``jit_diff`` (the JIT capture of the model, timed, diffed against the package)."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]


def _model():
    from test_aoti_gpu import Block

    torch.manual_seed(0)
    return Block().cuda().eval(), torch.randn(4, 64, 128, device="cuda")


def _package(out: Path, captured: bool = True) -> str:
    import contextlib

    import kernelviz

    model, x = _model()
    with torch.no_grad(), kernelviz.capture() if captured else contextlib.nullcontext() as cap:
        path = torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)),
                                                        package_path=str(out / "block.pt2"))
    print("captured:", cap, flush=True)
    return path


def _run_with_torch(path: str, **options) -> None:
    from torch._inductor.package import load_package

    runner = load_package(path, **options)
    _, x = _model()
    with torch.no_grad():
        y = runner(x)
    torch.cuda.synchronize()
    print("ran:", [tuple(t.shape) for t in y], flush=True)


def step(name: str, out: Path) -> None:
    import faulthandler

    import kernelviz

    faulthandler.dump_traceback_later(150, exit=True)  # a hang shows where it waits

    path = str(out / "block.pt2")
    if name == "package":
        _package(out)
    elif name == "reload_in_capturing_process":
        _run_with_torch(_package(out / "again"))
    elif name == "torch_runner":
        _run_with_torch(path)
    elif name == "plain_package":
        _package(out / "plain", captured=False)
    elif name == "plain_runner":
        _run_with_torch(str(out / "plain" / "block.pt2"))
    elif name == "replay":
        _run_with_torch(path, run_single_threaded=True)
        from torch._inductor.package import load_package

        runner = load_package(path, run_single_threaded=True)
        _, x = _model()
        from kernelviz.bench.timers import graphed

        with torch.no_grad():
            graph, _ = graphed(lambda args: runner(*args), [x])
            for _ in range(3):
                graph.replay()
        torch.cuda.synchronize()
        print("replayed as a CUDA graph", flush=True)
    elif name == "load_show":
        from kernelviz.views.text import summary

        cap = kernelviz.load(path)
        print(summary(cap), flush=True)
        print("html chars:", len(cap.to_html()), flush=True)
    elif name == "bench":
        cap = kernelviz.load(path).bench(progress=False)
        graph = cap.graphs[0]
        print(json.dumps({"warnings": graph.warnings, "busy_ms": graph.gpu_busy_ms, "gap_ms": graph.gap_ms,
                          "as_run": graph.as_run and dataclasses.asdict(graph.as_run),
                          "launches": [(launch.kernel_name or launch.op, launch.timing and launch.timing.in_graph_ms)
                                       for launch in graph.launches]}, indent=1, default=str), flush=True)
    elif name == "jit_diff":
        model, x = _model()
        with torch.no_grad(), kernelviz.capture(bench=True) as jit:
            torch.compile(model)(x)
        print(kernelviz.diff(jit, kernelviz.load(path).bench(progress=False), labels=("jit", "aoti")), flush=True)


STEPS = ("package", "reload_in_capturing_process", "torch_runner", "plain_package", "plain_runner", "replay",
         "load_show", "bench", "jit_diff")


def main(out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for folder in ("again", "plain"):
        (out / folder).mkdir(exist_ok=True)
    for name in names or STEPS:
        try:
            done = subprocess.run([sys.executable, "-X", "faulthandler", __file__, "--step", name, str(out)],
                                  capture_output=True, text=True, timeout=300)
            code, text = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            code, text = "timeout", "".join(part.decode(errors="replace") if isinstance(part, bytes) else part or ""
                                            for part in (exc.stdout, exc.stderr))
        (out / f"{name}.txt").write_text(text)
        tail = [line for line in text.splitlines() if "Warning" not in line and line.strip()][-12:]
        print(f"step {name}: rc={code}", *("    " + line for line in tail), sep="\n", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--step":
        step(sys.argv[2], Path(sys.argv[3]))
    else:
        main(Path(sys.argv[1]), sys.argv[2:])
