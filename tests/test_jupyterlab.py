"""The prebuilt JupyterLab extension in a real JupyterLab, driven by Playwright in Debian's Chromium:
a saved capture renders from its JSON with the kernel stopped, and the quickstart runs live."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from browser import chromium_page, needs_browser
from conftest import big_capture

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupyterlab")
import kernelviz  # noqa: E402
from jupyterlab_support import api, jupyterlab, readme_lab  # noqa: E402
from kernelviz.notebook.panel_code import STATIC  # noqa: E402
from kernelviz.views.payload import capture_from_bundle  # noqa: E402

pytestmark = needs_browser
ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "notebooks" / "quickstart.ipynb"
GPU_TOUR = ROOT / "notebooks" / "gpu_tour.ipynb"
SHOTS = ROOT / "out"
KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def _saved_notebook(path: Path) -> None:
    """A notebook whose output holds a capture of a real compile (run by nbclient, then saved)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import torch, kernelviz\n"
        "def f(x, w):\n    return torch.relu(torch.nn.functional.layer_norm(x, (64,), w)) @ w.view(64, 1)\n"
        "with kernelviz.capture() as cap:\n    torch.compile(f)(torch.randn(8, 64), torch.randn(64))\ncap")],
        metadata=KERNELSPEC)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    nbformat.write(nb, path)


def _big_notebook(path: Path, kernels: int = 200) -> int:
    """A saved notebook with a capture of at least ``kernels`` kernels (real H100 fixtures, repeated)."""
    from kernelviz.notebook.display import static_bundle

    cap = big_capture(kernels)
    cell = nbformat.v4.new_code_cell("cap", outputs=[nbformat.v4.new_output(
        "display_data", data=json.loads(json.dumps(static_bundle(cap))))])
    nbformat.write(nbformat.v4.new_notebook(cells=[cell], metadata=KERNELSPEC), path)
    return len(cap.kernels)


def _command(page, command: str, args: dict) -> None:
    page.evaluate("([c, a]) => { window.jupyterapp.commands.execute(c, a); return null; }", [command, args])


def _open(page, url: str, name: str) -> float:
    """Open a notebook in a running JupyterLab; seconds until the kernel table shows."""
    start = page.evaluate("performance.now()")
    _command(page, "docmanager:open", {"path": name})
    # the notebook in front is this one (not the one opened before, still shown for a moment) and shows its table
    page.wait_for_function("""(name) => { const w = window.jupyterapp.shell.currentWidget;
        return w && w.context && w.context.path === name && !w.node.classList.contains("lm-mod-hidden")
          && [...w.node.querySelectorAll(".jp-RenderedKernelviz .kv-row")].some((r) => r.offsetParent); }""",
                           arg=name, timeout=60000)
    return (page.evaluate("performance.now()") - start) / 1000


def _shut_kernel(page) -> None:
    """Shut the kernel of the notebook in front down through its session, once that session has settled: a kernel
    deleted through the REST API while the notebook still starts one races it (the server answers 500 while
    the new kernel is half made)."""
    page.evaluate("""async () => { const ctx = window.jupyterapp.shell.currentWidget.sessionContext;
        await ctx.ready; await ctx.shutdown(); }""")


def _lab_ready(page, url: str) -> None:
    page.goto(f"{url}/lab?reset")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=90000)
    page.wait_for_selector(".jp-DirListing-content", timeout=90000)


# WCAG contrast of an element's text against what is painted behind it (backgrounds blended up the tree).
CONTRAST = """el => {
    const parse = c => { const m = c.match(/[\\d.]+/g).map(Number);
                         return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
    const over = (top, below) => top.slice(0, 3).map((v, i) => v * top[3] + below[i] * (1 - top[3])).concat([1]);
    const layers = [];
    for (let n = el; n; n = n.parentElement) layers.push(parse(getComputedStyle(n).backgroundColor));
    let bg = [255, 255, 255, 1];
    for (const layer of layers.reverse()) bg = over(layer, bg);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const lum = c => { const [r, g, b] = c.slice(0, 3).map(lin);
                       return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
}"""


