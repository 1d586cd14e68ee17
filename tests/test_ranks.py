"""A job's ranks without a job: collectives read from real output code, rank files saved and loaded, the
agreement check, the summary of many ranks (synthetic rank files made from a real timed H100 capture), the
split of a block's time, and the views."""

import copy
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.model import Capture, Ranks, StepSplit
from kernelviz.ranks import SUMMARISE_ABOVE, rank_files
from kernelviz.recorder.step import intersection, length, merged, minus, split
from kernelviz.views.payload import decode, ranks_payload
from kernelviz.views.payload import payload as capture_payload

COLLECTIVES = FIXTURES / "cpu-torch2.13" / "collectives_0.py"  # funcol under gloo, compiled by torch 2.13
TIMED = FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json"  # a capture timed on an H100


def test_functional_collectives_are_launches_with_op_bytes_group_and_waits():
    graph = kernelviz.load(COLLECTIVES).graphs[0]
    found = [(launch.index, launch.collective.op, launch.collective.bytes, launch.collective.group,
              launch.collective.reduce_op, launch.collective.waits_on)
             for launch in graph.launches if launch.collective]
    # all_reduce_ of an (8, 16) float32 buffer; all_gather of (8, 16) over 2 ranks gives (16, 16); the
    # reduce_scatter takes (16, 16); each wait names the collective it waits for
    assert found == [(2, "all_reduce", 512, "0", "sum", None), (3, "wait_tensor", None, None, None, 2),
                     (5, "all_gather_into_tensor", 1024, "0", None, None), (6, "wait_tensor", None, None, None, 5),
                     (8, "reduce_scatter_tensor", 1024, "0", "sum", None), (9, "wait_tensor", None, None, None, 8)]
    assert graph.launches[2].writes == ["buf1"]  # the in-place all_reduce_ writes its input


def _job(capture: Capture, world: int) -> list[Capture]:
    out = []
    for rank in range(world):
        each = copy.deepcopy(capture)
        each.rank, each.world_size, each.host, each.device = rank, world, f"node{rank // 8}", f"cuda:{rank % 8}"
        out.append(each)
    return out


def test_save_writes_one_file_per_rank_and_load_reads_them_back(tmp_path):
    ranks = _job(kernelviz.load(COLLECTIVES), 2)
    paths = [c.save(tmp_path / "runs" / "step") for c in ranks]
    assert [p.name for p in paths] == ["step.rank0.kvz", "step.rank1.kvz"]
    assert [r for r, _ in rank_files(tmp_path / "runs" / "step")] == [0, 1]
    loaded = kernelviz.load(str(tmp_path / "runs" / "step"))
    assert isinstance(loaded, Ranks) and loaded.world_size == 2 and not loaded.summarised
    assert loaded.captures == ranks and loaded.reference == ranks[0]
    assert [g.collectives_agree for g in loaded.graphs] == [True] and loaded.graphs[0].mismatch is None
    assert Ranks.from_json(loaded.to_json()) == loaded
    assert repr(loaded).startswith("kernelviz: 2 of 2 ranks") and len(repr(loaded).splitlines()) == 2
    one = Capture()  # outside a job: one file
    assert one.save(tmp_path / "single").name == "single.kvz"
    assert one.save(tmp_path / "single.json").name == "single.json"  # the JSON text where it is asked for


def test_a_planted_collective_mismatch_is_named(tmp_path):
    ranks = _job(kernelviz.load(COLLECTIVES), 2)
    ranks[1].graphs[0].launches[5].collective.op = "all_reduce"  # rank 1 all-reduces where rank 0 gathers
    for c in ranks:
        c.save(tmp_path / "step")
    loaded = kernelviz.load(tmp_path / "step")
    graph = loaded.graphs[0]
    assert graph.collectives_agree is False and graph.kernels_agree is True
    assert graph.mismatch == ("graph 0_inference: collective 2 is all_gather_into_tensor 1.0 KB on group '0' on "
                              "rank 0 but all_reduce 1.0 KB on group '0' on rank 1: a collective-order mismatch "
                              "(the job hangs or mixes data)")
    assert any("ranks disagree in 1 graph" in w for w in loaded.warnings)


def test_a_rank_missing_a_graph_with_collectives_is_a_hang(tmp_path):
    ranks = _job(kernelviz.load(COLLECTIVES), 3)
    ranks[2].graphs = []
    for c in ranks:
        c.save(tmp_path / "step")
    graph = kernelviz.load(tmp_path / "step").graphs[0]
    assert graph.missing == [2] and graph.collectives_agree is False
    assert "rank 2 never ran it" in graph.mismatch


