"""The %%kernelviz magic through IPython's InteractiveShell, and the command line."""

import json
import re
import subprocess
import sys

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.__main__ import main

InteractiveShell = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext kernelviz", store_history=False)
    ip.run_cell("import torch, sys; sys.path.insert(0, %r); import zoo" % str(FIXTURES.parent), store_history=False)
    yield ip
    InteractiveShell.clear_instance()


def test_cell_magic_captures_and_returns_the_cell_value(shell, capsys):
    result = shell.run_cell("%%kernelviz -o cap\nx = torch.randn(8, 32)\n"
                            "out = torch.compile(zoo.pointwise)(x)\nout.shape")
    assert result.success
    assert tuple(result.result) == (8, 32)
    cap = shell.user_ns["cap"]
    assert isinstance(cap, kernelviz.Capture) and len(cap.graphs) == 1
    assert "out" in shell.user_ns
    printed = capsys.readouterr().out
    assert "kernelviz: 1 graph (1 inference), 1 kernel (1 cpp)" in printed
    assert cap.kernels[0].name in printed and "add · mul · relu · sigmoid _0" in printed  # the full name and the label


def test_line_magic(shell):
    result = shell.run_cell("%kernelviz -o cap2 y = torch.compile(zoo.reduction)(torch.randn(4, 8))")
    assert result.success
    assert "aten.sum" in shell.user_ns["cap2"].kernels[0].original_aten
    assert shell.user_ns["y"].shape == (4,)


def test_cell_error_propagates_and_capture_is_kept(shell, capsys):
    result = shell.run_cell("%%kernelviz -o cap3\nz = torch.compile(zoo.pointwise)(torch.randn(5))\n"
                            "raise KeyError('boom')")
    assert isinstance(result.error_in_exec, KeyError) and result.error_in_exec.args == ("boom",)
    assert len(shell.user_ns["cap3"].graphs) == 1
    assert "KeyError" in capsys.readouterr().out


def test_cell_that_compiles_nothing_says_so(shell, capsys):
    assert shell.run_cell("%%kernelviz\n1 + 1").success
    assert "nothing was compiled or run by torch.compile" in capsys.readouterr().out


def test_bad_magic_arguments_give_one_line(shell, capsys):
    shell.run_cell("%%kernelviz --no-such-flag\n1")
    err = capsys.readouterr().err.strip()
    assert err.startswith("kernelviz:") and "\n" not in err


def test_cli_show_fixture(capsys, tmp_path):
    out = tmp_path / "cap.json"
    assert main(["show", str(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "graph 8_inference [inference, cuda]" in printed and "extern_kernels.convolution" in printed
    assert kernelviz.Capture.from_json(out.read_text()).graphs[0].id == "8_inference"
    assert main(["show", str(out)]) == 0


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "notes.py"
    bad.write_text("print('hi')\n")
    proc = subprocess.run([sys.executable, "-m", "kernelviz", "show", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "expected Inductor output code" in proc.stderr


def test_cell_error_shows_the_cells_traceback_as_without_the_magic(shell, capsys):
    plain = shell.run_cell("def boom():\n    raise KeyError('boom')\nboom()")
    expected = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    result = shell.run_cell("%%kernelviz\ndef boom():\n    raise KeyError('boom')\nboom()")
    shown = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert isinstance(result.error_in_exec, KeyError) and isinstance(plain.error_in_exec, KeyError)
    for text in ("----> 3 boom()", "----> 2     raise KeyError('boom')", "KeyError: 'boom'"):
        assert text in shown and text in expected
    assert "run_cell_magic" not in shown and "magic.py" not in shown and "kernelviz" not in shown.split("KeyError")[-1]


def test_cell_source_lines_show_the_cells_text(shell):
    assert shell.run_cell("%%kernelviz -o cap4\ndef scaled(x):\n    return torch.sin(x) * 2\n"
                          "y = torch.compile(scaled)(torch.randn(8))", store_history=True).success
    locations = [loc for k in shell.user_ns["cap4"].kernels for loc in k.locations]
    number = shell.execution_count - 1  # the cell's In [n]; its lines are counted from the magic's line
    assert any(loc.code == "return torch.sin(x) * 2" and loc.where() == f"cell [{number}], line 3"
               for loc in locations), locations


def test_sequential_gets_the_line_that_called_it(shell):
    assert shell.run_cell("%%kernelviz -o cap5\nm = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())\n"
                          "out = torch.compile(m)(torch.randn(2, 8))").success
    caller = shell.user_ns["cap5"].graphs[0].caller
    assert caller is not None and caller.code == "out = torch.compile(m)(torch.randn(2, 8))" and caller.line == 3


def test_graph_break_in_a_cell_is_named_as_the_cell_shows_it(shell):
    assert shell.run_cell("%%kernelviz -o cap6\ndef broken(x):\n    x = torch.sin(x)\n    torch._dynamo.graph_break()\n"
                          "    return torch.cos(x)\nout = torch.compile(broken)(torch.randn(4))",
                          store_history=True).success
    cap, number = shell.user_ns["cap6"], shell.execution_count - 1
    assert [e.where() for e in cap.dynamo if e.kind == "graph_break"] == [f"cell [{number}], line 4"]
    assert {g.caller.where() for g in cap.graphs} == {f"cell [{number}], line 6"}
    summary = kernelviz.views.text.summary(cap, width=200)
    assert f"graph-break  dynamo: cell [{number}], line 4 (torch._dynamo.graph_break()): " in summary
    (finding,) = [f for f in cap.findings if f.rule == "graph-break"]  # its finding names the cell the same way
    assert finding.evidence.startswith(f"cell [{number}], line 4 (torch._dynamo.graph_break()): ")


def test_counters_flag_on_the_cpu_says_why_in_one_line(shell, capsys):
    assert shell.run_cell("%%kernelviz --counters -o cap4\ntorch.compile(zoo.pointwise)(torch.randn(5))").success
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("kernelviz: counters")]
    assert err == ["kernelviz: counters not measured: no CUDA graph in this capture (Nsight Compute measures GPU "
                   "kernels)"]
    assert shell.user_ns["cap4"].graphs[0].timed_on and all(x.counters is None for x in shell.user_ns["cap4"].launches)


def test_diff_against_a_base_that_fails_lets_the_cells_own_exception_through(shell, capsys, tmp_path):
    """A base that fails to diff (a number beyond a double) prints one line; the cell's KeyError is raised."""
    data = json.loads((FIXTURES / "pairs-h100-torch2.11" / "pair_default.json").read_text())
    data["graphs"][0]["launches"][0]["timing"]["bytes"] = 10 ** 400
    (tmp_path / "base.json").write_text(json.dumps(data))
    result = shell.run_cell(f"%%kernelviz --diff {tmp_path / 'base.json'}\nraise KeyError('the cell')")
    assert isinstance(result.error_in_exec, KeyError) and result.error_in_exec.args == ("the cell",)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("kernelviz:")]
    assert len(lines) <= 1 and all("base.json" in line for line in lines)
