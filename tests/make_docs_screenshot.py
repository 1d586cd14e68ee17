"""Write docs/panel.png, the README's picture of the panel: the quickstart's forward pass captured and timed on
the CPU, drawn by the panel in Chromium at 900 px with its first C++ kernel selected (the top 1,000 px).

    python tests/make_docs_screenshot.py
"""

import json
import sys
import tempfile
from pathlib import Path

import torch

import kernelviz
from browser import chromium_page, panel_site, serve
from kernelviz.views.payload import payload

OUT = Path(__file__).resolve().parents[1] / "docs" / "panel.png"


def forward() -> kernelviz.Capture:
    """The quickstart's model and forward pass (notebooks/make_quickstart.py)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                                torch.nn.Linear(128, 10))
    with torch.no_grad(), kernelviz.capture(bench=True, fresh_compile=True) as cap:
        torch.compile(model)(torch.randn(32, 64))
    return cap


def main() -> None:
    cap = forward()
    with tempfile.TemporaryDirectory() as tmp, serve(panel_site(Path(tmp), json.dumps(payload(cap)))) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 900, "height": 1000})
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        page.locator(".kv-row", has_text="cpp").first.click()
        page.wait_for_timeout(500)
        box = page.locator(".kv-panel").first.bounding_box()
        page.screenshot(path=str(OUT), full_page=True, clip={**box, "height": min(box["height"], 1000)})
    print(f"{OUT}: {OUT.stat().st_size:,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
