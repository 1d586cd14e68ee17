"""Headless Chromium (Debian's, through Playwright's executable_path) on pages served from localhost."""

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
STATIC = Path(__file__).resolve().parents[1] / "kernelviz" / "static"

PANEL_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="panel.css"></head>
<body><div id="app"></div><script type="module">
import { decodePayload, renderCapture } from "./panel.js";
const data = await decodePayload(await (await fetch("data.json")).json());
const t0 = performance.now();
window.view = renderCapture(document.getElementById("app"), data);
window.renderMs = performance.now() - t0;
</script></body></html>"""


def browser_available() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return Path(CHROMIUM).exists()


needs_browser = pytest.mark.skipif(not browser_available(), reason="needs Debian's chromium and playwright")


@contextlib.contextmanager
def serve(directory: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@contextlib.contextmanager
def chromium_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors = []
            page.on("pageerror", lambda exc: errors.append(f"{exc}\n{exc.stack}"))
            page.errors = errors
            yield page
        finally:
            browser.close()


def panel_site(tmp: Path, data_json: str) -> Path:
    for name in ("panel.js", "panel.css"):
        shutil.copy(STATIC / name, tmp / name)
    (tmp / "index.html").write_text(PANEL_PAGE)
    (tmp / "data.json").write_text(data_json)
    return tmp
