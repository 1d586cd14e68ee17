"""The Counters section and the heat column in Chromium, on counters measured on an H100
(tests/fixtures/counters): hottest lines first, a click selects the line in the source; the live panel's
Measure counters button; screenshots in out/ in the light theme and in JupyterLab Dark's colours."""

import json
from pathlib import Path

import kernelviz
from browser import PANEL_PAGE, chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.views.payload import payload

SHOTS = Path(__file__).resolve().parents[1] / "out"
# JupyterLab Dark's values of the theme variables the panel reads (its light fallbacks are in panel.css)
DARK = """body { background: #111; color: rgba(255,255,255,0.87); }
:root { --jp-layout-color0: #111111; --jp-layout-color1: #212121; --jp-layout-color2: #424242;
  --jp-layout-color3: #616161; --jp-layout-color4: #757575; --jp-ui-font-color0: rgba(255,255,255,1);
  --jp-ui-font-color1: rgba(255,255,255,0.87); --jp-ui-font-color2: rgba(255,255,255,0.54);
  --jp-ui-font-color3: rgba(255,255,255,0.38); --jp-ui-inverse-font-color0: rgba(0,0,0,1);
  --jp-border-color1: #616161; --jp-border-color2: #424242; --jp-brand-color1: #1976d2;
  --jp-warn-color0: #e65100; --jp-warn-color1: #f57c00; --jp-error-color1: #d32f2f;
  --jp-success-color1: #388e3c; --jp-success-color3: #1b5e20; --jp-warn-color3: #bf360c;
  --jp-error-color3: #b71c1c; --jp-info-color0: #01579b; --jp-info-color3: #0277bd; --jp-border-color3: #757575;
  --jp-brand-color2: #1565c0; --jp-cell-editor-background: #212121; --jp-mirror-editor-keyword-color: #4caf50;
  --jp-mirror-editor-builtin-color: #4caf50; --jp-mirror-editor-def-color: #2196f3;
  --jp-mirror-editor-variable-2-color: #64b5f6; --jp-mirror-editor-string-color: #ff7070;
  --jp-mirror-editor-number-color: #81c784; --jp-mirror-editor-comment-color: #408080;
  --jp-mirror-editor-operator-color: #aa22ff; --jp-mirror-editor-meta-color: #aa22ff; }"""


@needs_browser
def test_counters_section_lists_the_hottest_line_first_and_marks_the_source(tmp_path):
    cap = kernelviz.load(FIXTURES / "counters" / "h100" / "hot_line.json")
    (launch,) = [launch for launch in cap.launches if launch.counters is not None]
    hottest = max(launch.counters.lines, key=lambda line: line.stall_samples).line
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    SHOTS.mkdir(exist_ok=True)
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.locator(".kv-row").first.click()
        page.locator(".kv-tab", has_text="Kernel").click()
        section = page.locator(".kv-counters")
        assert "Nsight Compute" in section.inner_text() and "SM throughput" in section.inner_text()
        assert "not_selected" in page.locator(".kv-stalls").inner_text()
        hot = page.locator(".kv-hot-line")
        assert hot.first.get_attribute("data-line") == str(hottest)
        assert "tl.sin(tl.exp(" in hot.first.inner_text()
        heat = page.locator(".kv-source .kv-heat")
        assert heat.count() == len(cap.graphs[0].kernel(launch.kernel_name).source.split("\n"))
        hot.first.click()
        assert page.locator(".kv-source .kv-line.kv-current").get_attribute("data-line") == str(hottest)
        page.locator(".kv-counters").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "counters_light.png"), full_page=True)
        page.add_style_tag(content=DARK)
        page.screenshot(path=str(SHOTS / "counters_dark.png"), full_page=True)
        assert page.errors == []


