"""The Why tab in the panel (plain Chromium): what reduce-overhead did with the graph, and each autotuning as a sweep
(a bar per timed candidate as long as its time, the winner marked, the failed behind "N failed" with why), as Python
worked them out (views/why.py); the cudagraph-skip finding in its group. Light and Dark screenshots of them
(``KV_SHOTS=dir`` writes them there)."""

import json
import os
from pathlib import Path

from test_advice_browser import DARK

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES, fill_timings
from kernelviz.model import AsRun, CudaGraphEvent, SourceLocation, TuneCandidate
from kernelviz.recorder.autotune import tuning
from kernelviz.views.payload import payload
from kernelviz.views.why import sweeps

OUT_OF_SMEM = "out of resource: triton_mm Required: 245760 Hardware limit: 232448. Reducing block sizes or " \
              "`num_stages` may help."


def _capture():
    """A real H100 training step's code with drawn timings, the mm sweep measured on an H100 (extern mm 0.0495 ms
    against 15 Triton templates, 5 of them out of shared memory), a Triton kernel's configs, and a skipped CUDA
    graph."""
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "train_step_1.py")
    fill_timings(cap)
    graph = cap.graphs[0]
    times = [0.198, 0.205, 0.221, 0.236, 0.262, 0.288, 0.301, 0.334, 0.371, 0.402]
    candidates = [TuneCandidate("mm", "extern", 0.0495)] + [
        TuneCandidate(f"triton_mm_{13 + i}", "triton", ms, detail=f"BLOCK_M=64, BLOCK_N={32 << (i % 3)}, num_stages=3")
        for i, ms in enumerate(times)] + [
        TuneCandidate(f"triton_mm_{i}", "triton", None, OUT_OF_SMEM, "BLOCK_M=128, BLOCK_N=128, num_stages=5")
        for i in range(5)]
    graph.tunings = [
        tuning("template", "mm", candidates, shapes="2048x2048, 2048x2048"),
        tuning("configs", graph.launches[0].kernel_name or "triton_poi_fused_0",
               [TuneCandidate(f"XBLOCK={x}, num_warps={w}", "config", ms)
                for x, w, ms in ((1024, 4, 0.0061), (512, 4, 0.0064), (256, 2, 0.0072), (128, 4, 0.0089))])]
    graph.cudagraphs = [CudaGraphEvent("skip", "mutated inputs (1 instances)",
                                       SourceLocation("train.py", 14, "step", "buf.add_(1)"))]
    kernels_ms = sum(launch.timing.in_graph_ms for launch in graph.launches)
    graph.as_run = AsRun("gpu", 2.27, 20, 0.02, launch_cpu_ms=2.2, kernels_ms=kernels_ms, replay_ms=1.30)
    cap.advice()
    return cap


@needs_browser
def test_why_tab_in_the_panel(tmp_path):
    cap = _capture()
    shots = Path(os.environ["KV_SHOTS"]) if os.environ.get("KV_SHOTS") else None
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    (site / "dark.html").write_text((site / "index.html").read_text().replace(
        '<link rel="stylesheet" href="panel.css">', f'<link rel="stylesheet" href="panel.css"><style>{DARK}</style>'))
    mm, configs = sweeps(cap)
    with serve(site) as url, chromium_page() as page:
        for theme, name in (("light", "index.html"), ("dark", "dark.html")):
            page.goto(f"{url}/{name}")
            page.wait_for_selector(".kv-finding")
            page.locator(".kv-tab[data-tab='why']").click()
            detail = page.locator(".kv-detail")
            figures = detail.locator("figure.kv-sweep")
            assert figures.count() == 2
            first = figures.nth(0)
            assert first.locator("figcaption").inner_text() == mm.title == (
                "max-autotune · mm (2048x2048, 2048x2048): 16 candidates, 5 failed")
            assert first.locator(".kv-sweep-verdict").inner_text() == mm.verdict == (
                "mm won: the runner-up triton_mm_13 took 4x as long")
            assert first.locator("svg rect").count() == 11  # the timed ones
            assert first.locator(".kv-sweep-winner rect").count() == 1
            assert first.locator(".kv-sweep-won").text_content() == "0.0495 ms ★"
            failed = first.locator("details.kv-sweep-failed")
            assert failed.locator("summary").inner_text() == "5 failed"
            assert not failed.locator("li").first.is_visible()
            failed.locator("summary").click()
            assert failed.locator("li").inner_text() == (
                f"{OUT_OF_SMEM} (5: triton_mm_0, triton_mm_1, triton_mm_2, triton_mm_3, triton_mm_4)")
            assert configs.title in figures.nth(1).locator("figcaption").inner_text()
            assert detail.locator(".kv-cudagraphs").inner_text().startswith(
                "CUDA graphs: not run as a CUDA graph\nskipped: mutated inputs (1 instances) at train.py:14")
            if shots:
                detail.screenshot(path=str(shots / f"why_tab_{theme}.png"))
            page.locator(".kv-tab[data-tab='findings']").click()
            skip = page.locator(".kv-detail .kv-finding-full").filter(has_text="cudagraph-skip")
            assert skip.count() == 1 and skip.inner_text().startswith("0.97 ms cudagraph-skip")
            assert "ms: measured: plain call() 2.27 ms − the same call() replayed" in skip.inner_text()
            if shots:
                page.locator(".kv-detail").screenshot(path=str(shots / f"why_findings_{theme}.png"))
        assert page.errors == []


@needs_browser
def test_tabs_with_nothing_to_show_are_left_out(tmp_path):
    """A CPU graph with nothing autotuned has no HIP reading (hipify maps CUDA code) and no Why; a CUDA graph has
    HIP, and Why once it holds an autotuning: the panel shows the tabs Python listed."""
    cpu = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    cuda = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    assert payload(cpu)["view"]["tabs"] == [] and payload(cuda)["view"]["tabs"] == ["hip"]
    assert payload(_capture())["view"]["tabs"] == ["hip", "why"]
    for name, cap in (("cpu", cpu), ("cuda", cuda), ("why", _capture())):
        (tmp_path / name).mkdir()
        site = panel_site(tmp_path / name, json.dumps(payload(cap)))
        with serve(site) as url, chromium_page() as page:
            page.goto(f"{url}/index.html")
            page.wait_for_selector(".kv-tab[data-tab='kernel']")
            shown = [b.get_attribute("data-tab") for b in page.locator(".kv-tabs .kv-tab").all()]
            assert [t for t in shown if t in ("hip", "why")] == payload(cap)["view"]["tabs"]
            assert page.errors == []
