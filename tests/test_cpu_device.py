"""The CPU as a device, on real captures of the quickstart's model (torch here, C++ kernels): its peaks measured once
in a child process, cached and reused; % of roof, bound and the roofline filled; each C++ kernel's assembly in the
compiled tab, line-linked to its C++, with its instruction set and vectorized loops."""

import os
import re
import socket
import types

import pytest
import torch
from test_panel_widths import _look, _page, _site

from browser import chromium_page, needs_browser, serve
from kernelviz.bench import cpupeaks, roofline
from kernelviz.children import cache_folder
from kernelviz.demo import run_demo
from kernelviz.ir.cpu import vec_isa
from kernelviz.model import LaunchTiming
from kernelviz.views.charts import roofline_svg
from kernelviz.views.payload import payload
from kernelviz.views.rules import peaks_known, roof


@pytest.fixture(scope="module")
def step(tmp_path_factory):
    """The quickstart's training step captured and timed at the capture's exit, with kernelviz's cache folder (the
    peaks' cache) empty at first; and that folder."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        assert not (cache_folder("peaks")).exists()
        torch._dynamo.reset()
        cap = run_demo()  # the quickstart's model and step, timed at the capture's exit
        cap.wait_stages()
        torch._dynamo.reset()
        yield cap, cache_folder("peaks")


def test_the_cpus_peaks_are_measured_once_labelled_cached_and_reused(step, monkeypatch):
    cap, folder = step
    peaks = cap.peaks
    assert peaks.device_type == "cpu" and peaks_known(peaks)
    assert peaks.dram_gb_per_s > 0 and {"float32", "bfloat16"} <= peaks.tflops.keys()
    assert all(v > 0 for v in peaks.tflops.values())
    threads = torch.get_num_threads()
    assert peaks.device == f"{cpupeaks.cpu_name()}, {threads} threads"
    assert re.match(rf"measured by kernelviz on {re.escape(socket.gethostname())} \(.*\) at \d{{4}}-\d\d-\d\d "
                    rf"\d\d:\d\d UTC, {threads} threads as torch uses them, torch {re.escape(torch.__version__)}: the "
                    r"best of \d+ copies of \d+ MiB .*; load average \d+\.\d on \d+ CPUs$", peaks.source)
    kept = list(folder.iterdir())
    assert kept == [cpupeaks.cache_path(threads)]
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder.parents[1]))

    def no_child(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(cpupeaks, "subprocess", types.SimpleNamespace(run=no_child))
    assert cpupeaks.cpu_peaks() == peaks  # read back from the cache, no child process
    cap.bench(progress=False)  # timed again: the same peaks, from the cache
    assert cap.peaks == peaks


def test_a_damaged_cache_is_measured_again_and_a_failed_measure_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cpupeaks.cache_path(1)
    path.parent.mkdir(parents=True)
    path.write_text('{"device": "x", "dram_gb_per_s": -1, "tflops": {}, "source": "?"}')
    monkeypatch.setattr(cpupeaks.sys, "executable", str(tmp_path / "no-python"))
    failed = cpupeaks.cpu_peaks(1)
    assert not peaks_known(failed) and failed.source.startswith("not measured: the measuring process failed (")
    assert "no-python" in failed.source and "\n" not in failed.source
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    measured = cpupeaks.cpu_peaks(1)
    assert peaks_known(measured) and measured.device.endswith(", 1 threads")
    assert cpupeaks.cache_path(1).read_text().startswith('{"device"')


def test_every_cpu_launch_has_a_bound_and_a_roof_never_above_100(step):
    cap, _ = step
    launches = [launch for graph in cap.graphs for launch in graph.launches]
    assert all(launch.timing.unit == "cpu" and launch.timing.bound in ("memory", "compute", "latency")
               for launch in launches)
    for launch in launches:
        t = launch.timing
        assert t.pct_peak_bw is not None and 0 < t.pct_peak_bw <= 100
        assert t.cache_resident == (t.gb_per_s > cap.peaks.dram_gb_per_s)
        got = roof(launch, True)
        assert got is not None and got.pct <= 100
    matmuls = [launch for launch in launches if launch.op and "mm" in launch.op]
    assert matmuls and all(m.timing.dtype == "float32" and 0 < m.timing.pct_peak_flops <= 100 for m in matmuls)
    svg = roofline_svg(cap.graphs[0], cap.peaks)
    assert f"ceilings of {cap.peaks.device}: measured by kernelviz on" in svg and "no ceilings" not in svg


def test_a_cpu_launch_faster_than_the_dram_peak_is_labelled_cache_resident(step):
    cap, _ = step
    launch = next(launch for launch in cap.graphs[0].launches if launch.kernel_name)
    t = launch.timing
    fast = LaunchTiming(in_graph_ms=t.bytes / (4 * cap.peaks.dram_gb_per_s * 1e9) * 1e3, unit="cpu", bytes=t.bytes,
                        dtype=t.dtype)  # the same bytes moved at 4x the DRAM peak: they came from the caches
    roofline.fill(fast, cap.peaks, kernel=cap.graphs[0].kernel(launch.kernel_name))
    assert fast.cache_resident and fast.pct_peak_bw == 100.0
    assert re.fullmatch(r"measured 4\d\d% of the DRAM bandwidth peak \(cache-resident: its bytes were in the CPU's "
                        r"caches, or the peak is low\): shown as 100%", fast.note)


def test_each_cpp_kernel_has_its_assembly_line_linked_with_its_instruction_set_and_vectorized_loops(step):
    cap, _ = step
    isa = vec_isa()
    kernels = [k for graph in cap.graphs for k in graph.kernels]
    assert kernels and all(k.kind == "cpp" for k in kernels)
    for kernel in kernels:
        ir = kernel.ir
        (stage,) = ir.stages
        assert stage.name == "asm" and stage.tool.startswith("objdump -dl --inlines of ")
        assert stage.tool.split()[4] == os.path.basename(ir.file).replace(".cpp", ".so,")
        rows = stage.text.splitlines()
        assert rows[0].endswith(" <kernel>:")
        assert ir.options == {"isa": isa[0], "vector_bits": isa[1]}
        assert ir.notes[0] == (f"at::vec compiled for {isa[0].upper()} ({isa[1]}-bit vectors: the instruction set "
                               "Inductor picks here)")
        source = kernel.source.splitlines()
        instructions = [i for i, row in enumerate(rows) if re.match(r"^\s+[0-9a-f]+:\t", row)]
        linked = [i for i in instructions if stage.source_lines[i]]
        assert len(linked) > 0.8 * len(instructions)
        assert all(1 <= n <= len(source) for i in linked for n in stage.source_lines[i])
        loops = next(n for n in ir.notes if n.startswith("loops: vectorized: "))
        vectorized = [(int(n), int(lanes)) for n, lanes in re.findall(r"line (\d+) \(\w+, (\d+) lanes\)",
                                                                    loops.split(";")[0])]
        assert vectorized
        for line, lanes in vectorized:
            assert re.match(rf"\s*for\(int64_t \w+=.*\+=static_cast<int64_t>\({lanes}L\)\)", source[line - 1])
            assert lanes * 32 == isa[1]  # float32 lanes of the ISA's vectors
        # the instructions linked to a vectorized loop's body use the vector registers of the ISA's width
        register = {512: "%zmm", 256: "%ymm", 128: "%xmm"}[isa[1]]
        bodies = {n for line, _ in vectorized for n in _body(source, line)}
        assert any(register in rows[i] for i in linked if bodies & set(stage.source_lines[i])), kernel.name
        assert any(n.startswith("instructions by their widest register: ") and f"on {register[1:]}" in n
                   for n in ir.notes)


def _body(source: list[str], line: int) -> range:
    """The lines (1-based) of the loop whose header is line ``line``: to where its braces close."""
    depth = 0
    for end in range(line, len(source)):
        depth += source[end].count("{") - source[end].count("}")
        if depth == 0 and "{" in source[end]:
            return range(line, end + 1)
    return range(line, len(source) + 1)


def test_the_report_and_the_panel_data_say_assembly_and_the_cpus_words(step):
    cap, _ = step
    html = cap.to_html()
    assert "None registers" not in html and f"at::vec compiled for {vec_isa()[0].upper()}" in html
    data = payload(cap)
    assert data["view"]["peaks_known"] is True
    assert all(data["view"]["launches"][g]["roofs"] for g in range(len(cap.graphs)))


@needs_browser
def test_compiled_tab_shows_the_assembly_linked_both_ways_in_light_and_dark_at_any_width(step, tmp_path):
    cap, _ = step
    kernel = cap.graphs[0].kernels[0]
    index = next(launch.index for launch in cap.graphs[0].launches if launch.kernel_name == kernel.name)
    stage = kernel.ir.stages[0]
    vector_line = next(n for i, row in enumerate(stage.text.splitlines()) if "%zmm" in row or "%ymm" in row
                       for n in stage.source_lines[i])
    with serve(_site(tmp_path, cap)) as url, chromium_page() as page:
        _page(page, url)
        tabs = page.locator(".kv-tab").all_inner_texts()
        assert "Compiled (assembly)" in tabs and not any("PTX" in t for t in tabs)
        page.locator(f'.kv-row[data-key="0/{index}"]').click()
        page.locator(".kv-tab", has_text="Compiled").click()
        page.wait_for_selector(".kv-stage-tab")
        assert page.locator(".kv-stage-tab").all_inner_texts() == ["assembly"]
        detail = page.locator(".kv-detail").inner_text()
        assert f"at::vec compiled for {vec_isa()[0].upper()}" in detail and "loops: vectorized: line" in detail
        assert "registers per thread" not in detail and "//## File" not in detail  # the markers are hidden
        page.locator(".kv-compiled-source .kv-line").nth(vector_line - 1).click()
        lit = page.locator(".kv-stage .kv-line.kv-lit:not(.kv-lineinfo)")
        assert any(re.search(r"%[xyz]mm", t) for t in lit.all_inner_texts())
        lit.first.click()
        assert page.locator(".kv-compiled-source .kv-line.kv-lit").count() >= 1
        for width in (480, 1100):
            for theme in ("light", "dark"):
                assert _look(page, width, theme) == [], (width, theme)
                if shots := os.environ.get("KV_SCREENSHOTS"):
                    page.screenshot(path=f"{shots}/cpu-compiled-{width}-{theme}.png", full_page=True)
        assert page.errors == []
