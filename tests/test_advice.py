"""Findings (kernelviz.advice) and Inductor's fusion decisions on the CPU: a refused fusion read from Inductor's
own decisions, in this process and from the FX cache in a new one; a graph break; the graph as it runs; the JSON
round trip and the views."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import kernelviz
import zoo
from kernelviz.advice import advise
from kernelviz.advice.graphs import graph_findings
from kernelviz.bench.package import NO_REPLAY
from kernelviz.model import Advice, AsRun, Capture, Graph, Launch, LaunchTiming, Package
from kernelviz.views.findings import as_run_line
from kernelviz.views.text import summary

ROOT = Path(__file__).resolve().parents[1]
HIT = r"""
import json, torch, kernelviz, zoo
torch.manual_seed(0)
with kernelviz.capture() as cap:
    torch.compile(zoo.refused_fusion)(torch.randn(64, 64), torch.randn(64, 64))
print(cap.to_json())
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("advice-inductor-cache")


@pytest.fixture(scope="module")
def captured(cache):
    """A capture (timed) of a refused fusion and a graph break, compiled into a fresh Inductor cache."""
    before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    try:
        torch._dynamo.reset()  # compiled here through Inductor into this cache, whatever this process compiled before
        torch.manual_seed(0)
        with kernelviz.capture() as cap:
            torch.compile(zoo.refused_fusion)(torch.randn(64, 64), torch.randn(64, 64))
            torch.compile(zoo.with_graph_break)(torch.randn(8))
        cap.bench(progress=False)
    finally:
        if before is None:
            del os.environ["TORCHINDUCTOR_CACHE_DIR"]
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = before
    return cap


def _refusal(graph: Graph):
    return next(d for d in graph.fusions if not d.fused and d.first_kernel != d.second_kernel
                and d.first_kernel and d.second_kernel)


def _assert_refused_fusion(cap: Capture) -> None:
    graph = cap.graphs[0]
    refusal = _refusal(graph)
    assert "div" in refusal.first and "mul" in refusal.second
    assert refusal.reason == "intermediate nodes between node1 & node2"  # Inductor's own words
    assert refusal.bytes == 64 * 64 * 4  # the softmax's output, read back by the product
    assert any(d.fused for d in graph.fusions)  # what Inductor did fuse is there too
    finding = next(f for f in cap.findings if f.rule == "refused-fusion")
    names = [graph.launches[i].kernel_name for i in finding.launches]
    assert names == [refusal.first_kernel, refusal.second_kernel]
    assert "intermediate nodes between node1 & node2" in finding.evidence and "16.0 KB" in finding.evidence


def test_refused_fusion_is_a_finding(captured):
    _assert_refused_fusion(captured)
    finding = next(f for f in captured.findings if f.rule == "refused-fusion")
    # timed: the estimate is the buffer's bytes at the graph's achieved bandwidth, and says so
    assert finding.ms is not None and finding.ms > 0 and "achieved" in finding.how