def _synthetic_job(tmp_path, world: int, *, slow_rank: int, busy_rank: int, missing: int | None = None):
    """``world`` rank files made from a real timed capture: times perturbed by up to 3%, one rank 60% slower
    on the first launch of each graph, one with 30% more compute in its block."""
    base = Capture.from_json(TIMED.read_text())
    rng = random.Random(0)
    for each in _job(base, world):
        if each.rank == missing:
            continue
        for graph in each.graphs:
            for launch in graph.launches:
                launch.timing.in_graph_ms *= rng.uniform(0.97, 1.03) * (1.6 if each.rank == slow_rank and
                                                                         launch.index == 0 else 1)
        compute = 10 * rng.uniform(0.98, 1.02) * (1.3 if each.rank == busy_rank else 1)
        each.step = StepSplit("gpu", 20.0, compute, 3.0, 2.0, 15.0 - compute)
        each.save(tmp_path / "step")
    return tmp_path / "step"


def test_256_ranks_are_summarised_with_percentiles_and_outlier_ranks(tmp_path):
    prefix = _synthetic_job(tmp_path, 256, slow_rank=137, busy_rank=200, missing=42)
    loaded = kernelviz.load(prefix)
    assert loaded.summarised and loaded.captures == [] and loaded.reference.rank == 0
    assert len(loaded.ranks) == 255 and loaded.world_size == 256
    assert any("no file for rank 42 of 256" in w for w in loaded.warnings)
    first = [launch for launch in loaded.launches if launch.index == 0]
    for launch in loaded.launches:
        s = launch.stats
        assert launch.ms == [] and s["p0"] <= s["p50"] <= s["p90"] <= s["p99"] <= s["p100"]
    for launch in first:  # the planted straggler is found and listed first, alone
        assert launch.straggler == 137 and [int(r) for r, _ in launch.outliers] == [137]
    others = [launch for launch in loaded.launches if launch.index != 0]
    assert all(launch.outliers == [] and launch.straggler is None for launch in others)
    assert loaded.step_straggler == 200
    assert loaded.step_stats["compute_ms"]["p100"] == pytest.approx(max(i.step.compute_ms for i in loaded.ranks))
    assert Ranks.from_json(loaded.to_json()) == loaded
    assert repr(loaded).startswith("kernelviz: 255 of 256 ranks") and len(repr(loaded).splitlines()) == 2


def test_up_to_16_ranks_keep_a_time_per_rank(tmp_path):
    prefix = _synthetic_job(tmp_path, SUMMARISE_ABOVE, slow_rank=5, busy_rank=3)
    loaded = kernelviz.load(prefix)
    assert not loaded.summarised and len(loaded.captures) == SUMMARISE_ABOVE
    launch = loaded.launches[0]
    assert len(launch.ms) == SUMMARISE_ABOVE and launch.straggler == 5
    assert launch.ms[5] == max(launch.ms)


def test_collective_straggler_is_the_rank_that_waited_least(tmp_path):
    ranks = _job(kernelviz.load(COLLECTIVES), 4)
    for each in ranks:
        for launch in each.graphs[0].launches:
            launch.timing = kernelviz.model.LaunchTiming(in_graph_ms=1.0 if each.rank != 3 else 0.5)
        each.save(tmp_path / "step")
    launches = kernelviz.load(tmp_path / "step").launches
    assert {launch.straggler for launch in launches if launch.collective} == {3}  # arrived last: waited least
    assert {launch.straggler for launch in launches if not launch.collective} == {0}  # work: the slowest (a tie)


def test_missing_rank_files_say_what_was_looked_for(tmp_path):
    with pytest.raises(kernelviz.CaptureError, match="no such file"):
        kernelviz.load(tmp_path / "nothing")
    with pytest.raises(kernelviz.CaptureError, match=r"no rank files \(nothing.rank<N>.kvz or .json\)"):
        kernelviz.load_ranks(tmp_path / "nothing")
    (tmp_path / "bad.rank0.json").write_text("{not json")
    with pytest.raises(kernelviz.CaptureError, match="bad.rank0.json"):
        kernelviz.load(tmp_path / "bad")


spans = st.lists(st.tuples(st.integers(0, 1000), st.integers(1, 200)).map(lambda t: (t[0], t[0] + t[1])), max_size=12)


