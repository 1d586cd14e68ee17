"""One GPU, NCCL, one rank: the FSDP2 and functional-collective jobs of test_ranks_gpu.py at world size 1 (what a
one-GPU machine can run of them). Captured and timed on NCCL, results, parameters and RNG kept, saved and loaded.
At one rank NCCL moves nothing between GPUs: a collective is a device copy or nothing, and has no bus figure."""

import pytest

import kernelviz
from ranks_job import fsdp_rank, funcol_rank, run_job

pytestmark = pytest.mark.gpu  # conftest skips it where there is no CUDA


def test_fsdp2_compiled_blocks_on_nccl_at_one_rank(tmp_path):
    found = run_job(fsdp_rank, 1, tmp_path)[0]
    assert found["graphs"] and not found["warnings"]
    assert {g["kind"] for g in found["graphs"]} == {"forward", "backward"}
    for graph in found["graphs"]:  # FSDP2 frees the unsharded parameters after use: recreated inputs
        assert graph["timed_on"] in ("user tensors", "recreated inputs") and graph["timed"] == graph["launches"]
    split = found["split"]
    assert split["unit"] == "gpu" and split["compute_ms"] > 0
    assert found["params_kept"] and found["after_step_finite"]
    ranks = kernelviz.load(tmp_path / "fsdp")
    assert ranks.world_size == 1 and [c.backend for c in ranks.captures] == ["nccl"]


def test_functional_collectives_on_nccl_at_one_rank(tmp_path):
    found = run_job(funcol_rank, 1, tmp_path)[0]
    graph = found["graphs"][0]
    assert graph["timed_on"] == "user tensors" and not graph["warnings"]
    talks = found["collectives"]
    assert [t["op"] for t in talks] == ["all_reduce", "wait_tensor", "all_gather_into_tensor", "wait_tensor",
                                        "reduce_scatter_tensor", "wait_tensor"]
    assert [t["bytes"] for t in talks if t["op"] != "wait_tensor"] == [64 * 2**20] * 3
    for t in talks:
        assert t["bus"] is None and t["alone_bus"] is None  # one rank: no link crossed, no bus figure
    gather = talks[2]
    assert gather["ms"] > 0 and gather["kernels"]  # NCCL's copy at one rank, owned by correlation
    assert found["result_kept"] and found["inputs_kept"] and found["rng_kept"] and found["after_result_kept"]
    assert found["alone_warnings"] == []  # every rank (the one) came to the timing
    ranks = kernelviz.load(tmp_path / "funcol")
    assert ranks.graphs[0].mismatch is None
