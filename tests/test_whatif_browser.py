"""The What if tab in the panel (plain Chromium): the rows Python worked out (views/whatif.py) shown as text best
first, the flagged ones marked, the patch a code block with its copy button; captured text stays text; the findings
show the measured figure. Light and Dark screenshots (``KV_SHOTS=dir`` writes them there)."""

import json
import os
from pathlib import Path

from test_advice_browser import DARK
from whatif_capture import whatif_capture

from browser import chromium_page, needs_browser, panel_site, serve
from kernelviz.views.payload import payload
from kernelviz.views.whatif import FLAG, rows

HOSTILE = "<img src=x onerror=\"window.injected=1\">"


@needs_browser
def test_whatif_tab_in_the_panel(tmp_path):
    cap = whatif_capture()
    cap.whatifs[0].reason = f"compile failed: {HOSTILE}"  # the max-autotune row: captured text in it
    shots = Path(os.environ["KV_SHOTS"]) if os.environ.get("KV_SHOTS") else None
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    (site / "dark.html").write_text((site / "index.html").read_text().replace(
        '<link rel="stylesheet" href="panel.css">', f'<link rel="stylesheet" href="panel.css"><style>{DARK}</style>'))
    shown = rows(cap)
    with serve(site) as url, chromium_page() as page:
        for theme, name in (("light", "index.html"), ("dark", "dark.html")):
            page.goto(f"{url}/{name}")
            page.wait_for_selector(".kv-finding")
            first = page.locator(".kv-findings .kv-finding").first
            assert first.locator(".kv-finding-ms").inner_text() == "measured: saves 0.95 ± 0.035 ms"
            assert page.locator(".kv-tab.kv-active").get_attribute("data-tab") == "kernel"
            page.locator(".kv-whatif-headline a").click()  # the header's line opens the What if tab
            assert page.locator(".kv-tab.kv-active").get_attribute("data-tab") == "whatif"
            items = page.locator(".kv-detail .kv-whatif")
            assert items.count() == len(shown) == 7
            assert items.locator(".kv-whatif-saving").all_inner_texts() == [row.saving for row in shown]
            assert items.locator(".kv-whatif-change").all_inner_texts() == [row.change for row in shown]
            assert [items.nth(i).get_attribute("class").split()[1] for i in range(7)] == [
                f"kv-whatif-{row.status}" for row in shown]
            assert page.locator(".kv-detail .kv-whatif-flag").all_inner_texts() == [FLAG, FLAG]
            assert items.nth(4).locator(".kv-whatif-flag").count() == 1  # TF32, faster but not a win
            best = items.first
            assert best.locator(".kv-whatif-patch pre").inner_text() == shown[0].patch
            assert best.locator(".kv-whatif-patch pre").evaluate("e => getComputedStyle(e).fontFamily").find(
                "mono") >= 0
            assert best.locator(".kv-whatif-patch button.kv-copy").is_visible()
            assert best.locator(".kv-whatif-figures").inner_text() == " · ".join(
                (shown[0].graphs, shown[0].step, shown[0].compile))
            assert best.locator(".kv-whatif-numerics").inner_text() == shown[0].numerics
            tf32 = items.nth(4).locator(".kv-whatif-patch pre").inner_text()
            assert tf32 == "torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True"
            assert items.last.locator(".kv-whatif-saving").inner_text() == f"not run: compile failed: {HOSTILE}"
            assert page.locator(".kv-panel img").count() == 0 and page.evaluate("window.injected") is None
            if shots:
                page.locator(".kv-detail").screenshot(path=str(shots / f"whatif_tab_{theme}.png"))
            page.locator(".kv-tab[data-tab='findings']").click()
            full = page.locator(".kv-detail .kv-finding-full")
            assert full.first.locator(".kv-finding-how").inner_text().startswith(
                "ms: measured by cap.whatif(): run the graphs as CUDA graphs (reduce-overhead)")
            differs = full.filter(has_text="triton_red_fused_sum_1 moves")
            assert differs.locator(".kv-finding-ms").inner_text() == "measured: changes the outputs"
        assert page.errors == []