@given(spans, spans)
def test_split_parts_are_disjoint_and_add_up_to_the_window(compute, comm):
    window = (0, 1200)
    got = split(window, compute, comm, "gpu", [])
    parts = got.compute_ms + got.comm_ms + got.overlap_ms + got.idle_ms
    assert parts == pytest.approx(got.window_ms) and min(got.compute_ms, got.comm_ms, got.overlap_ms, got.idle_ms) >= 0
    c, m = merged(compute), merged(comm)
    assert got.overlap_ms == pytest.approx(length(intersection(c, m)) * 1e-6)
    assert got.compute_ms == pytest.approx(length(minus(c, m)) * 1e-6)


def test_text_and_html_of_ranks_keep_captured_strings_as_text(tmp_path):
    ranks = _job(kernelviz.load(COLLECTIVES), 2)
    ranks[1].host = "<img src=x onerror=alert(1)>"
    ranks[1].graphs[0].launches[5].collective.op = "<b>all_reduce</b>"
    for each in ranks:
        each.step = StepSplit("cpu", 10.0, 4.0, 3.0, 1.0, 2.0)
        each.save(tmp_path / "step")
    loaded = kernelviz.load(tmp_path / "step")
    html = loaded.to_html()
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>all_reduce" not in html and "collective-order mismatch" in html
    text = loaded._repr_mimebundle_()["text/plain"]
    assert "ranks disagree in 1 of 1 graphs" in text and "compute 40.0% · overlap 10.0% · comm 30.0%" in text
    data = ranks_payload(loaded)
    assert [g["id"] for g in data["graphs"]] == ["0_inference"]
    assert "captures" not in data["ranks"] and data["ranks"]["graphs"][0]["collectives_agree"] is False


@needs_browser
def test_ranks_tab_in_chromium_shows_split_mismatch_and_straggler(tmp_path):
    (tmp_path / "job").mkdir()
    loaded = kernelviz.load(_synthetic_job(tmp_path / "job", 4, slow_rank=2, busy_rank=1))
    loaded.graphs[0].mismatch = "graph 6_inference: <script>x</script> planted"
    site = panel_site(tmp_path, json.dumps(ranks_payload(loaded)))
    with serve(site) as url, chromium_page() as page:
        page.goto(url + "/index.html")
        page.wait_for_selector(".kv-rank-split")
        assert page.locator(".kv-tab.kv-active").inner_text() == "Ranks"
        assert page.locator(".kv-rank-split").count() == 4
        assert page.locator("tr.kv-straggler td").first.inner_text() == "1"  # the step straggler's row
        cell = page.locator("td.kv-straggler").first
        assert cell.inner_text() == f"{loaded.launches[0].ms[2]:.4f}"
        assert page.locator(".kv-mismatch-line").inner_text() == "graph 6_inference: <script>x</script> planted"
        assert page.locator(".kv-bench").count() == 0
        assert page.errors == []


def test_bus_bandwidth_and_wait_times_from_device_intervals():
    from kernelviz.bench.collectives import bus_factor, fill, wait_times
    from kernelviz.model import LaunchTiming

    assert [bus_factor("all_reduce", 8), bus_factor("all_gather_into_tensor", 8), bus_factor("broadcast", 8)] \
        == [1.75, 0.875, 1.0] and bus_factor("send_recv", 2) is None and bus_factor("all_reduce", 1) is None
    graph = kernelviz.load(COLLECTIVES).graphs[0]
    # one run: mm 0-10, the C++ kernel 10-20, the all_reduce 20-50 (the stream has nothing else to do
    # until the wait), then the all_gather 60-65 while kernel 4 runs 55-70: its wait has nothing to wait for
    run = {0: [(0, 10_000)], 1: [(10_000, 20_000)], 2: [(20_000, 50_000)], 4: [(55_000, 70_000)],
           5: [(60_000, 65_000)]}
    wait_times(graph, [run, run])
    waits = {launch.index: launch.collective.wait_ms for launch in graph.launches
             if launch.collective and launch.collective.op == "wait_tensor"}
    assert waits == {3: pytest.approx(0.030), 6: 0.0, 9: None}
    graph.launches[2].timing = LaunchTiming(in_graph_ms=0.001, flushed_ms=0.0008)
    fill(graph, 2)
    talk = graph.launches[2].collective  # 512 bytes in 1 us: 0.512 GB/s, x 2(n-1)/n = 1 for two ranks
    assert (talk.algo_gb_per_s, talk.bus_gb_per_s, talk.alone_bus_gb_per_s) == pytest.approx((0.512, 0.512, 0.64))


