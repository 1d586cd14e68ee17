"""Captures with Inductor's caches on, each step in a new process sharing one cache directory:

1. plain torch.compile fills the cache (no kernelviz);
2. a capture finds entries without kernelviz metadata: it says so in one line and has the full
   metadata (Inductor generated those graphs' code again);
3. plain torch.compile in a new process hits the cache kernelviz wrote to, and runs right;
4. a capture hits the cache (FX graph and AOTAutograd caches) and has the same full metadata, also
   for a graph that was loaded before the capture and only run inside it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = r"""
import json, sys
import torch, zoo
from torch._dynamo.utils import counters
mode, device = sys.argv[1:3]
torch.manual_seed(0)
x, w, b = (torch.randn(*shape, device=device) for shape in ((16, 32), (32,), (32,)))
t = torch.randint(0, 32, (16,), device=device)
model = zoo.make_mlp(device)
def work():
    return torch.compile(zoo.layer_norm_relu)(x, w, b), torch.compile(zoo.training_step)(model, x, t)
row = {"device": device}
if mode == "plain":
    out, loss = work()
else:
    import kernelviz
    if mode == "loaded-before":
        torch.compile(zoo.layer_norm_relu)(x, w, b)
    with kernelviz.capture() as cap:
        out, loss = work()
    row["capture"] = cap.to_dict()
expected = zoo.training_step(zoo.make_mlp(device), x, t)
close = lambda a, e: bool(torch.allclose(a, e, rtol=1e-5, atol=1e-5))
row.update(right=close(out, zoo.layer_norm_relu(x, w, b)) and close(loss, expected),
           fx_hits=counters["inductor"]["fxgraph_cache_hit"], aot_hits=counters["aot_autograd"]["autograd_cache_hit"])
print(json.dumps(row))
"""


def _run(mode: str, device: str, cache: Path) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode, device], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module", params=["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def steps(request, tmp_path_factory):
    cache = tmp_path_factory.mktemp(f"shared-inductor-cache-{request.param}")
    return {name: _run(mode, request.param, cache) for name, mode in
            (("plain", "plain"), ("regenerated", "capture"), ("plain_after", "plain"), ("warm", "loaded-before"))}


def _kernels(row: dict) -> list[dict]:
    return [k for g in row["capture"]["graphs"] for k in g["kernels"]]


def _assert_full_metadata(row: dict) -> None:
    kernels = _kernels(row)
    kind = "cpp" if row["device"] == "cpu" else "triton"  # C++ kernels carry no metadata comments
    assert len(kernels) >= 3 and all(k["kind"] == kind for k in kernels)
    zoo_file = str(ROOT / "tests" / "zoo.py")
    for k in kernels:
        assert k["metadata_from"] == "inductor" and k["source_nodes"] and k["original_aten"], k["name"]
        assert set(k["node_mapping"]) == set(k["source_nodes"]) and k["fragment"], k["name"]
        assert any(loc["file"] == zoo_file for loc in k["locations"]), k["name"]
    launches = [launch for g in row["capture"]["graphs"] for launch in g["launches"] if launch["kernel_name"]]
    assert launches and all(launch["original_aten"] for launch in launches)


def test_cache_filled_without_kernelviz_is_regenerated_once_with_a_one_line_message(steps):
    row = steps["regenerated"]
    assert row["right"] and row["fx_hits"] == 0
    assert row["capture"]["warnings"] == [
        "3 graphs were in Inductor's cache without kernelviz metadata (the cache was filled without kernelviz): "
        "kernelviz had Inductor generate their code again to read it; the cache stays valid"]
    assert [g["cache"] for g in row["capture"]["graphs"]] == ["compiled"] * 3
    _assert_full_metadata(row)


def test_plain_torch_compile_still_hits_the_shared_cache(steps):
    for name in ("plain_after", "warm"):
        assert steps[name]["right"], name
        assert (steps[name]["fx_hits"], steps[name]["aot_hits"]) == (3, 2), name  # FX: 3 graphs; AOTAutograd: 2 frames


def test_warm_hit_in_a_new_process_has_full_metadata(steps):
    warm, regenerated = steps["warm"], steps["regenerated"]
    assert warm["capture"]["warnings"] == []
    graphs = warm["capture"]["graphs"]
    assert [(g["kind"], g["cache"], g["compile_s"], g["calls"]) for g in graphs] == [
        ("inference", "reused", None, 1), ("forward", "fx_cache_hit", None, 1), ("backward", "fx_cache_hit", None, 1)]
    _assert_full_metadata(warm)
    fields = ("name", "source_nodes", "original_aten", "node_mapping", "fragment", "locations")
    assert [[k[f] for f in fields] for k in _kernels(warm)] == [[k[f] for f in fields] for k in _kernels(regenerated)]
