"""The notebook display's cost: the first display of a capture in a fresh process, and of a 20,000-kernel one.

    python benchmarks/bench_display.py [--kernels 20000]

Each figure comes from a new Python process (nothing loaded or cached but what it says): ``kernelviz.load`` of
a small real capture (tests/fixtures/cpu-torch2.13/mlp_0.py), then the first display (``_repr_mimebundle_``:
the live widget, the saved panel data, the HTML report without sources, the text), a second display, and
``to_html()``; once in a bare process and once with what a Jupyter kernel showing widgets has imported
(IPython, ipywidgets, anywidget). Then, for a capture of ``--kernels`` kernels (the H100 fixtures' graphs
repeated), the first display and ``to_html()``, each in a process of its own. Wall-clock seconds; targets in brackets.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "tests" / "fixtures" / "cpu-torch2.13" / "mlp_0.py"

CHILD = r"""
import json, sys, time
for name in sys.argv[4:]:
    __import__(name)
sys.path.insert(0, sys.argv[2])
import kernelviz
if sys.argv[1] == "small":
    cap = kernelviz.load(%(small)r)
else:
    from conftest import big_capture
    cap = big_capture(int(sys.argv[1]))
out = {"kernels": len(cap.kernels)}
calls = {"first display": cap._repr_mimebundle_, "second display": cap._repr_mimebundle_, "to_html": cap.to_html}
for key in sys.argv[3].split(","):
    call = calls[key]
    start = time.perf_counter()
    call()
    out[key] = time.perf_counter() - start
print(json.dumps(out))
"""


def child(which: str, calls: str, modules: list[str]) -> dict:
    code = CHILD % {"small": str(SMALL)}
    done = subprocess.run([sys.executable, "-c", code, which, str(ROOT / "tests"), calls, *modules], cwd=ROOT,
                          capture_output=True, text=True, check=True, env={**_env(), "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env() -> dict:
    import os

    return dict(os.environ)


def main() -> None:
    import kernelviz

    kernelviz.needs("pytest", "test", "benchmarks/bench_display.py")  # the child's tests/conftest.py imports it
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=20000)
    args = parser.parse_args()
    notebook = ["IPython", "ipywidgets", "anywidget"]
    for label, modules in (("bare process", []), ("IPython, ipywidgets, anywidget imported", notebook)):
        r = child("small", "first display,second display,to_html", modules)
        print(f"small capture ({r['kernels']} kernels), {label}: first display {r['first display']:.3f} s [0.3 s], "
              f"second {r['second display']:.3f} s, to_html {r['to_html']:.3f} s")
    shown, html = child(str(args.kernels), "first display", notebook), child(str(args.kernels), "to_html", notebook)
    print(f"{shown['kernels']:,}-kernel capture, each in a new process with {label}: first display "
          f"{shown['first display']:.2f} s, to_html {html['to_html']:.2f} s: "
          f"{shown['first display'] / html['to_html']:.2f}x [2x]")


if __name__ == "__main__":
    main()
