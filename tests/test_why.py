"""Inductor's choices on the CPU (torch 2.13 tunes a bmm there: its C++ GEMM template against the extern call):
every candidate with its time, the winner and its margin, in the JSON, the summary, the report and the payload; a
capture that only runs the graph, or loads it from the FX graph cache, says nothing was tuned in it and where the
result came from. A warm step (a graph compiled before the capture, only run inside it) keeps its fusion decisions
as a fresh compile does. reduce-overhead's skip message read into an event and a finding."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import kernelviz
from kernelviz.advice import advise
from kernelviz.model import AsRun, Capture, CudaGraphEvent, Graph
from kernelviz.recorder.cudagraphs import skip_event
from kernelviz.views.payload import payload
from kernelviz.views.why import cudagraph_lines

ROOT = Path(__file__).resolve().parents[1]


def _bmm(a, b):
    return torch.bmm(a, b).relu()


def _inputs():
    return torch.randn(4, 64, 128), torch.randn(4, 128, 96)


def test_cpu_max_autotune_sweep(fresh_dynamo, inductor_cache):
    compiled = torch.compile(_bmm, mode="max-autotune-no-cudagraphs")
    with kernelviz.capture() as cap:
        compiled(*_inputs())
    [graph] = cap.graphs
    [tuning] = [t for t in graph.tunings if t.op == "bmm"]
    assert tuning.kind == "template" and tuning.tuned and tuning.shapes == "4x64x128, 4x128x96"
    backends = {c.backend for c in tuning.candidates}
    assert "extern" in backends and len(tuning.candidates) >= 2, tuning
    timed = sorted((c for c in tuning.candidates if c.ms is not None), key=lambda c: c.ms)
    assert tuning.winner == timed[0].name
    assert tuning.margin == pytest.approx(timed[1].ms / timed[0].ms - 1)
    # kept in the JSON, said in the summary, drawn in the report and the panel's payload
    again = Capture.from_json(cap.to_json())
    assert again.graphs[0].tunings == graph.tunings
    text = str(cap)
    assert f"autotuned: max-autotune · bmm (4x64x128, 4x128x96): {len(tuning.candidates)} candidates" in text
    assert f"{tuning.winner} won: the runner-up {timed[1].name} took" in text
    report = cap.to_html()
    assert report.count('class="kv-sweep-row kv-winner"') == 1 and timed[1].name in report
    [sweep] = payload(cap)["view"]["sweeps"]
    assert [b["name"] for b in sweep["bars"]][:2] == [timed[0].name, timed[1].name]
    assert sweep["bars"][0]["winner"] and sweep["bars"][1]["share"] == 1.0

    # run again (dynamo's cache): nothing tuned in this capture, the result from the compile before
    with kernelviz.capture() as warm:
        compiled(*_inputs())
    [kept] = warm.graphs[0].tunings
    assert warm.graphs[0].cache == "reused" and not kept.tuned and "earlier in this process" in kept.source
    assert kept.candidates == tuning.candidates
    assert "nothing tuned in this capture: the result of the graph's compile earlier" in str(warm)

    # dynamo forgets, Inductor's FX graph cache gives the graph back: its tunings come with it
    torch._dynamo.reset()
    with kernelviz.capture() as hit:
        torch.compile(_bmm, mode="max-autotune-no-cudagraphs")(*_inputs())
    assert hit.graphs[0].cache == "fx_cache_hit"
    [loaded] = hit.graphs[0].tunings
    assert not loaded.tuned and "FX graph cache" in loaded.source and loaded.winner == tuning.winner


WARM = r"""
import dataclasses, json, torch, kernelviz, zoo
torch.manual_seed(0)
x, w, b = torch.randn(16, 32), torch.randn(32), torch.randn(32)
fresh = torch.compile(zoo.layer_norm_relu)
if __import__("sys").argv[1] == "warm":
    fresh(x, w, b)  # compiled before the capture, only run inside it
with kernelviz.capture() as cap:
    fresh(x, w, b)
[g] = cap.graphs
print(json.dumps({"cache": g.cache, "fusions": [dataclasses.asdict(f) for f in g.fusions],
                  "metadata": sorted({k.metadata_from for k in g.kernels}),
                  "locations": sum(len(k.locations) for k in g.kernels)}, default=str))