@needs_browser
def test_extern_call_counters_and_the_sass_heat(tmp_path):
    cap = kernelviz.load(FIXTURES / "counters" / "h100" / "mm_relu.json")
    mm, relu = cap.launches
    assert mm.counters.kernels and not mm.kernel_name and relu.counters.sass
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.locator(".kv-row", has_text="mm").first.click()
        page.locator(".kv-tab", has_text="Kernel").click()
        text = page.locator(".kv-counters").inner_text()
        assert mm.counters.kernels[0] in text and "SM throughput" in text and page.locator(".kv-hot-line").count() == 0
        page.locator(".kv-row", has_text="relu").first.click()
        page.locator(".kv-tab", has_text="Compiled").click()
        page.locator(".kv-stage-tab", has_text="SASS").click()
        heat = page.locator(".kv-stage .kv-heat")
        hottest = max(relu.counters.sass, key=lambda s: s.stall_samples)
        hot_cell = page.locator(".kv-stage .kv-line", has_text=f"/*{hottest.line:04x}*/").locator(".kv-heat")
        assert heat.count() > len(relu.counters.sass) and hot_cell.inner_text() == str(hottest.stall_samples)
        page.screenshot(path=str(SHOTS / "counters_sass_light.png"), full_page=True)
        page.add_style_tag(content=DARK)
        page.screenshot(path=str(SHOTS / "counters_sass_dark.png"), full_page=True)
        assert page.errors == []


# the anywidget entry point (widget.js) with a model that stands in for the kernel's side of the comm: it
# answers "hello" as CaptureWidget does, and keeps what the panel sends
LIVE_PAGE = PANEL_PAGE.replace("""const t0 = performance.now();
window.view = renderCapture(document.getElementById("app"), data);""", """const handlers = {};
const state = { payload: await (await fetch("data.json")).json(), selected: "", progress: {} };
window.sent = [];
window.model = { get: (k) => state[k], set: (k, v) => { state[k] = v; }, save_changes() {},
  on: (ev, f) => { handlers[ev] = f; }, off() {},
  send: (msg) => { window.sent.push(msg); if (msg.type === "hello") handlers["msg:custom"]({ type: "hello" }); },
  deliver: (msg) => handlers["msg:custom"](msg),
  progress: (p) => { state.progress = p; handlers["change:progress"](); } };
await widget.render({ model: window.model, el: document.getElementById("app") });
const t0 = performance.now();""").replace('import { decodePayload, renderCapture } from "./panel.js";',
                                        'import widget, { decodePayload, renderCapture } from "./panel.js";')


@needs_browser
def test_measure_counters_in_the_live_panel_asks_the_kernel_and_shows_why_not(tmp_path):
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json")
    assert cap.graphs[0].device == "cuda" and cap.graphs[0].timed_on
    site = panel_site(tmp_path, json.dumps(payload(cap, per_kernel=False)))
    (site / "index.html").write_text(LIVE_PAGE)
    why = "counters not measured: no permission for GPU performance counters (ERR_NVGPUCTRPERM): see ..."
    with serve(site) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1000, "height": 800})
        page.goto(f"{url}/index.html")
        button = page.locator(".kv-counters-button")
        button.wait_for()
        assert button.inner_text() == "Measure counters" and page.locator(".kv-bench").inner_text() == "Time again"
        button.click()
        assert {"type": "counters"} in page.evaluate("window.sent")
        assert "starting" in page.locator(".kv-progress").inner_text() and button.count() == 0
        page.evaluate("window.model.progress({done: 1, total: 10, label: 'measuring counters of launch #3'})")
        assert "measuring counters of launch #3" in page.locator(".kv-progress").inner_text()
        page.evaluate("window.model.progress({})")
        page.evaluate(f"window.model.deliver({{type: 'note', text: {json.dumps(why)}}})")
        assert page.locator(".kv-toolbar .kv-note-line").inner_text() == why
        toolbar = page.locator(".kv-toolbar")
        assert toolbar.evaluate("t => t.scrollWidth <= t.clientWidth + 1")
        toolbar.screenshot(path=str(SHOTS / "counters_button_note_light.png"))
        page.locator(".kv-bench").click()  # timing again clears the line
        assert page.locator(".kv-note-line").count() == 0
        page.evaluate("window.model.progress({})")
        page.add_style_tag(content=DARK)
        toolbar.screenshot(path=str(SHOTS / "counters_button_dark.png"))
        assert page.errors == []
