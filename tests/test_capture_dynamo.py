"""Why dynamo did not compile something: the capture reports dynamo's own reasons for graph breaks,
recompiles and skipped frames, with the user's line. (On the GPU machine these run on CUDA with torch 2.11.)"""

import inspect

import pytest
import torch

import kernelviz
import zoo
from kernelviz.views.text import summary

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.usefixtures("fresh_dynamo", "inductor_cache")]


def _line(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_graph_break_has_dynamo_reason_and_user_line(capfd, device):
    x = torch.randn(64, device=device)
    with kernelviz.capture() as cap:
        torch.compile(zoo.with_graph_break)(x)
    assert len(cap.graphs) == 2
    (event,) = cap.dynamo
    assert (event.kind, event.file, event.line, event.function, event.code) == (
        "graph_break", zoo.__file__, _line(zoo.with_graph_break, "graph_break()"), "with_graph_break",
        "torch._dynamo.graph_break()")
    assert "torch._dynamo.graph_break()" in event.reason and "User code traceback" not in event.reason
    assert "Graph break" not in capfd.readouterr().err  # dynamo's log was read, not printed


def test_recompile_has_the_guard_that_failed(device):
    fn = torch.compile(zoo.reduction, dynamic=False)
    with kernelviz.capture() as cap:
        fn(torch.randn(4, 8, device=device))
        fn(torch.randn(4, 16, device=device))
    assert len(cap.graphs) == 2
    (event,) = cap.dynamo
    assert (event.kind, event.file, event.line, event.function) == (
        "recompile", zoo.__file__, _line(zoo.reduction, "def reduction"), "reduction")
    assert "size mismatch at index 1. expected 8, actual 16" in event.reason


def test_skipped_frame_explains_why_nothing_was_compiled(device):
    x = torch.randn(8, device=device)
    with kernelviz.capture() as cap:
        out = torch.compile(zoo.graph_break_in_loop)(x)
    torch.testing.assert_close(out, zoo.graph_break_in_loop(x))
    assert cap.graphs == []
    (event,) = cap.dynamo  # the graph break that made dynamo skip the frame is this one event
    assert (event.kind, event.file, event.line, event.function, event.code) == (
        "skip", zoo.__file__, _line(zoo.graph_break_in_loop, "graph_break()"), "graph_break_in_loop",
        "torch._dynamo.graph_break()")
    assert "loop" in event.reason
    assert cap.warnings == ["nothing was compiled or run by torch.compile (Inductor) in this capture; "
                            "dynamo skipped 1 frame (reasons in Capture.dynamo)"]


def test_events_survive_the_json_round_trip(device):
    with kernelviz.capture() as cap:
        torch.compile(zoo.with_graph_break)(torch.randn(64, device=device))
    again = kernelviz.Capture.from_json(cap.to_json())
    assert again.dynamo == cap.dynamo and [g.cache for g in again.graphs] == ["compiled", "compiled"]
    where = f"graph break at {zoo.__file__}:{_line(zoo.with_graph_break, 'graph_break()')} "
    assert any(row.startswith(f"  {where}`torch._dynamo.graph_break()`: ") for row in summary(again).splitlines())
