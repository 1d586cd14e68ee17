"""Every figure the capture panel shows is written in Python (``views/texts.py``, by ``units.py``) and carried by
the payload; the panel shows those strings. Real captures: ``kernelviz demo``'s timed on the CPU (torch 2.13), and
counters measured on an H100."""

import json
import math

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz import units
from kernelviz.views.payload import payload

DEMO = FIXTURES / "demo-cpu-torch2.13" / "train_step.kvz"
COUNTED = FIXTURES / "counters" / "h100" / "hot_line.json"


def test_the_panel_s_forms_of_a_figure():
    assert [units.ms_figure(v) for v in (1234.5, 12.345, 0.012345, None)] == ["1234", "12.35", "0.0123", ""]
    assert [units.percent_figure(v) for v in (100.4, 99.96, 42.4, 4.24)] == ["100%", "100%", "42%", "4.2%"]
    assert [units.rate_figure(v, "GB/s") for v in (1326.4, 12.34, 1.234)] == ["1326 GB/s", "12.3 GB/s", "1.23 GB/s"]
    assert [units.count(n) for n in (950, 12_345, 3_400_000)] == ["950", "12k", "3.4M"]
    assert units.ms_figure(-1.0) == "invalid: -1 ms" and units.rate_figure(math.inf, "GB/s") == "invalid: inf GB/s"
    assert units.percent_figure(math.nan) == "invalid: nan %"


def test_each_launch_s_figures_are_in_the_payload_as_units_writes_them():
    demo = kernelviz.load(DEMO)
    view = payload(demo)["view"]
    for g, graph in enumerate(demo.graphs):
        texts = view["launches"][g]["texts"]
        for launch in graph.launches:
            t, shown = launch.timing, texts[str(launch.index)]
            assert shown.get("ms", "") == units.ms_figure(t.in_graph_ms) and shown["ms"]
            assert shown.get("share", "") == units.share(t.share)
            assert shown.get("bytes", "") == units.size(t.bytes)
        busy = view["launches"][g]["graph"]
        assert busy["busy"] == units.ms_figure(graph.gpu_busy_ms) and busy["busy_label"] == "call() wall time"
    assert view["compile"] and view["memory"]["1"]["peak_text"] == units.size(view["memory"]["1"]["peak"])


def test_a_launch_s_counters_are_written_in_python():
    cap = kernelviz.load(COUNTED)
    view = payload(cap)["view"]
    (g, launch), = [(g, launch) for g, graph in enumerate(cap.graphs) for launch in graph.launches
                    if launch.counters is not None and launch.counters.error is None][:1]
    c, shown = launch.counters, view["launches"][g]["texts"][str(launch.index)]["counters"]
    assert shown["duration"] == units.ms_figure(c.duration_ms)
    assert shown["stalls"][0] == [units.percent_figure(100 * c.stalls[0].share), units.relative(c.stalls[0].share)]
    assert len(shown["lines"]) == len(c.lines) and len(shown["sass"]) == len(c.sass)
    hottest = max(range(len(c.lines)), key=lambda i: c.lines[i].stall_samples)
    assert shown["lines"][hottest][1] == units.count(c.lines[hottest].stall_samples)


@needs_browser
def test_the_panel_shows_the_payload_s_strings(tmp_path):
    """The payload's texts replaced by marked ones: every figure the table, the Kernel tab, the timeline and the
    Wrapper tab show is the marked text, none worked out in the browser."""
    demo = kernelviz.load(DEMO)
    data = payload(demo)
    annex = data["view"]["launches"][1]
    for index, texts in annex["texts"].items():
        texts |= {"ms": f"ms#{index}", "iso": f"iso#{index}" if "iso" in texts else "", "share": f"share#{index}"}
    annex["graph"] |= {"busy": "busy#", "launches": "all#"}
    data["view"]["memory"]["1"]["peak_text"] = "peak#"
    data["view"]["memory"]["1"]["live"] = [[step, f"live#{step}"] for step, _ in data["view"]["memory"]["1"]["live"]]
    with serve(panel_site(tmp_path, json.dumps(data))) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        page.locator(".kv-graph").select_option("1")
        heads = [c.strip(" ▲▼") for c in page.locator(".kv-table th").all_inner_texts()]
        rows = page.locator(".kv-table .kv-row")
        for i in range(rows.count()):
            cells = dict(zip(heads, rows.nth(i).locator("td").all_inner_texts()))
            index = cells["#"]
            assert cells["in-graph ms"] == f"ms#{index}" and cells["share"] == f"share#{index}"
        rows.first.click()
        index = page.locator(".kv-table .kv-row").first.locator("td").first.inner_text()
        facts = page.locator(".kv-facts-grid").first.inner_text()
        assert f"ms#{index} ms (CPU wall clock)" in facts and f"share#{index} of the graph" in facts
        assert "all# ms" in page.locator(".kv-timeline-figure .kv-hint").inner_text()
        assert "busy#" in page.locator(".kv-toolbar").inner_text()
        page.locator(".kv-tab[data-tab='wrapper']").click()
        assert "peak#" in page.locator(".kv-facts").first.inner_text()
        assert page.locator(".kv-step").filter(has_text="live#").count() > 0
        assert page.errors == []