def _timed_notebook(path: Path) -> None:
    """A saved notebook holding a capture of real H100 output code with timing numbers, a compile story and a
    graph break (a test of drawing, not of timing)."""
    import kernelviz
    from conftest import FIXTURES, fill_timings
    from kernelviz.model import DynamoEvent
    from kernelviz.notebook.display import static_bundle

    cap = fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"))
    cap.device_name, cap.torch_version, cap.triton_version = "NVIDIA H100 80GB HBM3", "2.11.0+cu130", "3.6.0"
    cap.graphs[0].cache, cap.graphs[0].compile_s = "compiled", 3.21
    cap.dynamo = [DynamoEvent("graph_break", "Unsupported: call_function print in skip_files", "model.py", 42,
                              "forward", "print(x.shape)")]
    cell = nbformat.v4.new_code_cell("cap", outputs=[nbformat.v4.new_output(
        "display_data", data=json.loads(json.dumps(static_bundle(cap))))])
    nbformat.write(nbformat.v4.new_notebook(cells=[cell], metadata=KERNELSPEC), path)


def _fit(page, width: int = 1000) -> None:
    """Size the window so that the visible panel is ``width`` px wide (the notebook lays its cells out again
    after a resize, so a panel may be away for a moment)."""
    for _ in range(12):
        got = page.evaluate("(() => { const p = [...document.querySelectorAll('.kv-panel')].find(p => p.offsetWidth);"
                            " return p ? Math.round(p.getBoundingClientRect().width) : null; })()")
        if got is None:
            page.wait_for_timeout(500)
            continue
        if abs(got - width) <= 2:
            return
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"] + width - got, "height": size["height"]})
        page.wait_for_timeout(300)
    raise AssertionError(f"no panel {width} px wide")