def test_refused_fusion_from_the_cache_in_a_new_process(captured, tmp_path):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    found = []
    for _ in range(2):  # the first process fills this cache, the second reads it
        out = subprocess.run([sys.executable, "-c", HIT], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        found.append(Capture.from_json(out.stdout.strip().splitlines()[-1]))
    first, hit = found
    assert (first.graphs[0].cache, hit.graphs[0].cache) == ("compiled", "fx_cache_hit")
    assert hit.graphs[0].fusions == captured.graphs[0].fusions
    _assert_refused_fusion(hit)
    assert next(f for f in hit.findings if f.rule == "refused-fusion").ms is None  # not timed: no estimate


def test_graph_break_is_a_finding(captured):
    finding = next(f for f in captured.findings if f.rule == "graph-break")
    assert finding.graph is None and finding.ms is None and "not timed" in finding.how
    assert "graph_break()" in finding.evidence and "zoo.py" in finding.evidence


def test_the_graph_as_it_runs_on_the_cpu(captured):
    run = captured.graphs[0].as_run
    assert run.unit == "cpu" and run.plain_ms > 0 and run.runs >= 1
    assert run.kernels_ms == pytest.approx(sum(launch.timing.in_graph_ms for launch in captured.graphs[0].launches))
    assert run.replay_ms is None and run.launch_cpu_ms is None  # CUDA graphs and launch time: GPU only


def test_round_trip_and_views(captured):
    back = Capture.from_json(captured.to_json())
    assert back.findings == captured.findings and back.graphs[0].fusions == captured.graphs[0].fusions
    assert back.graphs[0].as_run == captured.graphs[0].as_run
    assert json.loads(back.to_json()) == json.loads(captured.to_json())
    text = summary(back)
    assert "findings by rule and graph (most time at stake first):" in text
    assert "refused-fusion" in text and "graph-break" in text
    assert "as it runs: plain call()" in text
    page = back.to_html()
    assert "Findings" in page and "cannot fuse" in page
    old = json.loads(captured.to_json())  # schema 3 had none of it: it loads, and its findings are worked out
    old["schema_version"] = 3
    for key in ("findings",):
        del old[key]
    for graph in old["graphs"]:
        del graph["fusions"], graph["as_run"]
    loaded = Capture.from_dict(old)
    assert loaded.findings == [] and loaded.graphs[0].fusions == [] and loaded.graphs[0].as_run is None
    rules = {f.rule for f in advise(loaded)}  # of the launches' timings too (latency-bound: ones under 5 µs)
    assert "graph-break" in rules and not rules & {"refused-fusion", "wrapper-overhead"}


def _timed_graph(plain: float, kernels: float, replay: float | None, note: str | None = None) -> Capture:
    launches = [Launch(index=i, step=i, kernel_name=f"k{i}", timing=LaunchTiming(in_graph_ms=kernels / 4))
                for i in range(4)]
    graph = Graph(id="1_backward", kind="backward", device="cuda", code="", launches=launches,
                  as_run=AsRun("gpu", plain, 20, 0.01, launch_cpu_ms=0.9 * plain, kernels_ms=kernels,
                               replay_ms=replay, note=note))
    return Capture(graphs=[graph])


def test_launch_bound_saving_is_measured_or_not_claimed():
    # a graph whose GPU is idle 45% of its plain call(): 2.27 ms plain, kernels busy 1.25 ms, replayed 1.30 ms
    [found] = advise(_timed_graph(2.27, 1.25, 1.30))
    assert found.rule == "launch-bound" and found.ms == pytest.approx(0.97)
    assert "measured" in found.how and "45%" in found.evidence and "reduce-overhead" in found.suggestion
    [unmeasured] = advise(_timed_graph(2.27, 1.25, None, note="call() could not be captured into a CUDA graph: x"))
    assert unmeasured.ms == pytest.approx(1.02)  # the idle time at stake, said to be no saving
    assert "not a measured saving (call() could not be captured" in unmeasured.how
    assert advise(_timed_graph(1.5, 1.25, 1.3)) == []  # idle 17% of the plain time: not launch-bound


def test_the_replay_s_median_says_how_many_replays_it_is_of():
    """The replays are counted apart from the plain runs; a file saved before they were does not say how many."""
    capture = _timed_graph(2.27, 1.25, 1.30)
    run = capture.graphs[0].as_run
    run.replays = 5
    assert "(CUDA events, medians of 20 runs and 5 replays)" in advise(capture)[0].how
    assert "as a CUDA graph 1.3 ms (5 replays)" in as_run_line(run)
    old = capture.to_dict()
    del old["graphs"][0]["as_run"]["replays"]
    loaded = Capture.from_dict(old).graphs[0].as_run
    assert loaded.replays == 0 and "(CUDA events, medians of 20 runs)" in advise(Capture.from_dict(old))[0].how
    assert "as a CUDA graph 1.3 ms ·" in as_run_line(loaded) + " ·" and "replays" not in as_run_line(loaded)


def test_launch_bound_says_what_cpp_wrapper_saves_beside_a_cuda_graph():
    """Both savings where both were timed, the larger one claimed; else one line says why cpp_wrapper's was not."""
    alone = advise(_timed_graph(2.27, 1.25, 1.30))[0]
    assert "replayed as a CUDA graph" in alone.how and alone.how.count("cpp_wrapper's saving not measured: ") == 1
    assert "cpp_wrapper = True" in alone.how and "\n" not in alone.how
    plain = _timed_graph(2.27, 1.25, 1.30)
    native = _timed_graph(1.10, 1.05, 1.08).graphs[0]
    native.id, native.wrapper = "1_backward_cpp", "cpp"
    plain.graphs.append(native)
    found = {a.graph: a for a in advise(plain) if a.rule == "launch-bound"}
    both = found["1_backward"]
    assert both.ms == pytest.approx(2.27 - 1.10)  # cpp_wrapper's measured saving, the larger of the two
    assert both.how.startswith("cpp_wrapper measured: the Python call() 2.27 ms − the same kernels under the C++ "
                               "wrapper 1.1 ms = 1.17 ms") and "replayed as a CUDA graph 1.3 ms" in both.how
    assert "1_backward_cpp" not in found  # 5% idle: not launch-bound
    package = _timed_graph(2.27, 1.25, None, note=NO_REPLAY).graphs[0]
    package.wrapper, package.package = "cpp", Package(path="/x/model.pt2")
    [shipped] = graph_findings(package)
    assert shipped.how.endswith(f"({NO_REPLAY}); this graph already runs a C++ wrapper (an AOTInductor package)")


def test_findings_are_plain_data():
    found = advise(_timed_graph(2.27, 1.25, 1.30))
    assert all(isinstance(f, Advice) for f in found)
    assert kernelviz.Advice is Advice and json.loads(Capture(findings=found).to_json())["findings"][0]["rule"] \
        == "launch-bound"


def test_measured_counters_give_the_top_stall_reason_of_the_hottest_launch():
    cap = kernelviz.load(Path(__file__).parent / "fixtures" / "counters" / "h100" / "hot_line.json")
    launch = cap.graphs[0].launches[0]
    (stall,) = [a for a in cap.advice() if a.rule == "stall"]
    top = launch.counters.stalls[0]
    assert stall.launches == [launch.index] and top.reason in stall.evidence
    assert f"{100 * top.share:.0f}% of stalls" in stall.evidence and "Nsight Compute" in stall.evidence


def test_no_finding_suggests_cpp_wrapper_where_it_runs_or_was_measured_no_faster():
    """cpp_wrapper is suggested only where the graph runs Python's call() and the C++ wrapper was not measured
    slower; where it was, the finding says so and suggests what is left."""
    def pair(python_ms: float, cpp_ms: float, device: str) -> Capture:
        capture = _timed_graph(python_ms, 1.25, None, note="x")
        native = _timed_graph(cpp_ms, 1.25, None, note="x").graphs[0]
        native.id, native.wrapper = "1_backward_cpp", "cpp"
        capture.graphs.append(native)
        for graph in capture.graphs:
            graph.device, graph.as_run.unit = device, "cpu" if device == "cpu" else "gpu"
        return capture

    for device, rule in (("cuda", "launch-bound"), ("cpu", "wrapper-overhead")):
        for python_ms, cpp_ms in ((2.27, 1.9), (2.27, 2.4), (2.27, 2.27)):
            found = {a.graph: a for a in advise(pair(python_ms, cpp_ms, device)) if a.rule == rule}
            python, cpp = found["1_backward"], found.get("1_backward_cpp")
            faster = cpp_ms < python_ms
            assert ("cpp_wrapper = True" in python.suggestion) == faster, (device, python.suggestion)
            assert ("cpp_wrapper measured no faster: " in python.how) == (not faster), python.how
            assert cpp is None or "cpp_wrapper = True" not in cpp.suggestion, cpp.suggestion


def test_every_rule_the_advice_writes_is_one_a_saved_capture_reads_back():
    from typing import get_args

    from kernelviz.advice import RULES
    from kernelviz.model import Rule

    assert set(RULES) == set(get_args(Rule))