"""


def _warm(mode: str, cache: Path) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    out = subprocess.run([sys.executable, "-c", WARM, mode], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_warm_step_keeps_its_fusion_decisions(tmp_path):
    """A graph compiled before the capture (kernelviz imported beside torch) has the same fusion decisions and
    kernel metadata as one compiled inside it (each in a new process with an empty cache of its own)."""
    fresh = _warm("fresh", tmp_path / "a")
    warm = _warm("warm", tmp_path / "b")
    assert (fresh["cache"], warm["cache"]) == ("compiled", "reused")
    assert fresh["fusions"] and warm["fusions"] == fresh["fusions"]
    assert warm["metadata"] == fresh["metadata"] == ["inductor"]


def test_hooks_of_a_capture_go_and_those_of_compiles_stay(fresh_dynamo):
    import torch._inductor.codecache as codecache
    import torch._inductor.graph as graph_module

    from kernelviz.recorder import inductor

    before = codecache.FxGraphCache.__dict__.get("find_guarded_entry")
    with kernelviz.capture():
        assert codecache.FxGraphCache.__dict__.get("find_guarded_entry") is not before
    assert codecache.FxGraphCache.__dict__.get("find_guarded_entry") is before  # a capture's own: undone
    kept = graph_module.GraphLowering.__dict__["__init__"]
    assert kept.__qualname__.endswith("wrapper")  # reading compiles: kept for the process
    inductor._forget_why()
    try:
        assert not graph_module.GraphLowering.__dict__["__init__"].__qualname__.endswith("wrapper")
    finally:
        inductor.keep_why()


MESSAGE = ("skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
           '   File "/home/me/train.py", line 12, in step\n    y.add_(1)\n')


def test_a_cudagraph_skip_is_an_event_and_a_finding():
    event = skip_event(MESSAGE)
    assert (event.kind, event.reason) == ("skip", "mutated inputs (1 instances)")
    assert (event.location.file, event.location.line, event.location.code) == ("/home/me/train.py", 12, "y.add_(1)")
    graph = Graph("0_inference", "inference", "cuda", "", cudagraphs=[event])
    cap = Capture(graphs=[graph])
    [untimed] = [f for f in advise(cap) if f.rule == "cudagraph-skip"]
    assert untimed.ms is None and untimed.how.startswith("not measured: the graph was not timed")
    graph.as_run = AsRun("gpu", 0.50, 20, replay_ms=0.20)
    [found] = [f for f in advise(cap) if f.rule == "cudagraph-skip"]
    assert found.ms == pytest.approx(0.30)
    assert "mutated inputs (1 instances) at /home/me/train.py:12 (y.add_(1))" in found.evidence
    assert found.suggestion.startswith("do not mutate an input in place")
    graph.cudagraphs.append(CudaGraphEvent("re-record", "new input sizes (8x4 recorded before)", shapes="16x4"))
    text = str(cap)
    assert "CUDA graphs: not run as a CUDA graph" in text and "re-recorded for 16x4: new input sizes" in text


class _Seen:
    """A recorder that keeps reduce-overhead's events told to it."""

    def __init__(self):
        self.events = []

    def on_cudagraph(self, event, key):
        self.events.append(event)


def test_recordings_tell_partitions_and_the_cause_of_each_re_record():
    """What the CUDA-graph trees' hooks tell for three runs of one graph of two partitions: sizes 8, 8 again after
    a failed invariant, then 16 (the hooks called as Inductor calls them, in a graph's call())."""
    from types import SimpleNamespace

    from kernelviz.recorder import cudagraphs, routing

    seen = _Seen()
    ident = routing.add(seen)
    try:
        for n, status in ((8, None), (8, "static input data pointer changed"), (16, None)):
            if status:
                cudagraphs._on_status(SimpleNamespace(name="StaticInputIdxMismatch"), lambda s=status: s)
            running, call = routing.running.set("graph-of-two-partitions"), routing.call.set(object())
            try:
                cudagraphs._on_record([torch.empty(n, 4), 3])
                cudagraphs._on_record([torch.empty(n, 2)])
            finally:
                routing.running.reset(running)
                routing.call.reset(call)
    finally:
        routing.remove(seen, ident)
    assert [(e.kind, e.reason, e.shapes) for e in seen.events] == [
        ("record", "", "8x4"), ("record", "partition 2", "8x2"),
        ("re-record", "static input data pointer changed", "8x4"), ("record", "partition 2", "8x2"),
        ("re-record", "new input sizes (8x4 recorded before)", "16x4"), ("record", "partition 2", "16x2")]
    graph = Graph("0_inference", "inference", "cuda", "", cudagraphs=seen.events[:3], cudagraph_replays=4)
    assert cudagraph_lines(graph) == ["CUDA graphs: ran as a CUDA graph, replayed 4x", "recorded for 8x4",
                                      "recorded (partition 2) for 8x2",
                                      "re-recorded for 8x4: static input data pointer changed"]
