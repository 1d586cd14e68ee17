"""A kernel's "your code" lines are those of the code that ran in the capture, also on a cache hit of an
entry that another program filled: two scripts share one Inductor cache and compile the same functions
(at other lines; one with other variable names), each capture names only its own file."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kernelviz

ROOT = Path(__file__).resolve().parents[1]
COMMON = '''
def early(x):
    return torch.cos(x) + 1


def same_step(model, x):
    total = torch.sigmoid(model(x)).sum()
    total.backward()
    return total
'''
ONE = '''import json, torch, kernelviz
from torch._dynamo.utils import counters


def infer(x):
    y = torch.sin(x) * 2
    return torch.relu(y).sum(dim=-1)


def train(model, x):
    hidden = torch.tanh(model(x))
    loss = (hidden * hidden).mean()
    loss.backward()
    return loss
''' + COMMON
TWO = '''import json, torch, kernelviz
from torch._dynamo.utils import counters
# the functions of one.py lower in the file, train with other variable names


def train(model, x):
    activations = torch.tanh(model(x))
    loss = (activations * activations).mean()
    loss.backward()
    return loss


def infer(x):
    y = torch.sin(x) * 2
    return torch.relu(y).sum(dim=-1)
''' + COMMON
RUN = '''
torch.manual_seed(0)
model, x = torch.nn.Linear(16, 16), torch.randn(8, 16)
compiled_early = torch.compile(early)
if BEFORE:
    compiled_early(x)  # compiled before the capture (a cache hit of one.py's entry), only run in it
with kernelviz.capture() as cap:
    torch.compile(infer)(x)
    torch.compile(train)(model, x)
    compiled_early(x)
    torch.compile(same_step)(model, x)
print(json.dumps({"capture": cap.to_dict(), "fx_hits": counters["inductor"]["fxgraph_cache_hit"],
                  "aot_hits": counters["aot_autograd"]["autograd_cache_hit"]}))
'''


def _run(path: Path, cache: Path) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _line(text: str, code: str) -> int:
    return text.splitlines().index(code) + 1


def _lines(graph: dict) -> set[tuple[str, int]]:
    return {(loc["file"], loc["line"]) for k in graph["kernels"] for loc in k["locations"]}


def test_each_script_sharing_a_cache_names_only_its_own_lines(tmp_path):
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text(ONE + "BEFORE = False\n" + RUN)
    two.write_text(TWO + "BEFORE = True\n" + RUN)
    first, second = (_run(path, tmp_path / "cache") for path in (one, two))

    graphs = first["capture"]["graphs"]
    assert [g["cache"] for g in graphs] == ["compiled"] * 6 and first["fx_hits"] == 0
    assert all(_lines(g) and {f for f, _ in _lines(g)} == {str(one)} for g in graphs)

    # infer and same_step: AOTAutograd cache hits (dynamo's graph has the same node names); train: an FX graph
    # cache hit under another dynamo graph (forward and backward); early: compiled before the capture
    infer, forward, backward, early, same_forward, same_backward = second["capture"]["graphs"]
    assert (second["fx_hits"], second["aot_hits"]) == (6, 3)
    assert [g["cache"] for g in second["capture"]["graphs"]] == ["fx_cache_hit"] * 3 + ["reused"] + ["fx_cache_hit"] * 2
    text = two.read_text()
    at = {code: (str(two), _line(text, code)) for code in (
        "    y = torch.sin(x) * 2", "    return torch.relu(y).sum(dim=-1)",
        "    activations = torch.tanh(model(x))", "    loss = (activations * activations).mean()",
        "    total = torch.sigmoid(model(x)).sum()")}
    assert _lines(infer) == {at["    y = torch.sin(x) * 2"], at["    return torch.relu(y).sum(dim=-1)"]}
    assert _lines(forward) == _lines(backward) == {at["    activations = torch.tanh(model(x))"],
                                                   at["    loss = (activations * activations).mean()"]}
    assert _lines(same_forward) == _lines(same_backward) == {at["    total = torch.sigmoid(model(x)).sum()"]}
    assert [loc["code"] for k in forward["kernels"] for loc in k["locations"]][:2] == [
        "loss = (activations * activations).mean()", "activations = torch.tanh(model(x))"]
    # the lines one.py recorded are not of the code that ran: unknown, said so, one.py never named
    assert [(k["locations"], k["locations_unknown"][:38]) for k in early["kernels"]] == [
        ([], "unknown: compiled before the capture, ")]
    assert early["caller"]["file"] == str(two) and str(one) not in json.dumps(second["capture"])


SETUP = "%load_ext kernelviz\nimport torch\nx = torch.randn(8, 16)"
F = "def f(x):\n    y = torch.sin(x) * 2\n    return torch.relu(y).sum(dim=-1)"
CAPTURE = "%%kernelviz -o cap\nout = torch.compile(f)(x)"


def _notebook(*cells: str):
    nbformat = pytest.importorskip("nbformat")
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def _captures(nb) -> list:
    from kernelviz.views.payload import capture_from_bundle

    return [capture_from_bundle(out["data"][kernelviz.MIME_TYPE]) for cell in nb.cells
            for out in cell.get("outputs", []) if kernelviz.MIME_TYPE in out.get("data", {})]


def test_notebooks_sharing_a_cache_name_their_own_cells(tmp_path, monkeypatch):
    """The same function in two notebooks run one after the other on one cache, and in the first a cell
    edited and run again (the graph is the same: a cache hit, its lines lower): each capture names the cell
    that ran, as the notebook shows it, in the model and its text and HTML views."""
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    first = _notebook(SETUP, F, CAPTURE, "# edited: the same graph, lower\n\n" + F, CAPTURE)
    second = _notebook(SETUP, "import math  # another notebook: the same function, lower in its cell\n\n\n" + F,
                       CAPTURE)
    for nb in (first, second):
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    (compiled, edited), (other,) = _captures(first), _captures(second)

    def yours(cap):
        return {(loc.where(), loc.code) for k in cap.kernels for loc in k.locations}

    assert [g.cache for g in compiled.graphs + edited.graphs + other.graphs] == ["compiled"] + ["fx_cache_hit"] * 2
    assert yours(compiled) == {("cell [2], line 2", "y = torch.sin(x) * 2"),
                               ("cell [2], line 3", "return torch.relu(y).sum(dim=-1)")}
    assert yours(edited) == {("cell [4], line 4", "y = torch.sin(x) * 2"),
                             ("cell [4], line 5", "return torch.relu(y).sum(dim=-1)")}
    assert yours(other) == {("cell [2], line 5", "y = torch.sin(x) * 2"),
                            ("cell [2], line 6", "return torch.relu(y).sum(dim=-1)")}
    def dirs(cap):  # each notebook's kernel compiles its cells under a folder of its own
        return {os.path.dirname(loc.file) for k in cap.kernels for loc in k.locations}

    assert len(dirs(compiled)) == len(dirs(other)) == 1 and dirs(compiled) != dirs(other)
    from kernelviz.views.text import summary

    for cap, cell in ((edited, 4), (other, 2)):
        assert f"your code: cell [{cell}], line " in summary(cap) and f"cell [{cell}], line " in cap.to_html()


TRAIN = '''import argparse
import json

import torch
from torch._dynamo.utils import counters

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--plain", action="store_true", help="without LayerNorm and GELU: the gate's baseline")
args = parser.parse_args()
torch.manual_seed(0)
middle = [] if args.plain else [torch.nn.LayerNorm(128), torch.nn.GELU()]
model = torch.nn.Sequential(torch.nn.Linear(64, 128), *middle, torch.nn.Linear(128, 10))


@torch.compile
def step(x, target):
    loss = torch.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    return loss


step(torch.randn(args.batch, 64), torch.randint(0, 10, (args.batch,)))
print(json.dumps({"aot_hits": counters["aot_autograd"]["autograd_cache_hit"]}))
'''
def test_a_training_script_has_its_lines_on_every_run_whatever_filled_the_cache(tmp_path, capsys):
    """`kernelviz demo` compiles the same training step first (another program: other dynamo node names), the
    script runs once without kernelviz (its AOTAutograd entry points to the demo's compile), then under
    `kernelviz run` with --batch 32, 64, 32, 32: each run's every kernel has its line in train.py, the later runs
    are AOTAutograd cache hits, `kernelviz check` against a baseline without LayerNorm and GELU names the same line
    on every run, and each graph's caller is the user's line (the demo's own code for the demo), never the
    console script's."""
    from kernelviz.__main__ import main

    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    script = Path(sys.executable).with_name("kernelviz")  # as `.venv/bin/kernelviz` runs, where it is installed
    kernelviz_cli = [str(script)] if script.exists() else [sys.executable, "-m", "kernelviz"]

    def run(*argv: str) -> str:
        out = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    demo = run(*kernelviz_cli, "demo")
    demo_file = str(ROOT / "kernelviz" / "demo.py")
    ran_from = [line.strip() for line in demo.splitlines() if line.strip().startswith("ran from ")]
    assert ran_from == [f"ran from {demo_file}:{_line(Path(demo_file).read_text(), code)}  `{code.strip()}`"
                        for code in ["        torch.compile(train_step)(x, target)"] * 2]

    def aot_hits(output: str) -> int:
        return json.loads(output.strip().splitlines()[-1])["aot_hits"]

    assert aot_hits(run(sys.executable, str(train))) == 0  # without kernelviz: an AOTAutograd miss, an FX hit
    batches = (32, 64, 32, 32)
    hits = [aot_hits(run(*kernelviz_cli, "run", str(train), "--batch", str(b), "--json", f"run{i}.json"))
            for i, b in enumerate(batches)]
    run(*kernelviz_cli, "run", str(train), "--plain", "--json", "base.json")
    loss_line = (str(train), _line(TRAIN, "    loss = torch.nn.functional.cross_entropy(model(x), target)"))
    step_line = _line(TRAIN, "step(torch.randn(args.batch, 64), torch.randint(0, 10, (args.batch,)))")
    gate = []
    for i, batch in enumerate(batches):
        cap = kernelviz.load(str(tmp_path / f"run{i}.json"))
        assert [g.cache for g in cap.graphs] == ["compiled" if batch == 64 else "fx_cache_hit"] * 2
        assert [(g.caller.file, g.caller.line) for g in cap.graphs] == [(str(train), step_line)] * 2
        assert len(cap.kernels) == 5
        for kernel in cap.kernels:
            assert [(loc.file, loc.line) for loc in kernel.locations] == [loss_line], (i, kernel.name)
            assert kernel.locations_unknown == "", (i, kernel.name)
        assert main(["check", str(tmp_path / "base.json"), str(tmp_path / f"run{i}.json")]) == 1
        gate.append([line for line in capsys.readouterr().out.splitlines() if "added launches" in line])
    assert gate[0] and all(lines == gate[0] for lines in gate)
    assert all(f"train.py:{loss_line[1]}" in line for line in gate[0])
    # the first run's AOTAutograd hit is passed over (its dynamo graph's nodes were never seen); the later
    # batch-32 runs are hits that know them
    assert hits == [0, 0, 1, 1]
