"""A notebook run headless (nbclient, widget state stored) with three kernelviz displays: each display after the
first adds at most 10 KB beyond its own payload (the panel's code is saved once per notebook, not per output)."""

import copy
import json
import re

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

import kernelviz  # noqa: E402

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PAYLOAD_PARTS = (kernelviz.MIME_TYPE, "text/html", "text/plain")  # an output's payload; a widget's is its "payload"
FURTHER_DISPLAY_BYTES = 10_000
MODEL_ID = re.compile(r"[0-9a-f]{32}")
CELLS = [
    "import torch, kernelviz\n"
    "def f(x, w):\n    return torch.relu(x @ w) + 1\n"
    "with kernelviz.capture() as cap:\n    torch.compile(f)(torch.randn(8, 16), torch.randn(16, 16))",
    "cap", "cap", "cap",
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


def test_each_further_display_adds_at_most_10_kb_beyond_its_payload(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CELLS])
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    sizes = [_saved_size(nb, n) for n in range(4)]
    added = [_saved_size(nb, n + 1, payload_of=n) - sizes[n] for n in range(3)]
    print(f"\nnotebook {sizes[-1]:,} bytes; each display adds beyond its payload: {', '.join(f'{a:,}' for a in added)}")
    assert all(a <= FURTHER_DISPLAY_BYTES for a in added[1:]), added
