"""A capture kept alive says what it holds and gives it back; kernelviz's children keep their own bytecode."""

import os
import subprocess
import sys

import torch

import kernelviz
from kernelviz.children import child_environment


def test_a_capture_says_what_it_holds_for_timing_later_and_release_gives_it_back():
    index = torch.randint(0, 1000, (200_000,))  # an input whose values steer the graph, too big to keep in the model
    table = torch.randn(1000, 8)
    f = torch.compile(lambda t, i: t[i].sum(1).relu())
    with kernelviz.capture() as cap:
        f(table, index)
    assert cap.held_bytes() >= index.numel() * index.element_size()  # a copy of the index, to recreate it later
    assert cap.release() is cap and cap.held_bytes() == 0
    cap.bench(progress=False)  # timed all the same, in the timing process, on recreated inputs
    assert all(g.gpu_busy_ms is not None or g.as_run is not None for g in cap.graphs)


def test_children_keep_their_own_bytecode_where_this_process_keeps_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = child_environment()
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPYCACHEPREFIX"].startswith(str(tmp_path))
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"  # the user's own setting stays as it was
    subprocess.run([sys.executable, "-c", "import kernelviz.calls.grid"], env=env, check=True)
    assert any(p.name.startswith("grid.") and p.suffix == ".pyc" for p in tmp_path.rglob("*.pyc"))
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
    assert "PYTHONPYCACHEPREFIX" not in child_environment()  # bytecode kept beside the sources: nothing to add
