"""The Compiled and HIP tabs in Chromium, on the saved H100 capture (stages linked both ways, Copy repro)
and on a CUDA cpp_wrapper module (the ROCm reading with its changed lines)."""

import json

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.ir.hip import hipify
from kernelviz.views.payload import payload

DEEP = FIXTURES / "deep"


def _capture():
    cap = kernelviz.Capture.from_json((DEEP / "h100_capture.json").read_text())
    code = (DEEP / "cpp_wrapper_0.code").read_text()
    cap.graphs.append(kernelviz.Graph(id="cpp_wrapper", kind="inference", device="cuda", code=code))
    cap.graphs[1].kernels[0].ir.stages[0].text += "<img src=x onerror=window.pwned=1>\n"
    cap.graphs[1].kernels[0].ir.stages[0].source_lines.append([])
    return cap


@needs_browser
def test_compiled_tab_links_source_and_stages_both_ways_and_hip_tab_marks_changes(tmp_path):
    cap = _capture()
    hipify("")  # the saved output carries the HIP reading once the mapping is loaded in the process
    kernel = cap.graphs[1].kernels[0]
    store_line = next(i + 1 for i, line in enumerate(kernel.source.splitlines()) if "tl.store(" in line)
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.select_option(".kv-graph", "1")
        page.locator(".kv-row").first.click()
        page.locator(".kv-tab", has_text="Compiled").click()
        page.wait_for_selector(".kv-stage-tab")
        assert page.locator(".kv-stage-tab").all_inner_texts() == ["TTIR", "TTGIR", "LLVM IR", "PTX", "SASS"]
        assert "occupancy 32 blocks per SM" in page.locator(".kv-detail").inner_text()
        assert page.locator(".kv-copy-repro").count() == 1
        assert "GRID = (8, 1, 1)" in page.locator(".kv-script").first.text_content()
        source = page.locator(".kv-compiled-source .kv-line")
        source.nth(store_line - 1).click()
        lit = page.locator(".kv-stage .kv-line.kv-lit")
        texts = lit.all_inner_texts()
        assert any("STG" in t for t in texts)  # the SASS store is among the lines from the tl.store line
        lit.nth(next(i for i, t in enumerate(texts) if "STG" in t)).click()
        assert page.locator(".kv-compiled-source .kv-line.kv-lit").first.get_attribute("data-line") == str(store_line)
        page.locator(".kv-stage-tab", has_text="TTIR").click()
        assert "<img src=x" in page.locator(".kv-stage").inner_text() and page.evaluate("window.pwned") is None
        page.select_option(".kv-graph", "2")
        page.locator(".kv-tab", has_text="HIP").click()
        page.wait_for_selector(".kv-hip-part")
        assert page.locator(".kv-hip-part .kv-line.kv-changed").count() == 28
        assert "hipModuleLaunchKernel(" in page.locator(".kv-hip-part").inner_text()
        page.locator(".kv-hip-toggle").click()
        assert page.locator(".kv-hip-part .kv-line.kv-changed").count() == 28
        assert "cuLaunchKernel(" in page.locator(".kv-hip-part").inner_text()
        assert page.errors == []
