"""Screenshots of the What if tab and the findings' measured figures in JupyterLab: a notebook shows the capture of
``whatif_capture.py`` (real H100 code, drawn timings, what-ifs of every outcome) in the live widget, in the Light
and Dark themes, at the default layout (the file browser open, the notebook about 640 px wide) and wide (the file
browser closed). Written to out/whatif-shots/ (ignored by git); each shot's name and the notebook's width printed:

    PYTHONPATH=$PWD python tests/make_whatif_screenshots.py [--saved]

``--saved``: the notebook holds the capture's saved output instead, which JupyterLab's renderer shows with no kernel:
this tree's build of the extension (``cd labextension && jlpm build``, into kernelviz/labextension), found before
the installed one through JUPYTER_PATH. It needs JupyterLab, Playwright and Debian's chromium (tests/browser.py);
the kernel imports this tree's kernelviz through PYTHONPATH."""

import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from make_quickstart_screenshots import THEMES, command

from browser import chromium_page
from jupyterlab_support import jupyterlab

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "out" / "whatif-shots"
LAYOUTS = (("default", 1000, True), ("w1000", 1180, False), ("wide", 1600, False))  # name, window width, browser open
CELL = (f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\nfrom whatif_capture import whatif_capture\n"
        "cap = whatif_capture()\ncap")


def shot(page, element, name: str) -> None:
    """``element`` scrolled to the top of the notebook, then the window."""
    element.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(OUT / name))
    width = page.evaluate("document.querySelector('.jp-NotebookPanel').getBoundingClientRect().width")
    print(OUT / name, f"(notebook {width:.0f} px wide)")


def _notebook(root: Path, saved: bool) -> None:
    """The notebook of the cell that shows the capture; with ``saved``, with the output it saves (no widget)."""
    cell = nbformat.v4.new_code_cell(CELL)
    if saved:
        from whatif_capture import whatif_capture

        from kernelviz.notebook.display import static_bundle

        cell.outputs = [nbformat.v4.new_output("display_data", data=json.loads(json.dumps(
            static_bundle(whatif_capture()))))]
    nbformat.write(nbformat.v4.new_notebook(cells=[cell], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), root / "whatif.ipynb")


def main() -> None:
    saved = "--saved" in sys.argv
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _notebook(root, saved)
        if saved:  # this tree's build of the extension, before the installed one
            extensions = root / ".data" / "labextensions"
            extensions.mkdir(parents=True)
            (extensions / "kernelviz-labextension").symlink_to(ROOT / "kernelviz" / "labextension")
            os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(root / ".data"),
                                                                       os.environ.get("JUPYTER_PATH")]))
        prefix = "saved_" if saved else ""
        with jupyterlab(root) as url, chromium_page() as page:
            page.set_viewport_size({"width": 1400, "height": 1000})
            page.goto(f"{url}/lab?reset")
            page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=90000)
            page.wait_for_selector(".jp-DirListing-content", timeout=90000)
            command(page, "docmanager:open", {"path": "whatif.ipynb"})
            if not saved:
                page.wait_for_function("window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel",
                                       timeout=60000)
                command(page, "notebook:run-all-cells")
            page.wait_for_selector(".kv-panel .kv-tab[data-tab='whatif'] >> visible=true", timeout=300000)
            page.wait_for_timeout(2000)
            panel = page.locator(".kv-panel:visible", has=page.locator(".kv-tab[data-tab='whatif']"))
            print(page.locator(".kv-panel").count(), "panels;", *page.locator(".kv-panel").evaluate_all(
                "ps => ps.map(p => (p.offsetParent ? 'shown in ' : 'hidden in ') + p.parentElement.className)"))
            for theme in THEMES:
                command(page, "apputils:change-theme", {"theme": theme})
                page.wait_for_timeout(1500)
                tag = theme.split()[-1].lower()
                for layout, width, browser in LAYOUTS:
                    page.set_viewport_size({"width": width, "height": 1000})
                    command(page, "filebrowser:activate" if browser else "application:toggle-left-area")
                    if not browser and page.locator(".jp-FileBrowser").is_visible():
                        command(page, "application:toggle-left-area")
                    page.wait_for_timeout(800)
                    shot(page, panel.locator(".kv-findings").first, f"{prefix}findings_{tag}_{layout}.png")
                    panel.locator(".kv-tab[data-tab='whatif']").click()
                    tab = panel.locator(".kv-whatifs")
                    shot(page, panel.locator(".kv-tabs"), f"{prefix}whatif_{tag}_{layout}.png")  # tabs, first rows
                    tab.locator(".kv-whatif-differs").first.evaluate("e => e.scrollIntoView({block: 'start'})")
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(OUT / f"{prefix}whatif_{tag}_{layout}_rest.png"))
                    print(OUT / f"{prefix}whatif_{tag}_{layout}_rest.png")
            if page.errors:
                print("page errors:", *page.errors, sep="\n", file=sys.stderr)


if __name__ == "__main__":
    main()
