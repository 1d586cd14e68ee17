"""Why dynamo did not compile something: the capture reports dynamo's own reasons for graph breaks,
recompiles and skipped frames, with the user's line. (On the GPU machine these run on CUDA with torch 2.11.)"""

import inspect
import re

import pytest
import torch

import kernelviz
import zoo
from kernelviz.recorder.guards import change
from kernelviz.views.rules import dynamic_sizes
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
    assert [f.rule for f in cap.findings] == ["skip"]
    assert kernelviz.Capture.from_json(cap.to_json()) == cap  # its finding's rule is one the reader takes


def test_events_survive_the_json_round_trip(device):
    with kernelviz.capture() as cap:
        torch.compile(zoo.with_graph_break)(torch.randn(64, device=device))
    again = kernelviz.Capture.from_json(cap.to_json())
    assert again.dynamo == cap.dynamo and [g.cache for g in again.graphs] == ["compiled", "compiled"]
    where = f"graph-break  dynamo: {zoo.__file__}:{_line(zoo.with_graph_break, 'graph_break()')} "
    rows = summary(again).splitlines()
    assert any(row.strip().startswith(f"—  {where}(torch._dynamo.graph_break()): ") for row in rows)


def test_recompiles_say_what_changed_what_each_cost_and_what_fits():
    fn = torch.compile(zoo.recompiles)
    with kernelviz.capture() as cap:
        for size in (8, 16, 24, 32):  # 16 recompiles with the size dynamic: 24 and 32 run that graph
            fn(torch.randn(size), 2)
        fn(torch.randn(32), 3.5)
        fn(torch.randn(32, dtype=torch.float64), 3.5)
    assert len(cap.graphs) == 4
    events = [e for e in cap.dynamo if e.kind == "recompile"]
    assert [(e.guard, e.change) for e in events] == [
        ("size", "x.size(0): 8 -> 16"), ("number", "n: int 2 -> float 3.5"), ("dtype", "x.dtype: float32 -> float64")]
    assert all(0 < e.compile_s < 120 for e in events)
    found = [f for f in cap.findings if f.rule == "recompile"]
    assert [f.evidence.split(": ", 1)[1] for f in found] == [
        f"{e.change} (recompiled in {e.compile_s:.2f} s)" for e in events]
    size, number, dtype = (f.suggestion for f in found)
    assert "mark_dynamic(x, dim)" in size and "torch.tensor(n)" in number and "mark_dynamic" not in number
    assert "keep x one dtype" in dtype
    total = f"the capture spent {sum(e.compile_s for e in events):.2f} s recompiling in all"
    assert all(total in f.how for f in found)
    again = kernelviz.Capture.from_json(cap.to_json())
    assert again.dynamo == cap.dynamo and "n: int 2 -> float 3.5 (recompiled in" in summary(again, width=200)
    # the graph compiled with the size dynamic names its symbol, and the size it ran with first
    assert [dynamic_sizes(g) for g in again.graphs][0] == ""
    assert re.fullmatch(r"dynamic shapes: arg1_1 \[s\d+\] ran as \[16\]", dynamic_sizes(again.graphs[1]))
    assert "\n  dynamic shapes: arg1_1 [s" in summary(again) and "dynamic shapes: arg1_1 [s" in again.to_html()


def test_a_type_guard_reads_the_type_it_had_and_the_value_it_has():
    assert change(f"0/1: ___check_type_id(n, {id(int)})", {"n": 3.5}) == ("type", "n: int -> float 3.5")
    assert change(f"1/0: ___check_type_id(L['cfg'], {id(dict)})", {"cfg": [1]}) == ("type", "cfg: dict -> list")
    assert change("0/0: tensor 'L['x']' rank mismatch. expected 2, actual 3", {}) == ("size", "x.dim(): 2 -> 3")
    assert change("0/0: ___check_obj_id(L['self'], 1234)", {}) == ("other", "")


def _library(tmp_path, monkeypatch):
    """A module of an installed package (site-packages) whose function breaks the graph, as transformers'
    ``logger.warning_once`` does (importable while the test runs, as dynamo needs)."""
    import importlib
    import sys

    path = tmp_path / "site-packages" / "chatty.py"
    path.parent.mkdir()
    path.write_text("import torch\n\n\ndef warn_once(x):\n    torch._dynamo.graph_break()\n    return x\n")
    monkeypatch.syspath_prepend(str(path.parent))
    module = importlib.import_module("chatty")
    monkeypatch.setitem(sys.modules, "chatty", module)  # gone again after the test
    return module


def test_a_break_in_library_code_is_one_finding_naming_the_users_line(tmp_path, monkeypatch):
    chatty = _library(tmp_path, monkeypatch)

    def step(x):
        x = chatty.warn_once(torch.sin(x))
        x = chatty.warn_once(torch.cos(x))
        x = chatty.warn_once(torch.sin(x))
        return x.sum()

    with kernelviz.capture() as cap:
        torch.compile(step)(torch.randn(8))
    breaks = [e for e in cap.dynamo if e.kind == "graph_break"]
    assert len(breaks) >= 3 and {(e.file, e.line) for e in breaks} == {(chatty.__file__, 5)}
    assert (breaks[0].caller.file, breaks[0].caller.line) == (__file__, _line(step, "torch.sin(x))"))
    (finding,) = [f for f in cap.findings if f.rule == "graph-break"]
    assert finding.evidence.startswith(f"{__file__}:{breaks[0].caller.line} "
                                       f"(x = chatty.warn_once(torch.sin(x))) -> {chatty.__file__}:5 "
                                       f"({len(breaks)}x): ")
    assert "\n" not in finding.evidence and "library code" in finding.suggestion
    assert "Developer debug context" in breaks[0].reason and "Developer debug context" not in summary(cap)
    html = cap.to_html()  # dynamo's whole text a click away: in the one line's <details>
    (opened,) = html.split("<details><summary>graph break")[1:]
    assert "Developer debug context" in opened.split("</details>")[0]


def test_the_backward_break_of_a_training_step_reads_as_expected():
    model = zoo.make_mlp()
    with kernelviz.capture() as cap:
        torch.compile(zoo.training_step)(model, torch.randn(8, 32), torch.randint(0, 32, (8,)))
    (finding,) = [f for f in cap.findings if f.rule == "graph-break"]
    assert "(loss.backward()): expected: " in finding.evidence and finding.suggestion.startswith("nothing to do")
