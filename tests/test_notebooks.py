"""The quickstart notebook runs top to bottom on the CPU, and its outputs hold the captures."""

import json
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

import kernelviz  # noqa: E402
from kernelviz.views.payload import capture_from_bundle  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def test_quickstart_runs_and_its_outputs_hold_the_captures(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                            store_widget_state=True).execute()
    captures = [capture_from_bundle(out["data"][kernelviz.MIME_TYPE])
                for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
                if kernelviz.MIME_TYPE in out.get("data", {})]
    assert len(captures) == 3
    fwd, step, parts = captures
    assert [g.kind for g in fwd.graphs] == ["inference"]
    assert [g.kind for g in step.graphs] == ["forward", "backward"]
    assert all(launch.timing.in_graph_ms > 0 for launch in step.launches)
    assert len(parts.graphs) == 2
    assert any("aten.native_layer_norm" in k.original_aten for k in fwd.kernels)
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
    assert any("cpp_fused" in o.get("data", {}).get("text/html", "") for o in outputs)
    assert (tmp_path / "kernelviz_report.html").exists()
    assert "widgets" in nb.metadata and json.dumps(nb.metadata["widgets"])
