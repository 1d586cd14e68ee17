"""Figures of the panel on large captures, in Debian's Chromium: first render, selecting a row, scrolling the
table to its end, sorting, and the size of what the widget and a saved notebook carry.

    PYTHONPATH=$PWD python benchmarks/bench_panel.py

(a) 2,000+ kernels: the real H100 fixtures' graphs repeated (154 graphs, 6,000+ launches);
(b) one graph of 6,000 launches (resnet18's launches repeated), where the table is at its longest.
"""

import copy
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import kernelviz  # noqa: E402

kernelviz.needs("pytest", "test", "benchmarks/bench_panel.py")  # tests/browser.py and conftest.py import it
from browser import chromium_page, panel_site, serve  # noqa: E402
from conftest import FIXTURES, big_capture, fill_timings  # noqa: E402
from kernelviz.views.payload import live_packed, payload, saved  # noqa: E402

MEASURE = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const t = {};
  let s = performance.now();
  document.querySelectorAll('.kv-row')[3].click(); await frame(); t.select = performance.now() - s;
  const wrap = document.querySelector('.kv-table-wrap');
  s = performance.now(); wrap.scrollTop = wrap.scrollHeight; await frame(); t.scroll = performance.now() - s;
  s = performance.now(); [...document.querySelectorAll('.kv-table th')][3].click(); await frame();
  t.sort = performance.now() - s;
  s = performance.now(); const f = document.querySelector('.kv-filter'); f.value = 'triton';
  f.dispatchEvent(new Event('input')); await frame(); t.filter = performance.now() - s;
  t.rowsInDom = document.querySelectorAll('.kv-row').length;
  return t;
}"""


def one_long_graph(launches: int = 6000) -> kernelviz.Capture:
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py")
    graph = cap.graphs[0]
    base = list(graph.launches)
    graph.launches = []
    while len(graph.launches) < launches:
        for launch in base:
            copy_ = copy.deepcopy(launch)
            copy_.index = len(graph.launches)
            graph.launches.append(copy_)
    return cap


def measure(label: str, cap: kernelviz.Capture) -> None:
    fill_timings(cap)
    start = time.perf_counter()
    sent = json.dumps(live_packed(cap))  # what the widget syncs
    python_ms = (time.perf_counter() - start) * 1e3
    live = json.dumps(payload(cap, per_kernel=False))  # the same, as the panel reads it once decoded
    stored = json.dumps(saved(cap))  # what a notebook saves for the JupyterLab renderer
    with tempfile.TemporaryDirectory() as tmp, serve(panel_site(Path(tmp), live)) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        render_ms = page.evaluate("window.renderMs")
        t = page.evaluate(MEASURE)
    print(f"{label}: {len(cap.kernels)} kernels, {len(cap.launches)} launches in {len(cap.graphs)} graphs; "
          f"widget payload {len(live) / 1e6:.1f} MB sent as {len(sent) / 1e6:.1f} MB ({python_ms:.0f} ms in Python), "
          f"saved payload {len(stored) / 1e6:.1f} MB; first render {render_ms:.0f} ms; select {t['select']:.0f} ms, "
          f"scroll to end {t['scroll']:.0f} ms, sort {t['sort']:.0f} ms, filter {t['filter']:.0f} ms; "
          f"{t['rowsInDom']} rows in the DOM")

if __name__ == "__main__":
    measure("(a) many graphs", big_capture(2000))
    measure("(b) one long graph", one_long_graph(6000))