def _shot(page, name: str) -> None:
    """A screenshot with the top of the first visible panel at the top of the notebook."""
    page.evaluate("[...document.querySelectorAll('.kv-panel')].find(p => p.offsetWidth)"
                  ".scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / name))


def _check_view(page, theme: str) -> None:
    """At 1000 px: no horizontal overflow; the charts select rows; highlighted states at 4.5:1 or better;
    the source pane scrolls to a node's lines and stays put when a line is clicked."""
    panel = page.locator(".jp-RenderedKernelviz:visible .kv-panel").first
    _fit(page)
    wrap = panel.locator(".kv-table-wrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), f"{theme}: the table scrolls sideways at 1000 px"
    headers = panel.locator(".kv-table th").all_inner_texts()
    assert [h.strip(" ▲▼") for h in headers] == ["#", "launch", "kind", "in-graph ms", "share", "isolated ms",
                                                 "achieved", "% roof", "bound"]
    point = panel.locator(".kv-roofline-flops .kv-point").nth(2)
    point.click()
    key = point.get_attribute("data-key")
    assert panel.locator(".kv-row.kv-selected").get_attribute("data-key") == key
    span = panel.locator(".kv-timeline .kv-span").nth(5)
    span.click()
    assert panel.locator(".kv-row.kv-selected").get_attribute("data-key") == span.get_attribute("data-key")
    ratios = {"selected row": panel.locator(".kv-row.kv-selected td").nth(1).evaluate(CONTRAST)}
    wrap.evaluate("w => { w.scrollTop = w.scrollHeight; }")
    panel.locator(".kv-gap-row").wait_for()  # the last row, drawn once scrolled into view
    wrap.evaluate("w => { w.scrollTop = 0; }")
    panel.locator(".kv-row").filter(has=page.locator("td[title^='triton_poi']")).first.click()  # the full name
    page.wait_for_selector(".jp-RenderedKernelviz:visible .kv-source.kv-highlighted")
    source = panel.locator(".kv-source")
    node = panel.locator(".kv-node.kv-linked").last
    node.click()
    lit = panel.locator(".kv-line.kv-lit").first
    assert lit.is_visible()
    assert source.evaluate("s => { const l = s.querySelector('.kv-lit'); return l.offsetTop >= s.scrollTop && "
                           "l.offsetTop < s.scrollTop + s.clientHeight; }"), "the first lit line is not in view"
    ratios["lit line"] = lit.evaluate(CONTRAST)
    ratios["selected node"] = panel.locator(".kv-node.kv-selected td").first.evaluate(CONTRAST)
    before = source.evaluate("s => s.scrollTop")
    lit.click()
    assert source.evaluate("s => s.scrollTop") == before, "clicking a line scrolled the source pane"
    ratios["lit node"] = panel.locator(".kv-node.kv-lit td").first.evaluate(CONTRAST)
    panel.locator(".kv-tab", has_text="Wrapper").click()
    ratios["peak row"] = panel.locator(".kv-peak td").nth(2).evaluate(CONTRAST)
    panel.locator(".kv-tab", has_text="Kernel").click()
    print(f"\n{theme} contrast: " + ", ".join(f"{k} {v:.1f}" for k, v in ratios.items()))
    assert all(v >= 4.5 for v in ratios.values()), ratios


def test_saved_capture_renders_without_a_kernel(tmp_path):
    _saved_notebook(tmp_path / "saved.ipynb")
    _timed_notebook(tmp_path / "timed.ipynb")
    kernels = _big_notebook(tmp_path / "big.ipynb")
    shutil.copy(GPU_TOUR, tmp_path / "gpu_tour.ipynb")
    SHOTS.mkdir(exist_ok=True)
    with jupyterlab(tmp_path) as url, chromium_page() as page:
        _lab_ready(page, url)
        _open(page, url, "saved.ipynb")
        _shut_kernel(page)  # what is shown must not need a kernel
        assert api(url, "/api/kernels") == []
        panel = page.locator(".jp-RenderedKernelviz")
        assert panel.count() == 1
        rows = panel.locator(".kv-row")
        assert rows.count() >= 2
        rows.filter(has=page.locator("td[title^='cpp_fused']")).first.click()  # names show the ops, titles in full
        page.wait_for_selector(".jp-RenderedKernelviz .kv-source.kv-highlighted")
        assert panel.locator(".kv-tok-k").count() > 0  # pygments tokens, built as spans from text
        assert "Source nodes → ATen ops" in panel.locator(".kv-meta").inner_text()
        assert panel.locator(".kv-detail-title").inner_text().startswith("cpp_fused")
        page.set_viewport_size({"width": 1400, "height": 1300})
        _open(page, url, "timed.ipynb")
        timed = page.locator(".jp-RenderedKernelviz:visible .kv-panel").first
        header = timed.locator(".kv-header").inner_text()
        assert "compiled 1 graph in 3.21 s" in header and "graph break" in header and "print(x.shape)" in header
        _check_view(page, "Light")
        _shot(page, "jupyterlab_saved_light.png")
        _command(page, "apputils:change-theme", {"theme": "JupyterLab Dark"})
        page.wait_for_timeout(1500)
        _check_view(page, "Dark")
        _shot(page, "jupyterlab_saved_dark.png")
        _open(page, url, "gpu_tour.ipynb")
        _fit(page)
        _shot(page, "jupyterlab_gpu_tour_dark.png")
        _command(page, "apputils:change-theme", {"theme": "JupyterLab Light"})
        page.wait_for_timeout(1500)
        _shot(page, "jupyterlab_gpu_tour_light.png")
        seconds = _open(page, url, "big.ipynb")
        print(f"\n{kernels}-kernel saved capture: table visible {seconds * 1000:.0f} ms after docmanager:open")
        assert page.errors == []


def _output_data(page, cell: int) -> list:
    return page.evaluate("""i => {
        const outputs = window.jupyterapp.shell.currentWidget.content.widgets[i].model.outputs;
        const out = []; for (let j = 0; j < outputs.length; j++) out.push(outputs.get(j).toJSON());
        return out; }""", cell)


# the widget state an older kernelviz's panel left in a notebook that nbclient ran: its style sheet, under the id
# this kernelviz's widget has, keeps every header of the launch table on one line, cut
STALE_WIDGET_STATE = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {
    "0123456789abcdef0123456789abcdef": {
        "model_module": "anywidget", "model_module_version": "~0.11.*", "model_name": "AnyModel",
        "state": {"_anywidget_id": "kernelviz.views.widget.CaptureWidget", "_dom_classes": [],
                  "_css": ".kv-panel .kv-table th { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }",
                  "_esm": "export default { render() {} };", "_model_module": "anywidget",
                  "_model_module_version": "~0.11.*", "_model_name": "AnyModel", "_view_count": None,
                  "_view_module": "anywidget", "_view_module_version": "~0.11.*", "_view_name": "AnyView",
                  "payload": {}, "progress": {}, "selected": ""}}}}}


