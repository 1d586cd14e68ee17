"""Screenshots of the quickstart as a newcomer meets it: notebooks/quickstart.ipynb run in JupyterLab (every cell,
the file browser open), in the Light and Dark themes, with the window 1,400 and 640 px wide; for each, the
forward pass's panel (untimed) and the training step's (timed) with its first kernel selected, and its Wrapper
call() tab following that launch. Written to out/ (ignored by git):

    python tests/make_quickstart_screenshots.py [--python VENV/bin/python]

``--python``: the venv JupyterLab and the notebook's kernel run from (default: this one), e.g. a fresh venv made
with the README's command; this one needs Playwright and Debian's chromium (tests/browser.py).
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from browser import chromium_page
from jupyterlab_support import jupyterlab

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "out"
THEMES = ("JupyterLab Light", "JupyterLab Dark")
WIDTHS = (1400, 640)


def command(page, name: str, args: dict | None = None) -> None:
    page.evaluate("([c, a]) => { window.jupyterapp.commands.execute(c, a); return null; }", [name, args or {}])


def shot(page, panel, name: str) -> None:
    """``panel`` scrolled to the top of the notebook, then the window."""
    panel.evaluate("p => p.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)
    page.screenshot(path=str(OUT / name))
    print(OUT / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the venv's interpreter that serves JupyterLab")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", root)
        with jupyterlab(root, python=args.python) as url, chromium_page() as page:
            page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
            page.goto(f"{url}/lab?reset")
            page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=90000)
            page.wait_for_selector(".jp-DirListing-content", timeout=90000)
            command(page, "docmanager:open", {"path": "quickstart.ipynb"})
            page.wait_for_function("window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel",
                                   timeout=60000)
            command(page, "notebook:run-all-cells")
            page.wait_for_function("document.querySelectorAll('.jp-RenderedKernelviz .kv-panel.kv-live').length >= 3",
                                   timeout=300000)
            page.wait_for_timeout(3000)
            command(page, "filebrowser:activate")  # the file browser open beside the notebook
            panels = page.locator(".jp-RenderedKernelviz .kv-panel.kv-live")
            forward, step = panels.nth(0), panels.nth(1)
            for theme in THEMES:
                command(page, "apputils:change-theme", {"theme": theme})
                page.wait_for_timeout(1500)
                tag = theme.split()[-1].lower()
                for width in WIDTHS:
                    page.set_viewport_size({"width": width, "height": 1000})
                    page.wait_for_timeout(800)
                    shot(page, forward, f"quickstart_{tag}_{width}_forward.png")
                    step.locator(".kv-row", has_text="_0").first.click()  # its first generated kernel
                    shot(page, step.locator(".kv-detail"), f"quickstart_{tag}_{width}_step_kernel.png")
                    step.locator(".kv-tab[data-tab='wrapper']").click()
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(OUT / f"quickstart_{tag}_{width}_step_wrapper.png"))
                    print(OUT / f"quickstart_{tag}_{width}_step_wrapper.png")
            if page.errors:
                print("page errors:", *page.errors, sep="\n", file=sys.stderr)


if __name__ == "__main__":
    main()
