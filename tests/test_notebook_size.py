"""A notebook run headless (nbclient, widget state stored) with three kernelviz displays of a training step captured
with repros: each display after the first adds at most 10 KB beyond its own payload (the panel's code is saved once
per notebook, not per output); the first display does not wait for stages still being read (a real StageReading,
made slow), and what the notebook saves gets them, and holds the whole capture."""

import copy
import json
import re

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

import kernelviz  # noqa: E402
from kernelviz.views.payload import capture_from_bundle, decode  # noqa: E402

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PAYLOAD_PARTS = (kernelviz.MIME_TYPE, "text/html", "text/plain")  # an output's payload; a widget's is its "payload"
FURTHER_DISPLAY_BYTES = 10_000
MODEL_ID = re.compile(r"[0-9a-f]{32}")
SLOW_STAGE = "module {\n  tt.func @slow_stage() {\n    tt.return\n  }\n}\n"
CELLS = [
    "import time, torch, kernelviz\n"
    "from kernelviz.ir import StageJob, StageReading\n"
    "from kernelviz.model import KernelIR\n"
    "torch.manual_seed(0)\n"
    "model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "compiled, update = torch.compile(model), torch.compile(optimizer.step)\n"
    "x = torch.randn(8, 16)\n"
    "def step():\n"
    "    optimizer.zero_grad(set_to_none=True)\n"
    "    compiled(x).square().mean().backward()\n"
    "    update()\n"
    "step()\n"
    "with kernelviz.capture(bench=True, repros=True) as cap:\n"
    "    step()",
    # a GPU capture's stages are read in a thread after it ends: here a kernel's, slowly
    "kernel = cap.kernels[0]\n"
    "kernel.ir = KernelIR()\n"
    "def texts():\n"
    "    time.sleep(2)\n"
    f"    return {{'ttir': {SLOW_STAGE!r}}}, {{'ttir': 'a test'}}, []\n"
    "cap.session.stages = StageReading([StageJob(kernel, kernel.ir, texts)])\n"
    "display(cap)\n"
    "print('stages still being read once shown:', 'compiled stages' in cap.busy())",
    "cap", "cap",
    "cap.save('step.kvz')\nprint('code', sum(len(graph.code) for graph in cap.graphs))",
]


def _reached(state: dict, roots: list[str]) -> set[str]:
    """The widget models that ``roots`` need: themselves and every model their state names, transitively."""
    seen, todo = set(), list(roots)
    while todo:
        model = todo.pop()
        if model in state and model not in seen:
            seen.add(model)
            todo += MODEL_ID.findall(json.dumps(state[model]["state"]))
    return seen


def _saved_size(nb, displays: int, payload_of: int | None = None) -> int:
    """Bytes of ``nb`` as saved had only its first ``displays`` kernelviz outputs been made (the widget state of
    the models they need); with ``payload_of``, that display's payload left empty."""
    nb = copy.deepcopy(nb)
    outputs = [out for cell in nb.cells for out in cell.get("outputs", [])
               if kernelviz.MIME_TYPE in out.get("data", {})]
    for out in outputs[displays:]:
        out["data"] = {"text/plain": ""}
    views = [out["data"][WIDGET_VIEW]["model_id"] for out in outputs[:displays]]
    widgets = nb.metadata["widgets"][WIDGET_STATE]
    keep = _reached(widgets["state"], views)
    widgets["state"] = {k: v for k, v in widgets["state"].items() if k in keep}
    if payload_of is not None:
        out = outputs[payload_of]
        out["data"].update({part: "" for part in PAYLOAD_PARTS})
        widgets["state"][out["data"][WIDGET_VIEW]["model_id"]]["state"]["payload"] = {}
    return len(nbformat.writes(nb).encode())


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    """The notebook, executed, and the folder it ran in."""
    folder = tmp_path_factory.mktemp("three_displays")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CELLS])
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(folder)}}).execute()
    return nb, folder


def _outputs(nb) -> list:
    return [out for cell in nb.cells for out in cell.get("outputs", []) if kernelviz.MIME_TYPE in out.get("data", {})]