# the style sheet under the live widget's id (anywidget's), as the live panels leave it
WIDGET_SHEET = "document.getElementById('kernelviz.views.widget.CaptureWidget')?.textContent ?? null"


def test_quickstart_runs_live_in_jupyterlab(tmp_path):
    """The live widget shows (Time kernels works, progress in the panel, the saved parts follow) while the
    kernel runs; the saved view comes back when it is shut down; the notebook keeps one output per capture."""
    nb = nbformat.read(QUICKSTART, as_version=4)
    for cell in nb.cells:
        cell.outputs = [] if cell.cell_type == "code" else cell.get("outputs")
    nb.metadata["widgets"] = STALE_WIDGET_STATE  # as an older kernelviz, run by nbclient, saved it
    nbformat.write(nb, tmp_path / "quickstart.ipynb")
    with jupyterlab(tmp_path) as url, chromium_page() as page:
        _lab_ready(page, url)
        _command(page, "docmanager:open", {"path": "quickstart.ipynb"})
        page.wait_for_selector(".jp-Notebook", timeout=60000)
        page.wait_for_function("document.querySelector('.jp-Notebook') && "
                               "window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel", timeout=60000)
        _command(page, "notebook:run-all-cells", {})
        page.wait_for_function("document.querySelectorAll('.jp-RenderedKernelviz .kv-panel.kv-live').length >= 3",
                               timeout=300000)
        live = page.locator(".jp-RenderedKernelviz .kv-panel.kv-live")
        assert page.locator(".jp-KernelvizSaved:visible").count() == 0
        assert page.evaluate(WIDGET_SHEET) == "", "the live panel did not draw with the extension's panel and style"
        step = live.nth(1)
        assert "2 graphs (1 forward, 1 backward)" in step.locator(".kv-header").inner_text()
        heads = step.locator(".kv-table th")  # this kernelviz's style sheet, not the saved state's: headers wrap
        assert heads.count() > 5 and heads.evaluate_all("hs => hs.filter(h => h.scrollWidth > h.clientWidth + 1)"
                                                        ".map(h => h.textContent)") == []
        step.locator(".kv-row").first.click()
        assert "in-graph" in step.locator(".kv-detail").inner_text()  # timed by --bench
        cells = page.evaluate("window.jupyterapp.shell.currentWidget.content.widgets.length")
        bench_cell = next(i for i in range(cells) if "--bench" in page.evaluate(
            "i => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.source", i))
        outputs = _output_data(page, bench_cell)
        assert len(outputs) == 1 and kernelviz.MIME_TYPE in outputs[0]["data"]  # no progress bar left behind
        fwd = live.nth(0)
        fwd.locator(".kv-bench").click()
        fwd.locator(".kv-bench", has_text="Time again").wait_for(timeout=120000)
        fwd_cell = bench_cell - 3
        for _ in range(60):  # the saved parts are refreshed once the timing's output has reached the page
            saved = capture_from_bundle(_output_data(page, fwd_cell)[0]["data"][kernelviz.MIME_TYPE])
            if saved.graphs[0].launches[0].timing is not None:
                break
            page.wait_for_timeout(500)
        assert saved.graphs[0].launches[0].timing.in_graph_ms > 0  # the saved parts were refreshed
        _fit(page)
        step.evaluate("p => p.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SHOTS / "jupyterlab_live_light.png"))
        _command(page, "apputils:change-theme", {"theme": "JupyterLab Dark"})
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / "jupyterlab_live_dark.png"))
        for kernel in api(url, "/api/kernels"):
            api(url, f"/api/kernels/{kernel['id']}", "DELETE")
        page.wait_for_function("document.querySelectorAll('.jp-RenderedKernelviz .kv-panel.kv-live').length == 0 && "
                               "[...document.querySelectorAll('.jp-KernelvizSaved')].filter(e => e.offsetParent)"
                               ".length >= 3", timeout=60000)
        saved_fwd = page.locator(".jp-KernelvizSaved .kv-panel").first
        assert saved_fwd.locator(".kv-row td").nth(3).inner_text().strip() != ""  # its timing, from the JSON
        assert page.evaluate("document.body.innerText.includes('Error displaying widget')") is False
        assert page.errors == []


