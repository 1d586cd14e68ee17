"""kernelviz's whole path with ``import numpy`` blocked: capture (timed), repros, bench(), the HTML report, the
notebook bundle and widget, JSON round trip, a diff, the CLI, the magic. Run as a script (``python tests/clean_run.py
OUT_DIR [cpu|cuda]`` with ``tests/no_numpy`` on PYTHONPATH); it prints one ``ok: ...`` line per step and exits non-zero
on the first failure.

kernelviz declares numpy only so that torch imports without warning, and never imports it: whatever kernelviz
does runs without it, also on machines that have numpy installed (``tests/no_numpy/sitecustomize.py`` makes its
import fail, in this process and in every child it starts, as if it were not)."""

import sys


def main(out: str, device: str = "cpu") -> None:
    import contextlib
    import io
    import subprocess
    import warnings
    from pathlib import Path

    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch

    import kernelviz
    from kernelviz.__main__ import main as cli

    try:
        import numpy  # noqa: F401
        raise SystemExit("numpy imports: run with tests/no_numpy on PYTHONPATH")
    except ModuleNotFoundError:
        pass
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(32, 4)).to(device)
    x, target = torch.randn(8, 16, device=device), torch.randint(0, 4, (8,), device=device)

    def step(x, target):
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        return loss

    with kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(step)(x, target)
    assert cap.kernels and all(g.timed_on for g in cap.graphs), "the capture is timed"
    print(f"ok: capture(bench=True, repros=True): {len(cap.graphs)} graphs, {len(cap.kernels)} kernels")

    cap.bench()
    print("ok: bench() after the block")

    html = cap.to_html()
    assert "<table" in html
    bundle = cap._repr_mimebundle_()
    assert kernelviz.MIME_TYPE in bundle and "text/html" in bundle
    from kernelviz.notebook.display import widget_bundle

    widget_bundle(cap)
    print("ok: to_html(), the notebook bundle and the widget")

    again = kernelviz.Capture.from_json(cap.to_json())
    assert again.to_json() == cap.to_json()
    path = cap.save(out / "a.json")
    print("ok: to_json() / from_json() round trip, save()")

    with kernelviz.capture() as other:
        torch.compile(lambda v: torch.relu(v) * 2)(torch.randn(32, device=device))
    d = kernelviz.diff(cap, other)
    assert d.to_html() and kernelviz.Diff.from_json(d.to_json()).to_json() == d.to_json()
    other.save(out / "b.json")
    print("ok: diff, its HTML and JSON")

    with contextlib.redirect_stdout(io.StringIO()) as shown:
        for argv in (["show", str(path), "-o", str(out / "a.html")],
                     ["diff", str(path), str(out / "b.json"), "-o", str(out / "d.html")]):
            code = cli(argv)
            assert code in (0, None), f"kernelviz {' '.join(argv)} exited {code}"
    assert "graph" in shown.getvalue()
    print("ok: the CLI's show and diff")

    kernel = next(k for k in cap.graphs[-1].kernels if k.kind in ("cpp", "triton"))  # the backward's first
    script = out / "repro.py"
    script.write_text(kernel.to_repro())
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    print(f"ok: {kernel.name}'s repro runs: {run.stdout.strip().splitlines()[-1]}")

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "kernelviz")
    shell.run_cell("%%kernelviz -o magic\nimport torch\ntorch.compile(lambda v: v.cos() + 1)(torch.randn(16))\n"
                   ).raise_error()
    assert shell.user_ns["magic"].kernels
    print("ok: the %%kernelviz magic")

    assert "numpy" not in sys.modules, "numpy was imported"
    print("ok: numpy was never imported")


if __name__ == "__main__":
    main(*sys.argv[1:])
