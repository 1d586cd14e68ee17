"""The what-if engine on the CPU: a small model captured here, each candidate compiled again from its FX graph in the
timing process and timed beside the captured code, outputs compared; a planted change that breaks the numerics
flagged and never ranked a win; the budget; the command line on a saved capture."""

import os
from pathlib import Path

import pytest
import torch

import kernelviz
from kernelviz.__main__ import main
from kernelviz.views.whatif import rows
from kernelviz.whatif import Candidate

TESTS = str(Path(__file__).parent)


def _captured():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 32)).eval()
    x = torch.randn(16, 64)
    compiled = torch.compile(model)
    with torch.no_grad(), kernelviz.capture() as cap:
        compiled(x)
        compiled(x)
    return cap


@pytest.fixture(scope="module")
def cap():
    return _captured()


def test_the_graph_inductor_was_given_is_kept(cap):
    graph = cap.graphs[0]
    assert graph.kind == "inference" and graph.fx is not None and "class Repro" in graph.fx
    assert "torch.ops.aten.addmm.default" in graph.fx
    assert graph.fx_static == [0, 1, 3, 4]  # the two layers' weights and biases
    assert kernelviz.Capture.from_json(cap.to_json()).graphs[0].fx == graph.fx


def test_cpu_candidates_recompiled_timed_and_checked(cap, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")]))
    planted = Candidate("cpp_wrapper", "planted: the first output scaled by 1.01", "",
                        transform="whatif_planted:scaled")
    rng = torch.get_rng_state()
    found = cap.whatif(budget_s=300, progress=False,
                       candidates=["cpp_wrapper", "freezing", "cpp_gemm_template", "cudagraphs", planted])
    assert torch.equal(torch.get_rng_state(), rng)  # the user's process: nothing compiled or drawn here
    assert found is cap.whatifs
    by_change = {w.change: w for w in found}
    for kind in ("cpp_wrapper", "freezing", "cpp_gemm_template"):
        row = next(w for w in found if w.kind == kind and not w.change.startswith("planted"))
        assert row.reason is None, row.reason
        assert row.verdict == "same" and row.max_abs_diff < 1e-4, (kind, row.max_abs_diff)
        assert row.before_ms > 0 and row.after_ms > 0 and row.compile_s > 0 and row.graphs == [0]
        assert "float32" in row.tolerance and row.patch
    assert "cpp_wrapper = True" in by_change["a C++ wrapper instead of Python's (cpp_wrapper)"].patch
    broken = by_change[planted.change]
    assert broken.verdict == "differs" and broken.max_rel_diff == pytest.approx(0.01, rel=1e-3)
    cuda = next(w for w in found if w.kind == "cudagraphs")
    assert cuda.reason == f"{cap.graphs[0].id}: CUDA graphs run on a GPU" and cuda.after_ms is None
    measured = [w for w in found if w.after_ms is not None]
    assert measured.index(broken) == len(measured) - 1  # below every change that keeps the outputs
    shown = {row.change: row for row in rows(cap)}
    assert shown[planted.change].status == "differs"
    assert shown[planted.change].flag


def test_budget_spent_and_the_command_line(cap, tmp_path, capsys):
    saved = cap.save(tmp_path / "cap")
    assert main(["whatif", str(saved), "--budget", "0.001", "--only", "cpp_wrapper", "tf32",
                 "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "not run: the time budget of 0.001 s was spent" in out
    assert "TF32 is a GPU's" in out
    kinds = [w.kind for w in kernelviz.load(tmp_path / "out.json").whatifs]
    assert sorted(kinds) == ["cpp_wrapper", "tf32"]


def test_a_training_steps_backward_keeps_its_outputs():
    """A backward's code reuses the memory of its saved tensors (donated): each run gets its own copies, so the
    change is checked on the inputs the captured code saw."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    x = torch.randn(16, 32)
    compiled = torch.compile(model)
    with kernelviz.capture() as cap:
        compiled(x).sum().backward()
    assert [g.kind for g in cap.graphs] == ["forward", "backward"]
    again = Candidate("cpp_wrapper", "compiled again as captured", "")  # no change: the FX graph cache's compile
    [row] = cap.whatif(budget_s=300, progress=False, candidates=[again])
    assert row.reason is None and row.graphs == [0, 1]
    assert row.verdict == "same" and row.max_abs_diff < 1e-4