def test_cli_shows_a_jobs_ranks_and_writes_their_report(tmp_path, capsys):
    from kernelviz.__main__ import main

    for each in _job(kernelviz.load(COLLECTIVES), 2):
        each.save(tmp_path / "step")
    assert main(["show", str(tmp_path / "step"), "-o", str(tmp_path / "ranks.html")]) == 0
    assert capsys.readouterr().out.startswith("kernelviz: 2 of 2 ranks on 1 host; 1 graph, the ranks agree")
    assert "collective order" in (tmp_path / "ranks.html").read_text()


def test_the_live_panel_of_ranks_carries_them_and_is_not_timed_from_the_notebook(tmp_path):
    pytest.importorskip("anywidget")
    from kernelviz.notebook.widget import RanksWidget

    for each in _job(kernelviz.load(COLLECTIVES), 2):
        each.save(tmp_path / "step")
    loaded = kernelviz.load(tmp_path / "step")
    assert "application/vnd.jupyter.widget-view+json" in loaded._repr_mimebundle_()
    widget = RanksWidget(loaded)
    shown = decode(widget.payload)
    assert shown["ranks"]["world_size"] == 2 and shown["graphs"][0]["id"] == "0_inference"
    before = widget.payload
    widget.time_kernels()
    assert widget.payload == before and loaded.reference.graphs[0].launches[0].timing is None


def _timed_collectives(world: int) -> Capture:
    """The gloo funcol capture with the all_gather timed at 2 us (2 KB of it in flight) and its wait at 5 us."""
    from kernelviz.bench.collectives import fill
    from kernelviz.model import LaunchTiming

    cap = kernelviz.load(COLLECTIVES)
    cap.rank, cap.world_size = 0, world
    graph = cap.graphs[0]
    graph.launches[5].timing = LaunchTiming(in_graph_ms=0.002, flushed_ms=0.001, unit="cpu")
    graph.launches[6].timing = LaunchTiming(in_graph_ms=0.005, unit="cpu")
    graph.launches[6].collective.wait_ms = 0.005
    fill(graph, world)
    return cap


def test_report_shows_a_collectives_bus_bandwidth():
    talk = _timed_collectives(2).graphs[0].launches[5].collective  # 1024 B in 2 us, x (n-1)/n for 2 ranks
    assert (talk.algo_gb_per_s, talk.bus_gb_per_s) == pytest.approx((0.512, 0.256))
    assert "0.256 GB/s bus" in _timed_collectives(2).to_html()
    assert "GB/s bus" not in _timed_collectives(1).to_html()  # one rank: nothing crosses a link


@needs_browser
def test_panel_shows_what_a_collective_moved_its_bandwidth_and_its_wait(tmp_path):
    (tmp_path / "two").mkdir()
    (tmp_path / "one").mkdir()
    for world, folder in ((2, "two"), (1, "one")):
        site = panel_site(tmp_path / folder, json.dumps(capture_payload(_timed_collectives(world))))
        with serve(site) as url, chromium_page() as page:
            page.goto(url + "/index.html")
            page.wait_for_selector(".kv-row")
            row = page.locator(".kv-row").nth(5)
            assert ("0.26 GB/s bus" in row.inner_text()) == (world == 2)
            row.click()
            facts = page.locator(".kv-facts-grid").inner_text()
            assert "all_gather_into_tensor over group \"0\"" in facts and "1.0 KB" in facts
            if world == 2:
                assert "bus 0.26 GB/s · algorithm 0.51 GB/s · alone, back to back: bus 0.51 GB/s" in facts
                assert "0.0010 ms (the collective repeated back to back)" in facts and "L2" not in facts
                assert page.locator(".kv-panel").first.inner_text().startswith("kernelviz")
                assert "rank 0 of 2\n" in page.locator(".kv-panel").first.inner_text() + "\n"
            else:
                assert "no bus figure: at one rank nothing crosses a link" in facts
            page.locator(".kv-row").nth(6).click()
            assert "0.0050 ms for launch #5" in page.locator(".kv-facts-grid").inner_text()
            assert page.errors == []


def test_a_rank_without_host_or_device_is_named_without_them():
    from kernelviz.views.text import headline

    cap = _timed_collectives(2)
    assert headline(cap).endswith(", rank 0 of 2")
    cap.host, cap.backend = "node7", "gloo"
    assert headline(cap).endswith(", rank 0 of 2 on node7 (gloo)")
