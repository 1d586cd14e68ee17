"""The findings in the panel (plain Chromium): grouped by rule per graph as Python groups them (the view annex), the
header's top groups ranked by ms, each group's rest behind "N more", a click on one selects its launch (in its
graph), the Findings tab lists a graph's groups with how each ms was computed; dynamo's events one line each, the
whole text a click away; Light and Dark screenshots of them (``KV_SHOTS=dir`` writes them there)."""

import json
import os
from pathlib import Path

from browser import chromium_page, needs_browser, panel_site, serve
from conftest import timed_train_step
from kernelviz.model import DynamoEvent, FusionDecision
from kernelviz.views.groups import group_findings
from kernelviz.views.payload import payload

# JupyterLab Dark's variables that the panel reads (packages/theme-dark-extension/style/variables.css)
DARK = """:root { --jp-layout-color0: #111; --jp-layout-color1: #212121; --jp-layout-color2: #424242;
--jp-layout-color3: #616161; --jp-border-color1: #616161; --jp-border-color2: #424242; --jp-border-color3: #212121;
--jp-ui-font-color0: #fff; --jp-ui-font-color1: rgba(255,255,255,0.87); --jp-ui-font-color2: rgba(255,255,255,0.54);
--jp-ui-font-color3: rgba(255,255,255,0.38); --jp-content-link-color: #64b5f6; --jp-brand-color1: #2196f3;
--jp-warn-color0: #f57c00; --jp-warn-color1: #ff9800; --jp-warn-color3: #ffe0b2; --jp-ui-inverse-font-color0: #000; }
body { background: #111; }"""


def _capture():
    """A real H100 training step's code with drawn timings, its graph as it runs, a refused fusion and a break."""
    cap = timed_train_step()
    graph = cap.graphs[0]
    first, second = [launch.kernel_name for launch in graph.launches if launch.kernel_name][:2]
    graph.fusions = [FusionDecision(["mul", "sum_1"], ["div"], False, "intermediate nodes between node1 & node2",
                                    first, second, 1 << 20)]
    cap.dynamo = [DynamoEvent("graph_break", "Unsupported: print\n  Explanation: dynamo does not trace print",
                              "train.py", 12, "step", "print(loss)")] * 3
    cap.advice()
    return cap


@needs_browser
def test_findings_in_the_panel(tmp_path):
    cap = _capture()
    spec = cap.graphs[0].inputs[0]
    spec.symbols = ["s0", "512"]  # as a graph compiled with dynamic shapes has it
    shots = Path(os.environ["KV_SHOTS"]) if os.environ.get("KV_SHOTS") else None
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    (site / "dark.html").write_text((site / "index.html").read_text().replace(
        '<link rel="stylesheet" href="panel.css">', f'<link rel="stylesheet" href="panel.css"><style>{DARK}</style>'))
    with serve(site) as url, chromium_page() as page:
        for theme, name in (("light", "index.html"), ("dark", "dark.html")):
            page.goto(f"{url}/{name}")
            page.wait_for_selector(".kv-finding")
            groups = group_findings(cap.findings)
            header = page.locator(".kv-findings").first
            assert header.locator(".kv-finding-group-title").all_inner_texts() == [g.title for g in groups[:5]]
            memory = header.locator(".kv-finding-group").filter(has_text="memory-bound")
            assert memory.locator(":scope > ul > .kv-finding").count() == 2  # the few that matter
            more = memory.locator("details.kv-finding-more")
            assert more.locator("summary").inner_text() == groups[1].more_text == "3 more, 0.147 ms in all"
            assert not more.locator(".kv-finding").first.is_visible()
            more.locator("summary").click()
            assert more.locator(".kv-finding").count() == 3 and more.locator(".kv-finding").first.is_visible()
            first = header.locator(".kv-finding").first
            assert first.inner_text().startswith("0.97") and "launch-bound" in first.inner_text()
            event = page.locator(".kv-dynamo details")
            assert event.count() == 1 and event.locator("summary").inner_text() == (
                "graph break 3x at train.py:12 `print(loss)`: Unsupported: print")
            assert not event.locator("pre").is_visible()
            event.locator("summary").click()
            assert "Explanation: dynamo does not trace print" in event.locator("pre").inner_text()
            if shots:  # the header with dynamo's line and the grouped findings under it
                top, bottom = page.locator(".kv-header").bounding_box(), header.bounding_box()
                page.screenshot(path=str(shots / f"findings_header_{theme}.png"), clip={
                    "x": 0, "y": top["y"], "width": max(top["width"], bottom["width"]) + top["x"] + 8,
                    "height": bottom["y"] + bottom["height"] - top["y"] + 4})
            memory.locator(".kv-finding a").first.click()  # a launch's finding
            assert page.locator(".kv-row.kv-selected").get_attribute("data-key") == f"0/{cap.findings[1].launches[0]}"
            assert page.locator(".kv-toolbar .kv-dynamic").inner_text() == (
                f"dynamic shapes: {spec.name} [s0, 512] ran as [{', '.join(spec.shape)}]")
            page.locator(".kv-tab[data-tab='findings']").click()
            items = page.locator(".kv-detail .kv-finding-full")
            assert items.count() == len([f for f in cap.findings if f.graph in (None, cap.graphs[0].id)])
            assert "ms: measured: plain call() 2.27 ms" in page.locator(".kv-detail").inner_text()
            if shots:
                page.locator(".kv-detail").screenshot(path=str(shots / f"findings_tab_{theme}.png"))
            items.filter(has_text="refused-fusion").locator("a").click()  # past the header's top 5
            index = next(f for f in cap.findings if f.rule == "refused-fusion").launches[0]
            assert page.locator(".kv-row.kv-selected").get_attribute("data-key") == f"0/{index}"
        assert page.errors == []