def _printed(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def test_each_further_display_adds_at_most_10_kb_beyond_its_payload(notebook):
    nb, _ = notebook
    sizes = [_saved_size(nb, n) for n in range(4)]
    added = [_saved_size(nb, n + 1, payload_of=n) - sizes[n] for n in range(3)]
    code = int(_printed(nb.cells[-1]).split()[-1])
    out = _outputs(nb)[0]["data"]
    parts = {part: len(json.dumps(out[part])) for part in PAYLOAD_PARTS}
    widget = len(json.dumps(nb.metadata["widgets"][WIDGET_STATE]["state"][out[WIDGET_VIEW]["model_id"]]))
    print(f"\nnotebook {sizes[-1]:,} bytes; each display adds beyond its payload: {', '.join(f'{a:,}' for a in added)}"
          f"\none display of {code:,} bytes of output code: "
          + ", ".join(f"{part} {size / code:.2f}x" for part, size in parts.items())
          + f", its widget's state {widget / code:.2f}x")
    assert all(a <= FURTHER_DISPLAY_BYTES for a in added[1:]), added


def test_the_first_display_does_not_wait_for_the_stages_and_what_is_saved_gets_them(notebook):
    nb, folder = notebook
    assert "stages still being read once shown: True" in _printed(nb.cells[1])
    captured = kernelviz.load(folder / "step.kvz")
    assert captured.kernels[0].ir.stages[0].text == SLOW_STAGE
    assert any(k.repro and k.repro.expected for k in captured.kernels)
    outputs = _outputs(nb)
    assert len(outputs) == 3
    for out in outputs:  # each the whole capture, stages and recorded values included
        assert capture_from_bundle(out["data"][kernelviz.MIME_TYPE]) == captured
        live = decode(nb.metadata["widgets"][WIDGET_STATE]["state"][out["data"][WIDGET_VIEW]["model_id"]]["state"]
                      ["payload"])
        assert live["graphs"][0]["kernels"][0]["ir"]["stages"][0]["name"] == "ttir"  # the live panel got them


DIFF_CELLS = [
    "import torch, kernelviz\n"
    "torch.manual_seed(0)\n"
    "x, target = torch.randn(32, 64), torch.randint(0, 10, (32,))\n"
    "def captured(act):\n"
    "    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), act,\n"
    "                                torch.nn.Linear(128, 10))\n"
    "    def train_step(x, target):\n"
    "        loss = torch.nn.functional.cross_entropy(model(x), target)\n"
    "        loss.backward()\n"
    "        return loss\n"
    "    torch._dynamo.reset()\n"
    "    with kernelviz.capture(bench=True) as cap:  # as the quickstart's %%kernelviz --bench\n"
    "        torch.compile(train_step)(x, target)\n"
    "    return cap\n"
    "a, b = captured(torch.nn.GELU()), captured(torch.nn.ReLU())\n"
    "print('code', max(sum(len(g.code) for g in c.graphs) for c in (a, b)))",
    "kernelviz.diff(a, b)",
]


def test_a_diff_output_weighs_at_most_1_5x_the_larger_captures_output_code(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in DIFF_CELLS])
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = int(_printed(nb.cells[0]).split()[-1])
    (out,) = _outputs(nb)
    state = nb.metadata["widgets"][WIDGET_STATE]["state"]
    widget = state[out["data"][WIDGET_VIEW]["model_id"]]["state"]
    parts = {part: len(json.dumps(out["data"][part])) for part in PAYLOAD_PARTS}
    parts["widget payload"] = len(json.dumps(widget["payload"]))
    print(f"\na diff of two captures of {code:,} bytes of output code at most: "
          + ", ".join(f"{part} {size:,} ({size / code:.2f}x)" for part, size in parts.items())
          + f"; in all {sum(parts.values()) / code:.2f}x")
    assert sum(parts.values()) <= 1.5 * code, parts
    shared = decode(out["data"][kernelviz.MIME_TYPE])  # what the user shares is all there
    assert shared["format"] == "kernelviz-diff" and shared["a"]["graphs"] and shared["b"]["graphs"]
    assert kernelviz.Diff.from_dict({k: v for k, v in shared.items() if k != "view"}).groups
