"""The panel at output widths from 480 to 1,100 px, in JupyterLab's Light and Dark themes (their own CSS
variables), in plain Chromium: nothing scrolls sideways, every column in view shows its whole text, names
tell launches apart, the Compiled tab wraps its stages and hides line information; the panel picks among the
forms of names that Python made as names.py picks, and shows rates, % of roof and names as the payload's annex
has them (it computes none of them).

One page per capture; widths and themes change in place (the panel fits again on a resize), so a case costs
about a tenth of a second. ``KV_SHOTS=dir`` also writes screenshots at 568 px."""

import json
import os
import sys
from pathlib import Path

import pytest

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES, fill_timings
from kernelviz.names import column_labels, label, name_forms, short_path
from kernelviz.views.payload import payload, ranks_payload

WIDTHS = (480, 568, 800, 1100)
THEMES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "themes" / "@jupyterlab"
SHOTS = os.environ.get("KV_SHOTS")

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><link id="theme" rel="stylesheet" href="light.css">
<link rel="stylesheet" href="panel.css"><style>body { margin: 0; background: var(--jp-layout-color0, #fff); }</style>
</head><body><div id="app" style="width: 1100px"></div><script type="module">
import { decodePayload, renderCapture, nameLabel } from "./panel.js";
const data = await decodePayload(await (await fetch("data.json")).json());
window.view = renderCapture(document.getElementById("app"), data);
window.nameLabel = nameLabel;
</script></body></html>"""

# What must hold at any width, in the page: a list of what is wrong (empty when all is well).
CHECK = """(panel) => {
  const right = panel.getBoundingClientRect().right + 0.5;
  const bad = [];
  for (let p = panel.parentElement; p; p = p.parentElement)
    if (p.scrollWidth > p.clientWidth + 1 && getComputedStyle(p).overflowX !== "hidden")
      bad.push(`scrolls sideways around the panel: ${p.className || p.tagName} ${p.scrollWidth} > ${p.clientWidth}`);
  for (const el of panel.querySelectorAll("*")) {
    if (!el.offsetParent || el.closest(".kv-columns-list")) continue;
    if (el.clientWidth && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "hidden")
      bad.push(`scrolls sideways: ${el.className || el.tagName} ${el.scrollWidth} > ${el.clientWidth}`);
    const r = el.getBoundingClientRect();
    if (!r.width || r.right <= right || el.closest("svg")) continue;
    let clipped = false;  // inside something of the panel that clips it (an ellipsis, a scrolling pane)
    for (let p = el.parentElement; p && p !== panel && !clipped; p = p.parentElement)
      clipped = getComputedStyle(p).overflowX !== "visible";
    if (!clipped) bad.push(`past the panel: ${el.className || el.tagName} ${r.right} > ${right}`);
  }
  for (const cell of panel.querySelectorAll(".kv-table .kv-row td, .kv-table th")) {
    const inner = cell.querySelector(".kv-name-head") || cell;
    if (inner.scrollWidth > inner.clientWidth + 1)
      bad.push(`cut: "${cell.textContent}" ${inner.scrollWidth} > ${inner.clientWidth}`);
  }
  const seen = new Map();
  for (const row of panel.querySelectorAll(".kv-table .kv-row")) {
    const cell = row.cells[1], text = cell.textContent, full = cell.title;
    if (seen.has(text) && seen.get(text) !== full) bad.push(`two names read "${text}": ${seen.get(text)} and ${full}`);
    seen.set(text, full);
  }
  const tableFont = parseFloat(getComputedStyle(panel.querySelector(".kv-table td") || panel).fontSize);
  for (const text of panel.querySelectorAll(".kv-chart text")) {  // drawn at least as large as the table's text
    const svg = text.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const px = parseFloat(getComputedStyle(text).fontSize) * scale;
    if (px < tableFont - 0.5) { bad.push(`chart text ${px.toFixed(1)} px < the table's ${tableFont} px`); break; }
  }
  for (const pane of panel.querySelectorAll(".kv-source")) {
    const bar = pane.querySelector(".kv-source-bar"), first = pane.querySelector(".kv-line");
    if (bar && first && pane.scrollTop === 0
        && bar.getBoundingClientRect().bottom > first.getBoundingClientRect().top + 0.5)
      bad.push("a pane's bar covers its first line");
  }
  return bad;
}"""


def _theme_css(site: Path) -> None:
    for theme in ("light", "dark"):
        css = THEMES / f"theme-{theme}-extension" / "index.css"
        (site / f"{theme}.css").write_text(css.read_text() if css.exists() else "")


def _page(page, url: str) -> None:
    page.goto(f"{url}/widths.html")
    page.wait_for_selector(".kv-row")


def _look(page, width: int, theme: str) -> list[str]:
    page.evaluate("([w, t]) => { document.getElementById('app').style.width = w + 'px';"
                  " document.getElementById('theme').href = t + '.css'; }", [width, theme])
    page.wait_for_timeout(60)  # the resize observer fits the table again
    return page.locator(".kv-panel").first.evaluate(CHECK)


def _shot(page, name: str, selector: str = ".kv-panel") -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.locator(selector).first.screenshot(path=str(Path(SHOTS) / name))


def _site(tmp_path: Path, cap) -> Path:
    make = ranks_payload if isinstance(cap, kernelviz.Ranks) else payload
    site = panel_site(tmp_path, json.dumps(make(cap)))
    (site / "widths.html").write_text(PAGE)
    _theme_css(site)
    return site


CAPTURES = {
    "resnet18": lambda: fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py")),
    "gpt2_train_step": lambda: fill_timings(kernelviz.Capture(graphs=[
        kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / f"train_step_{i}.py").graphs[0] for i in (0, 1)])),
    "convnext_cpu": lambda: fill_timings(kernelviz.load(FIXTURES / "cpu-torch2.13" / "convnext_0.py"), peaks=False),
}


def _themes(name: str, width: int) -> tuple[str, ...]:
    """resnet18 in both themes at every width; the others in Light, and in Dark at 568 px (the screenshots')."""
    return ("light", "dark") if name == "resnet18" or width == 568 else ("light",)


@needs_browser
@pytest.mark.parametrize("name", list(CAPTURES))
def test_table_and_detail_fit_every_width_in_both_themes(tmp_path, name):
    cap = CAPTURES[name]()
    with serve(_site(tmp_path, cap)) as url, chromium_page() as page:
        _page(page, url)
        for graph in range(len(cap.graphs)):
            if len(cap.graphs) > 1:
                page.select_option(".kv-graph", str(graph))
            for width in WIDTHS:
                for theme in _themes(name, width):
                    assert _look(page, width, theme) == [], (name, graph, width, theme)
                shown = [c.strip(" ▲▼") for c in page.locator(".kv-table th").all_inner_texts()]
                assert shown[:2] == ["#", "launch"] and "in-graph ms" in shown, (width, shown)
                page.locator(".kv-columns summary").click()
                dropped = page.locator(".kv-columns-list .kv-dropped").all_inner_texts()
                page.locator(".kv-columns summary").click()
                assert len(shown) + len(dropped) == 9, (width, shown, dropped)  # the chooser names what is left out
                assert all("no room at this width" in d or "no figures yet" in d for d in dropped)
                if width == 1100:
                    assert all("no figures yet" in d for d in dropped), shown
            page.locator(".kv-row").filter(has_text="_").first.click()  # a generated kernel's row
            for width in WIDTHS:
                for theme in _themes(name, width):
                    assert _look(page, width, theme) == [], ("detail", name, width, theme)
                    if width == 568:
                        for part in ("charts", "table-wrap", "detail"):
                            _shot(page, f"{name}_{part}_{theme}.png", f".kv-{part}")
            page.locator(".kv-tab", has_text="Wrapper").click()
            for width in WIDTHS:
                assert _look(page, width, "light") == [], ("wrapper", name, width)
            page.locator(".kv-tab", has_text="Kernel").click()
        if cap.peaks is None:  # the roofline says its ceilings are not known: then no % of a roof anywhere
            assert "not known" in page.locator(".kv-roofline").inner_text()
            heads = [c.strip(" ▲▼") for c in page.locator(".kv-table th").all_inner_texts()]
            assert "% roof" not in heads and "in-graph ms" in heads  # no column without figures
            assert "% of peak" not in page.locator(".kv-detail").inner_text()
        assert page.errors == []


def _deep_capture():
    cap = kernelviz.Capture.from_json((FIXTURES / "deep" / "h100_capture.json").read_text())
    cap.graphs.append(kernelviz.Graph(id="cpp_wrapper", kind="inference", device="cuda",
                                      code=(FIXTURES / "deep" / "cpp_wrapper_0.code").read_text()))
    return cap


@needs_browser
def test_compiled_tab_wraps_stages_hides_line_info_and_hip_tab_fits(tmp_path):
    from kernelviz.ir.hip import hipify

    hipify("")  # the mapping loaded in this process, so the page carries each graph's HIP reading
    cap = _deep_capture()
    with serve(_site(tmp_path, cap)) as url, chromium_page() as page:
        _page(page, url)
        page.select_option(".kv-graph", "1")
        page.locator(".kv-row").first.click()
        page.locator(".kv-tab", has_text="Compiled").click()
        page.wait_for_selector(".kv-stage")
        page.locator(".kv-stage-tab", has_text="SASS").click()
        stage = page.locator(".kv-stage")
        info = stage.locator(".kv-line.kv-lineinfo")
        assert info.count() > 20 and all(not el.is_visible() for el in info.all()[:5])  # `//## File` markers hidden
        assert "//## File" not in stage.inner_text()
        for width in WIDTHS:
            for theme in ("light", "dark"):
                assert _look(page, width, theme) == [], ("compiled", width, theme)
                if width == 568:
                    _shot(page, f"compiled_{theme}.png", ".kv-detail")
            panes = page.evaluate("() => [...document.querySelectorAll('.kv-split > .kv-source')]"
                                  ".map((p) => Math.round(p.getBoundingClientRect().left))")
            assert (panes[0] == panes[1]) == (width < 900), (width, panes)  # stacked below 900 px, else side by side
        # a source line lights its SASS lines, and the first shown of them is scrolled into the stage pane
        store = next(i + 1 for i, t in enumerate(cap.graphs[1].kernels[0].source.splitlines()) if "tl.store(" in t)
        page.locator(".kv-compiled-source .kv-line").nth(store - 1).click()
        assert stage.evaluate("p => { const l = [...p.querySelectorAll('.kv-lit')].find((l) => l.offsetParent);"
                              " return l && l.offsetTop >= p.scrollTop"
                              " && l.offsetTop < p.scrollTop + p.clientHeight; }")
        page.locator(".kv-lineinfo-toggle input").check()
        assert info.first.is_visible() and "//## File" in stage.inner_text()
        assert _look(page, 480, "light") == []
        page.select_option(".kv-graph", "2")
        page.locator(".kv-tab", has_text="HIP").click()
        page.wait_for_selector(".kv-hip-part")
        for width in WIDTHS:
            assert _look(page, width, "dark") == [], ("hip", width)
        assert page.errors == []


NAMES = [(launch.name, list(launch.original_aten), launch.kernel_name is not None)
         for path in ("cuda-h100-torch2.11/resnet18_0.py", "cuda-h100-torch2.11/train_step_1.py",
                      "cuda-h100-torch2.11/attention_0.py", "cpu-torch2.13/convnext_0.py")
         for launch in kernelviz.load(FIXTURES / path).graphs[0].launches]


@needs_browser
def test_names_js_picks_the_forms_names_py_picks(tmp_path):
    """The panel gets each name's forms from Python and only picks the one that fits: at every budget and level
    (down to where no form fits and the ops are cut) it picks what names.py does."""
    site = _site(tmp_path, kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"))
    forms = [name_forms(n, tuple(a), g).to_json() for n, a, g in NAMES]
    with serve(site) as url, chromium_page() as page:
        _page(page, url)
        for budget in (8, 12, 20, 32, 60):
            for level in (0, 2, 3):
                js = page.evaluate("([forms, b, l]) => forms.map((f) => window.nameLabel(f, b, l))",
                                   [forms, budget, level])
                assert js == [label(n, a, budget, generated=g, level=level) for n, a, g in NAMES], (budget, level)


@needs_browser
def test_panel_rows_show_what_the_payload_annex_says(tmp_path):
    """Figures, rates, % of roof and names are read from the view annex, not worked out from the model: an annex
    that says what the model would not give is shown as it says."""
    cap = CAPTURES["resnet18"]()
    data = payload(cap)
    launches = cap.graphs[0].launches
    first, second = launches[0], launches[1]
    annex = data["view"]["launches"][0]
    assert annex["rates"][str(first.index)] and annex["roofs"][str(first.index)]  # the model gives both
    annex["rates"][str(first.index)] = [123.0, "GB/s bus", False]
    annex["roofs"][str(first.index)] = [42.0, "made-up peak", "flop"]
    annex["texts"][str(first.index)] |= {"rate": "123 GB/s bus", "pct": "42%", "pct_exact": "42.0%", "ms": "7.77"}
    annex["names"][first.name] = [["made up"] * 4, "_99", ["made"]]
    del annex["rates"][str(second.index)], annex["roofs"][str(second.index)]
    site = panel_site(tmp_path, json.dumps(data))
    (site / "widths.html").write_text(PAGE)
    _theme_css(site)
    with serve(site) as url, chromium_page() as page:
        _page(page, url)
        heads = [c.strip(" ▲▼") for c in page.locator(".kv-table th").all_inner_texts()]
        rows = page.locator(".kv-table .kv-row")
        cells = dict(zip(heads, rows.nth(0).locator("td").all_inner_texts()))
        name = rows.nth(0).locator("td").nth(1)
        assert [name.locator(".kv-name-head").inner_text(), name.locator(".kv-name-tail").inner_text()] == [
            "made up", "_99"] and name.get_attribute("title") == first.name
        assert cells["achieved"] == "123 GB/s bus" and cells["% roof"] == "42% flop" and cells["in-graph ms"] == "7.77"
        assert rows.nth(0).locator("td").nth(heads.index("% roof")).get_attribute("title").startswith(
            "42.0% of the made-up peak")
        cells = dict(zip(heads, rows.nth(1).locator("td").all_inner_texts()))
        assert cells["achieved"] == "" and cells["% roof"] == "" and cells["bound"]  # the model's bound stays
        assert page.errors == []


def test_a_payload_saved_before_the_annex_held_rates_says_so(tmp_path):
    """A timed capture saved by a kernelviz whose view annex held no figures as text: the panel says why none are
    shown."""
    data = payload(CAPTURES["resnet18"]())
    del data["view"]["launches"]
    site = panel_site(tmp_path, json.dumps(data))
    (site / "widths.html").write_text(PAGE)
    _theme_css(site)
    with serve(site) as url, chromium_page() as page:
        _page(page, url)
        assert "saved by an older kernelviz: its times, rates and % of roof are not in this output" in page.locator(
            ".kv-header").inner_text()
        heads = [c.strip(" ▲▼") for c in page.locator(".kv-table th").all_inner_texts()]
        cells = dict(zip(heads, page.locator(".kv-table .kv-row").nth(0).locator("td").all_inner_texts()))
        assert "achieved" not in cells and cells["in-graph ms"] == ""  # no figure is worked out in the browser
        assert page.errors == []
        data = payload(CAPTURES["resnet18"]())  # as saved now: no such line
    (tmp_path / "now").mkdir()
    site = panel_site(tmp_path / "now", json.dumps(data))
    (site / "widths.html").write_text(PAGE)
    with serve(site) as url, chromium_page() as page:
        _page(page, url)
        assert "older kernelviz" not in page.locator(".kv-header").inner_text()


def test_names_say_what_a_launch_computes():
    name = "triton_poi_fused__native_batch_norm_legit_no_training_add_relu_3"
    aten = ["aten._native_batch_norm_legit_no_training", "aten.add", "aten.relu"]
    assert label(name, aten, 80) == "_native_batch_norm_legit_no_training · add · relu _3"
    assert label(name, aten, 30) == "batch_norm · add · relu _3"
    assert label(name, aten, 24) == "batch_norm·add·relu _3"
    assert label(name, aten, 16) == "batch_norm… _3"
    assert label("extern_kernels.convolution", generated=False) == "convolution"
    assert label("aten._scaled_dot_product_efficient_attention.default", generated=False, budget=60) \
        == "_scaled_dot_product_efficient_attention"
    assert label("cpp_fused_add_mean_mul_native_layer_norm_permute_view_8", budget=32) \
        == "add · mean · mul · layer_norm _8"  # view-like ops give way first
    assert label("triton_poi_fused_0") == "triton_poi_fused _0"
    for budget in (12, 16, 24, 40):
        for n, a, g in NAMES:
            assert len(label(n, a, budget, generated=g)) <= max(budget, 12), (n, budget)
    resnet = [(launch.name, launch.original_aten, launch.kernel_name is not None)
              for launch in kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py").graphs[0].launches]
    shown = column_labels(resnet, 40)  # one op reads the same in every row
    assert "batch_norm · relu _0" in shown and not any("_native_batch_norm" in s for s in shown)
    assert column_labels(resnet, 80)[1] == "_native_batch_norm_legit_no_training · relu _0"
    assert short_path("/tmp/torchinductor_root/ab/cabcdef0123456789.py:31", 26) == "…/cabcdef0123456789.py:31"
    assert short_path("<cell>:6") == "<cell>:6"



@needs_browser
def test_in_jupyterlab_default_layout_at_every_width_and_theme(tmp_path):
    """JupyterLab at a 1000-px window with its file browser open (the default layout): the output area is
    about 568 px; then the window is sized so the output is each of WIDTHS wide, in Light and Dark."""
    pytest.importorskip("jupyterlab")
    pytest.importorskip("nbclient")
    from test_jupyterlab import _command, _fit, _lab_ready, _open, _timed_notebook

    from jupyterlab_support import jupyterlab

    _timed_notebook(tmp_path / "timed.ipynb")
    with jupyterlab(tmp_path) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1000, "height": 900})
        _lab_ready(page, url)
        assert page.locator(".jp-FileBrowser").is_visible()  # the default layout: the file browser is open
        _open(page, url, "timed.ipynb")
        panel = page.locator(".jp-RenderedKernelviz:visible .kv-panel").first
        default = panel.evaluate("p => Math.round(p.getBoundingClientRect().width)")
        print(f"\noutput width at a 1000-px window with the file browser open: {default} px")
        assert 540 <= default <= 600, default
        assert panel.evaluate(CHECK) == [], "at JupyterLab's default layout"
        panel.locator(".kv-row").filter(has_text="_").first.click()
        for theme in ("Light", "Dark"):
            _command(page, "apputils:change-theme", {"theme": f"JupyterLab {theme}"})
            page.wait_for_timeout(1200)
            for width in WIDTHS:
                _fit(page, width)
                page.wait_for_timeout(100)
                assert panel.evaluate(CHECK) == [], (theme, width)
                if width == 568 and SHOTS:
                    panel.scroll_into_view_if_needed()
                    page.screenshot(path=str(Path(SHOTS) / f"jupyterlab_568_{theme.lower()}.png"))
        assert page.errors == []


def test_text_summary_heads_its_columns_at_the_terminals_width(monkeypatch):
    from kernelviz.model import DynamoEvent
    from kernelviz.views.text import summary

    reason = ("Unsupported Tensor.backward() call\n  Explanation: Dynamo currently does not support tracing "
              "`Tensor.backward()` when trace_autograd_ops is off.\n  Hint: Set torch._dynamo.trace_autograd_ops=True")
    for name, make in CAPTURES.items():
        cap = make()
        cap.graphs[0].cache, cap.graphs[0].compile_s = "fx_cache_hit", 0.001
        cap.dynamo = [DynamoEvent("graph_break", reason, "/home/me/train.py", 19, "step", "loss.backward()")]
        for width in (60, 80, 132):
            monkeypatch.setenv("COLUMNS", str(width))
            lines = summary(cap).splitlines()
            assert all(len(line) <= width or " " not in line.strip() for line in lines), (name, width)  # or a name
            story = next(line for line in lines if "FX graph cache" in line)
            assert story.strip() == "1 graph from Inductor's FX graph cache", story  # a hit is no 0.00 s compile
            text = " ".join(line.strip() for line in lines)
            assert "(loss.backward()): expected: Unsupported Tensor.backward() call" in text  # no failure: a line
            assert "Hint: Set" not in text  # dynamo's whole reason is on the event (cap.dynamo)
            heads = [line.split() for line in lines if line.strip().startswith("#  launch")]
            assert len(heads) == len(cap.graphs) and all(h[:4] == ["#", "launch", "kind", "in-graph"] for h in heads)
            assert ("name" in heads[0]) == (width >= 132), (name, width, heads[0])  # the full name where room is left


@needs_browser
@pytest.mark.parametrize("world", [4, 16, 20])  # a column per rank, one cell per launch, percentiles
def test_ranks_tab_fits_every_width(tmp_path, world):
    from test_ranks import _synthetic_job

    (tmp_path / "job").mkdir()
    ranks = kernelviz.load(_synthetic_job(tmp_path / "job", world, slow_rank=2, busy_rank=1))
    with serve(_site(tmp_path, ranks)) as url, chromium_page() as page:
        _page(page, url)
        page.wait_for_selector(".kv-rank-split")
        for width in WIDTHS:
            assert _look(page, width, "dark" if width == 568 else "light") == [], ("ranks", world, width)
            if width == 568:
                _shot(page, f"ranks_{world}.png", ".kv-detail")
        assert page.errors == []


def test_str_of_a_capture_is_its_text_summary(monkeypatch):
    from kernelviz.views.text import summary

    monkeypatch.setenv("COLUMNS", "100")
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    assert str(cap) == summary(cap, 100) and str(cap).startswith("kernelviz: 1 graph")
    assert repr(cap).startswith("kernelviz: 1 graph") and len(repr(cap).splitlines()) <= 3  # the head, not the data
