"""How light a capture of a real training step is: the exit time of ``capture()`` with and without timing
and repros, and the size of what a user keeps of it (``save()``, ``to_html()``, the notebook output, ``repr``),
each beside the capture's output code (the sum of its graphs' ``code``). Then the same sizes for a real H200
transformer training step with stages and repros (tests/fixtures/deep/h200_transformer_step.kvz), loaded.

    python benchmarks/bench_light.py            # CPU: 2-layer TransformerEncoderLayer step, a small CNN step
    python benchmarks/bench_light.py --quick    # CPU: the transformer step only
    python benchmarks/bench_light.py --exit     # exit figures only (no sizes); --cnn: the CNN step only;
                                                # --retime: then a loaded GPT-2 backward (CUDA)
    python benchmarks/bench_light.py --sizes-only step.json   # only the sizes, of the fixture and of step.json
    KERNELVIZ_FROM=/old/tree python benchmarks/bench_light.py --exit   # the same with another kernelviz

On a CUDA machine it captures a torchvision resnet50 training step (batch 16, SGD without foreach: 700+ launches)
and a small transformer step instead. Each step is forward + backward + SGD, compiled and run once before it is
captured. Beside each exit: when the stages' texts and the repros' expected outputs were ready after it (each
capture reads its kernels' SASS anew, but the last row's, which finds it kept). ``--retime`` saves the GPT-2
backward (transformers) and times it at once after ``load()`` in a new process, with kernelviz's bytecode cache
for its child processes first empty, then kept. Targets in brackets; the notebook output is what a
notebook saves (``notebook.display.static_bundle``), then with the live widget's state (saved by ``nbclient`` and
JupyterLab's ``saveState``); the first display is the live panel's output while the stages are still being read.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("KERNELVIZ_FROM") or str(ROOT))

import kernelviz  # noqa: E402
from kernelviz.model import MIME_TYPE  # noqa: E402
from kernelviz.notebook.display import static_bundle  # noqa: E402
from kernelviz.views.payload import capture_from_bundle  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
FIXTURE = ROOT / "tests" / "fixtures" / "deep" / "h200_transformer_step.kvz"
EXIT_ONLY = False  # --exit


def sync() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def sgd_step(model: torch.nn.Module, inputs: torch.Tensor, loss_of, foreach: bool | None = None) -> callable:
    """forward + backward + SGD of ``model`` on ``inputs``: the model and the optimizer's step compiled."""
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, foreach=foreach)
    update = torch.compile(optimizer.step)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        loss_of(compiled(inputs)).backward()
        update()
    return step


def transformer_step() -> callable:
    """A 2-layer ``TransformerEncoderLayer`` stack (d_model 64 on the CPU, 256 on a GPU; dropout on)."""
    width = 256 if DEVICE == "cuda" else 64
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(width, 4, 2 * width, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).to(DEVICE).train()
    x = torch.randn(8, 32, width, device=DEVICE)
    return sgd_step(model, x, lambda y: y.square().mean())


def cnn_step() -> callable:
    """torchvision's resnet50 at batch 16 on a GPU (SGD a kernel per parameter); on the CPU a 3-conv CNN with batch
    norm at batch 8, 32x32."""
    torch.manual_seed(0)
    if DEVICE == "cuda":
        import torchvision

        model, x = torchvision.models.resnet50().to(DEVICE), torch.randn(16, 3, 224, 224, device=DEVICE)
        target = torch.randint(0, 10, (x.shape[0],), device=DEVICE)
        return sgd_step(model.train(), x, lambda y: torch.nn.functional.cross_entropy(y, target), foreach=False)
    else:
        conv = [torch.nn.Sequential(torch.nn.Conv2d(i, o, 3, padding=1), torch.nn.BatchNorm2d(o), torch.nn.ReLU())
                for i, o in ((3, 16), (16, 32), (32, 32))]
        model = torch.nn.Sequential(*conv, torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10))
        x = torch.randn(8, 3, 32, 32)
    target = torch.randint(0, 10, (x.shape[0],), device=DEVICE)
    return sgd_step(model.train(), x, lambda y: torch.nn.functional.cross_entropy(y, target))


def captured(step, **options) -> tuple[kernelviz.Capture, float, float]:
    """A capture of one run of ``step``; the step's own seconds and the seconds ``capture()`` took to exit."""
    with kernelviz.capture(**options) as cap:
        start = time.perf_counter()
        step()
        sync()
        body = time.perf_counter() - start
    return cap, body, time.perf_counter() - start - body


def landed(cap: kernelviz.Capture) -> str:
    """When the stages' texts and the repros' expected outputs were in ``cap``, in seconds after its exit (this
    kernelviz's background work; 0 where the exit waited for it)."""
    start = time.perf_counter()
    ready = {}

    def wait(what: str, how) -> None:
        how()
        ready[what] = time.perf_counter() - start

    waits = [threading.Thread(target=wait, args=("stages", cap.wait_stages)),
             threading.Thread(target=wait, args=("repros", getattr(cap, "wait_repros", lambda: None)))]
    for thread in waits:
        thread.start()
    for thread in waits:
        thread.join()
    stages, repros = ready["stages"], ready["repros"]
    return f"stages +{stages:.2f} s" + (f", repros +{repros:.2f} s" if any(k.repro for k in cap.kernels) else "")


