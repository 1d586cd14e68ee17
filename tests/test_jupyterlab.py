"""The prebuilt JupyterLab extension in a real JupyterLab, driven by Playwright in Debian's Chromium:
a saved capture renders from its JSON with the kernel stopped, and the quickstart runs live."""

import json
from pathlib import Path

import pytest

from browser import chromium_page, needs_browser
from conftest import big_capture

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupyterlab")
from jupyterlab_support import api, jupyterlab  # noqa: E402

pytestmark = needs_browser
QUICKSTART = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"
SHOTS = Path(__file__).resolve().parents[1] / "out"


def _saved_notebook(path: Path) -> None:
    """A notebook whose output holds a capture of a real compile (run by nbclient, then saved)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import torch, kernelviz\n"
        "def f(x, w):\n    return torch.relu(torch.nn.functional.layer_norm(x, (64,), w)) @ w.view(64, 1)\n"
        "with kernelviz.capture() as cap:\n    torch.compile(f)(torch.randn(8, 64), torch.randn(64))\ncap")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    nbformat.write(nb, path)


def _big_notebook(path: Path, kernels: int = 200) -> int:
    """A saved notebook with a capture of at least ``kernels`` kernels (real H100 fixtures, repeated)."""
    from kernelviz.views.display import static_bundle

    cap = big_capture(kernels)
    cell = nbformat.v4.new_code_cell("cap", outputs=[nbformat.v4.new_output(
        "display_data", data=json.loads(json.dumps(static_bundle(cap))))])
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    return len(cap.kernels)


def _command(page, command: str, args: dict) -> None:
    page.evaluate("([c, a]) => { window.jupyterapp.commands.execute(c, a); return null; }", [command, args])


def _open(page, url: str, name: str) -> float:
    """Open a notebook in a running JupyterLab; seconds until the kernel table shows."""
    start = page.evaluate("performance.now()")
    _command(page, "docmanager:open", {"path": name})
    page.wait_for_selector(f"[data-path='{name}'] .jp-RenderedKernelviz .kv-row:visible, "
                           f".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedKernelviz .kv-row:visible",
                           timeout=60000)
    return (page.evaluate("performance.now()") - start) / 1000


def _lab_ready(page, url: str) -> None:
    page.goto(f"{url}/lab?reset")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=90000)
    page.wait_for_selector(".jp-DirListing-content", timeout=90000)


def test_saved_capture_renders_without_a_kernel(tmp_path):
    _saved_notebook(tmp_path / "saved.ipynb")
    kernels = _big_notebook(tmp_path / "big.ipynb")
    SHOTS.mkdir(exist_ok=True)
    with jupyterlab(tmp_path) as url, chromium_page() as page:
        _lab_ready(page, url)
        _open(page, url, "saved.ipynb")
        for kernel in api(url, "/api/kernels"):  # stop every kernel: what is shown must not need one
            api(url, f"/api/kernels/{kernel['id']}", "DELETE")
        assert api(url, "/api/kernels") == []
        panel = page.locator(".jp-RenderedKernelviz")
        assert panel.count() == 1
        rows = panel.locator(".kv-row")
        assert rows.count() >= 2
        cpp_row = rows.filter(has_text="cpp_fused")
        cpp_row.first.click()
        page.wait_for_selector(".jp-RenderedKernelviz .kv-source.kv-highlighted")
        assert panel.locator(".kv-tok-k").count() > 0  # pygments tokens, built as spans from text
        mapping = panel.locator(".kv-meta").inner_text()
        assert "aten" not in mapping or "ATen nodes" in mapping
        assert "Source nodes → ATen nodes" in mapping
        assert panel.locator(".kv-detail-title").inner_text().startswith("cpp_fused")
        page.screenshot(path=str(SHOTS / "jupyterlab_saved.png"))
        _command(page, "apputils:change-theme", {"theme": "JupyterLab Dark"})
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / "jupyterlab_saved_dark.png"))
        seconds = _open(page, url, "big.ipynb")
        print(f"\n{kernels}-kernel saved capture: table visible {seconds * 1000:.0f} ms after docmanager:open")
        assert page.errors == []


def test_quickstart_runs_live_in_jupyterlab(tmp_path):
    nb = nbformat.read(QUICKSTART, as_version=4)
    for cell in nb.cells:
        cell.outputs = [] if cell.cell_type == "code" else cell.get("outputs")
    nbformat.write(nb, tmp_path / "quickstart.ipynb")
    with jupyterlab(tmp_path) as url, chromium_page() as page:
        _lab_ready(page, url)
        _command(page, "docmanager:open", {"path": "quickstart.ipynb"})
        page.wait_for_selector(".jp-Notebook", timeout=60000)
        page.wait_for_function("document.querySelector('.jp-Notebook') && "
                               "window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel", timeout=60000)
        _command(page, "notebook:run-all-cells", {})
        page.wait_for_function("document.querySelectorAll('.jp-RenderedKernelviz').length >= 3", timeout=300000)
        widget_outputs = page.evaluate("""() => {
            let n = 0;
            for (const cell of window.jupyterapp.shell.currentWidget.content.widgets) {
                const outputs = cell.model.outputs;
                for (let i = 0; outputs && i < outputs.length; i++)
                    if (outputs.get(i).data['application/vnd.jupyter.widget-view+json'] &&
                        outputs.get(i).data['application/vnd.kernelviz.v1+json']) n++;
            }
            return n; }""")
        assert widget_outputs == 3  # the live widget travels in each bundle; the extension draws the same panel
        step = page.locator(".jp-RenderedKernelviz").nth(1)
        assert "2 graphs (1 forward, 1 backward)" in step.locator(".kv-header").inner_text()
        step.locator(".kv-row").first.click()
        assert "in-graph" in step.locator(".kv-detail").inner_text()  # timed by --bench
        step.screenshot(path=str(SHOTS / "jupyterlab_live.png"))
        assert page.errors == []


def test_saved_capture_renders_in_notebook_7(tmp_path):
    pytest.importorskip("notebook")
    _saved_notebook(tmp_path / "saved.ipynb")
    with jupyterlab(tmp_path, app="notebook") as url, chromium_page() as page:
        page.goto(f"{url}/notebooks/saved.ipynb")
        page.wait_for_selector(".jp-RenderedKernelviz .kv-row", timeout=90000)
        page.locator(".jp-RenderedKernelviz .kv-row").filter(has_text="cpp_fused").first.click()
        page.wait_for_selector(".jp-RenderedKernelviz .kv-source.kv-highlighted")
        page.screenshot(path=str(SHOTS / "notebook7_saved.png"))
        # Notebook 7.6.5's own settings loader throws once at start-up (also on its file browser page)
        assert [e for e in page.errors if "kernelviz" in e] == []