def test_readme_lab_command_runs_the_quickstart(tmp_path):
    """The README's third command, as written there (its venv made already): the URL it prints opens the
    quickstart in JupyterLab, and running every cell shows a live panel per capture."""
    command = subprocess.run(["bash", str(ROOT / ".ci" / "readme-command"), "lab"], capture_output=True, text=True,
                             check=True).stdout.strip()
    (tmp_path / "notebooks").mkdir()
    shutil.copy(QUICKSTART, tmp_path / "notebooks")
    with readme_lab(command, tmp_path) as url, chromium_page() as page:
        assert "/lab/tree/notebooks/quickstart.ipynb?token=" in url
        page.goto(url)
        page.wait_for_function("window.jupyterapp?.shell.currentWidget?.context?.path === 'notebooks/quickstart.ipynb'"
                               " && window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel",
                               timeout=60000)
        _command(page, "notebook:run-all-cells", {})
        page.wait_for_function("document.querySelectorAll('.jp-RenderedKernelviz .kv-panel.kv-live').length >= 3",
                               timeout=60000)
        headers = page.locator(".jp-RenderedKernelviz .kv-panel.kv-live .kv-header").all_inner_texts()
        assert "2 graphs (1 forward, 1 backward)" in headers[1]
        assert page.errors == []


def test_saved_capture_renders_in_notebook_7(tmp_path):
    pytest.importorskip("notebook")
    _saved_notebook(tmp_path / "saved.ipynb")
    with jupyterlab(tmp_path, app="notebook") as url, chromium_page() as page:
        page.goto(f"{url}/notebooks/saved.ipynb")
        page.wait_for_selector(".jp-RenderedKernelviz .kv-row", timeout=90000)
        page.locator(".jp-RenderedKernelviz .kv-row").filter(has=page.locator("td[title^='cpp_fused']")).first.click()
        page.wait_for_selector(".jp-RenderedKernelviz .kv-source.kv-highlighted")
        page.screenshot(path=str(SHOTS / "notebook7_saved.png"))
        # Notebook 7.6.5's own settings loader throws once at start-up (also on its file browser page)
        assert [e for e in page.errors if "kernelviz" in e] == []


def test_panel_draws_without_the_extension(tmp_path):
    """Where the extension is missing (as in VS Code or Colab), the widget's loader draws the panel with the one
    copy of its code that the notebook holds: the saved panels of a notebook run by nbclient, then the live ones."""
    from nbformat.sign import NotebookNotary

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in (
        "import torch, kernelviz\n"
        "with kernelviz.capture() as cap:\n    torch.compile(lambda x: torch.relu(x) + 1)(torch.randn(64))",
        "cap", "cap")], metadata=KERNELSPEC)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True).execute()
    NotebookNotary().sign(nb)  # JupyterLab draws the widgets of a trusted notebook only
    nbformat.write(nb, tmp_path / "two.ipynb")
    with jupyterlab(tmp_path, disabled=("kernelviz-labextension",)) as url, chromium_page() as page:
        _lab_ready(page, url)
        _command(page, "docmanager:open", {"path": "two.ipynb"})
        page.wait_for_function("document.querySelectorAll('.kv-panel .kv-row').length >= 2", timeout=120000)
        assert page.locator(".kv-panel").count() == 2 and page.locator(".kv-panel.kv-live").count() == 0
        assert page.locator(".jp-RenderedKernelviz").count() == 0  # the extension is off: ipywidgets draws them
        page.wait_for_function("window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel",
                               timeout=60000)
        _command(page, "notebook:run-all-cells", {})
        page.wait_for_function("document.querySelectorAll('.kv-panel.kv-live').length == 2", timeout=120000)
        assert page.evaluate(WIDGET_SHEET) == (STATIC / "panel.css").read_text()
        panel = page.locator(".kv-panel.kv-live").nth(1)
        panel.locator(".kv-row").filter(has=page.locator("td[title^='cpp_fused']")).first.click()
        page.wait_for_selector(".kv-panel.kv-live .kv-source.kv-highlighted")  # the kernel's tokens, asked of Python
        assert panel.locator(".kv-detail-title").inner_text().startswith("cpp_fused")
        assert panel.locator(".kv-row.kv-selected").evaluate("r => getComputedStyle(r).backgroundColor") \
            not in ("rgba(0, 0, 0, 0)", "transparent")  # styled by the notebook's copy of panel.css
        assert page.errors == []