@contextlib.contextmanager
def sass_kept_in(folder: str | None):
    """The SASS disassembled in this block kept in ``folder`` (a new one each capture: each reads its SASS anew),
    where this kernelviz keeps SASS at all."""
    from kernelviz.ir import stages

    if folder is None or not hasattr(stages, "cache_folder"):
        yield
        return
    was = stages.cache_folder
    stages.cache_folder = lambda name: Path(folder) / name
    try:
        yield
    finally:
        stages.cache_folder = was


def row(what: str, value: str, target: str = "") -> None:
    print(f"  {what:<44} {value:<28} {f'[{target}]' if target else ''}")


def sizes(cap: kernelviz.Capture) -> None:
    """Sizes of what a user keeps of ``cap``, beside its output code."""
    cap.wait_stages()
    code = sum(len(graph.code) for graph in cap.graphs)
    stages = sum(len(stage.text) for k in cap.kernels if k.ir for stage in k.ir.stages)
    row("output code (graphs' code)", f"{code / 1e6:.3f} MB", "the unit below")
    row("of which: kernels, launches, stage texts", f"{len(cap.kernels)}, {len(cap.launches)}, {stages / 1e6:.3f} MB")

    def share(what: str, size: int, bound: float | str | None = None, seconds: float | None = None) -> None:
        took = f", {seconds:.2f} s" if seconds is not None else ""
        target = f"<= {bound}x" if isinstance(bound, float | int) else bound or ""
        row(what, f"{size / 1e6:.3f} MB = {size / max(code, 1):.2f}x{took}", target)

    start = time.perf_counter()
    text = cap.to_json()
    share("to_json() (the JSON text)", len(text), "what save() compresses", time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as folder:
        saved = cap.save(Path(folder) / "cap")
        share(f"save() ({saved.name})", saved.stat().st_size, 2)
    start = time.perf_counter()
    html = cap.to_html()
    share("to_html()", len(html.encode()), 2, time.perf_counter() - start)
    start = time.perf_counter()
    bundle = static_bundle(cap)
    took = time.perf_counter() - start
    parts = {mime: len(value.encode() if isinstance(value, str) else json.dumps(value).encode())
             for mime, value in bundle.items()}
    widget = live_state(cap)
    share("notebook output (the saved parts)", sum(parts.values()), 1.5, took)
    for mime, size in parts.items():
        share(f"  {mime}", size)
    share("  + the live widget's saved state", widget, "where the widget state is saved")
    share("notebook output with the widget's state", sum(parts.values()) + widget, 1.5)
    assert capture_from_bundle(bundle[MIME_TYPE]).to_json() == cap.to_json()  # the whole capture, never less
    first_display(cap)
    text = repr(cap)
    row("repr(cap)", f"{len(text)} characters, {text.count(chr(10)) + 1} lines", "a few lines")


def live_state(cap: kernelviz.Capture) -> int:
    """Bytes of the live widget's payload as a notebook's widget state holds it (``store_widget_state``, or
    JupyterLab's ``saveState``): the panel's code is saved once per notebook, not counted here. Made where anywidget
    is missing too (the GPU image), as the widget would make it."""
    from kernelviz.views.payload import live_packed  # here: --exit runs on an older kernelviz (KERNELVIZ_FROM) too

    return len(json.dumps(live_packed(cap)).encode())


def first_display(cap: kernelviz.Capture) -> None:
    """Seconds to the live panel's output (what ``LiveDisplay.open`` sends at once; the saved parts follow in a
    thread), with a capture's stages still being read (a real ``StageReading`` of one kernel, slowed to 3 s)."""
    try:
        from kernelviz.notebook.display import widget_bundle
        from kernelviz.views.text import summary
    except ImportError:
        return
    from kernelviz.ir import StageJob, StageReading
    from kernelviz.model import KernelIR
    from kernelviz.views.payload import live_packed

    kernel = cap.kernels[0]
    saved_ir, kernel.ir = kernel.ir, KernelIR()
    cap._stages = StageReading([StageJob(kernel, kernel.ir, lambda: (time.sleep(3), ({}, {}, []))[1])])
    start = time.perf_counter()
    _, widget = widget_bundle(cap)  # what LiveDisplay.open displays
    if widget is None:  # no anywidget here (the GPU image): the payload the widget would sync, made all the same
        live_packed(cap)
    summary(cap)
    what = "" if widget is not None else " (its payload: no anywidget here)"
    row(f"first display (the live panel){what}, stages pending", f"{time.perf_counter() - start:.2f} s", "<= 1 s")
    cap.wait_stages()
    kernel.ir = saved_ir


def workload(name: str, step) -> None:
    print(f"{name} ({DEVICE}):")
    step()  # compiled and run once: the captures below see a compiled step, as a notebook's second cell does
    sync()
    start = time.perf_counter()
    step()
    sync()
    row("the step alone", f"{time.perf_counter() - start:.3f} s")
    kept = tempfile.mkdtemp(prefix="kernelviz-sass-")
    runs = (({}, "", None), ({"bench": True}, "step + 2 s", None),
            ({"bench": True, "repros": True}, "step + 5 s", kept), ({"bench": True}, "again: SASS kept", kept))
    for options, bound, folder in runs:
        with sass_kept_in(folder or tempfile.mkdtemp(prefix="kernelviz-sass-")):
            cap, body, exit_s = captured(step, **options)
            after = landed(cap)
        label = ", ".join(f"{k}=True" for k in options)
        row(f"capture({label}) exit", f"{exit_s:.2f} s (step {body:.3f} s); {after}", bound)
        if not options:
            triton = sum(1 for k in cap.kernels if k.kind.startswith("triton"))
            row("launches, Triton kernels", f"{len(cap.launches)}, {triton}")
        if options.get("repros"):
            with_repros = cap
    timing = [line for line in children() if "kernelviz." in line]
    row("kernelviz processes beside this one now", f"{len(timing)}", "at most 1")
    if not EXIT_ONLY:
        sizes(with_repros)


def children() -> list[str]:
    """Command lines of this process's live child processes (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            if entry.name.isdigit() and int(stat[stat.rindex(")") + 2:].split()[1]) == os.getpid() and \
                    stat[stat.rindex(")") + 2] != "Z":
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except (OSError, ValueError):
            continue
    return found


def saved_gpt2_backward() -> tuple[kernelviz.model.Graph, Path, Path]:
    """A GPT-2 training step's backward graph (tests/zoo.py), captured and saved alone in a new folder: the graph,
    the folder and the saved file."""
    sys.path.insert(0, str(ROOT / "tests"))
    import zoo

    with kernelviz.capture() as cap:
        zoo.gpt2_training_step()()
    back = max((g for g in cap.graphs if g.kind == "backward"), key=lambda g: len(g.launches))
    folder = Path(tempfile.mkdtemp(prefix="kernelviz-retime-"))
    path = kernelviz.Capture(graphs=[back], torch_version=cap.torch_version, device_name=cap.device_name).save(
        folder / "gpt2_backward")
    return back, folder, path


def retime() -> None:
    """A GPT-2 backward saved, then loaded in a new process and timed at once, with an empty bytecode cache for
    kernelviz's children (a first session), then again (the cache kept), then timed 10 s after its load (a later
    cell: the timing process load() started is ready)."""
    back, folder, path = saved_gpt2_backward()
    print(f"GPT-2 backward ({len(back.launches)} launches), saved, then in a new process: load(), bench() at once "
          "[<= 5 s]:")
    code = ("import sys, time; t = time.perf_counter(); import torch, kernelviz; cap = kernelviz.load(sys.argv[1]); "
            "time.sleep(float(sys.argv[2])); s = time.perf_counter(); cap.bench(progress=False); "
            "e = time.perf_counter(); "
            "n = sum(1 for l in cap.launches if l.timing and l.timing.in_graph_ms); "
            "print(f'import+load {s - t:.2f} s, bench() {e - s:.2f} s, {n}/{len(cap.launches)} launches timed')")
    env = dict(os.environ, XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=os.environ.get("KERNELVIZ_FROM") or
               str(ROOT))
    for what, pause in (("kernelviz's bytecode cache empty", 0), ("kept", 0), ("kept, bench() 10 s after load()", 10)):
        done = subprocess.run([sys.executable, "-c", code, str(path), str(pause)], capture_output=True, text=True,
                              env=env)
        row(what, (done.stdout.strip() or done.stderr.strip()[-300:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the transformer step only (and the fixture)")
    parser.add_argument("--sizes-only", action="store_true", help="no capture here: the sizes of the files given")
    parser.add_argument("captures", nargs="*", type=Path, help="saved captures to size too (e.g. a GPU step's)")
    parser.add_argument("--cnn", action="store_true", help="the CNN step only")
    parser.add_argument("--exit", action="store_true", help="exit figures only: no sizes, no fixture")
    parser.add_argument("--retime", action="store_true", help="then a loaded GPT-2 backward retimed (CUDA)")
    args = parser.parse_args()
    global EXIT_ONLY
    EXIT_ONLY = args.exit
    os.environ.setdefault("COLUMNS", "120")
    print(f"torch {torch.__version__}" + (f", {torch.cuda.get_device_name()}" if DEVICE == "cuda" else ""))
    if not args.cnn and not args.sizes_only:
        workload("2-layer TransformerEncoderLayer training step (SGD), bench=True, repros=True", transformer_step())
    if not args.quick and not args.sizes_only:
        workload("CNN training step (SGD), bench=True, repros=True", cnn_step())
    if not args.exit:
        for path in [FIXTURE, *args.captures]:
            print(f"{path} (loaded):")
            sizes(kernelviz.load(path))
    if args.retime:
        retime()


if __name__ == "__main__":
    main()
