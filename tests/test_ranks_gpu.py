"""Two GPUs, NCCL, one process a GPU (torch.multiprocessing spawn): DDP with a compiled model, FSDP2 with
compiled blocks, and functional collectives inside a compiled graph timed in lockstep. NVLink multicast
stays off in every process (ranks_job.NO_MULTICAST)."""


import pytest

import kernelviz
from ranks_job import ddp_rank, fsdp_rank, funcol_rank, run_job


def _two_gpus() -> bool:
    try:
        import torch

        return torch.cuda.device_count() >= 2
    except ImportError:
        return False


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _two_gpus(), reason="needs 2 CUDA GPUs")]


def _check_split(split, *ops):
    assert split["unit"] == "gpu" and split["window_ms"] > 0
    parts = split["compute_ms"] + split["comm_ms"] + split["overlap_ms"] + split["idle_ms"]
    assert parts == pytest.approx(split["window_ms"], rel=1e-6)
    assert split["comm_ms"] + split["overlap_ms"] > 0 and split["compute_ms"] + split["overlap_ms"] > 0
    assert set(ops) <= set(split["ops"]), split["ops"]


def test_ddp_compiled_model_graphs_split_at_buckets_and_the_step_split(tmp_path):
    results = run_job(ddp_rank, 2, tmp_path)
    for rank, found in enumerate(results):
        assert (found["rank"], found["world"], found["device"], found["backend"]) == (rank, 2, f"cuda:{rank}", "nccl")
        forward = [g for g in found["graphs"] if g["kind"] == "forward"]
        assert len(forward) >= 2, found["graphs"]  # DDPOptimizer: one graph per bucket
        for graph in found["graphs"]:
            assert graph["timed_on"] == "user tensors" and graph["timed"] > 0, graph
        _check_split(found["split"], "all_reduce")  # DDP's bucket all-reduces, outside the graphs
        assert found["split"]["ops"]["all_reduce"] >= 2
        assert found["params_kept"] and found["params_agree"]
    ranks = kernelviz.load(tmp_path / "ddp")
    assert all(g.kernels_agree and g.collectives_agree and not g.missing for g in ranks.graphs)
    assert all(None not in launch.ms for launch in ranks.launches)
    assert ranks.ranks[0].host == ranks.ranks[1].host and ranks.ranks[0].device != ranks.ranks[1].device


def test_fsdp2_compiled_blocks_with_their_gathers_and_scatters(tmp_path):
    results = run_job(fsdp_rank, 2, tmp_path)
    for found in results:
        assert found["graphs"], found["warnings"]
        _check_split(found["split"], "all_gather", "reduce_scatter")
        for graph in found["graphs"]:  # unsharded parameters are freed after use: never timed on them
            assert graph["timed_on"] in ("user tensors", "recreated inputs") and graph["timed"] > 0, graph
        assert found["params_kept"] and found["after_step_finite"]
    ranks = kernelviz.load(tmp_path / "fsdp")
    assert all(g.kernels_agree and g.collectives_agree for g in ranks.graphs)


def test_functional_collectives_timed_in_lockstep_on_nccl(tmp_path):
    results = run_job(funcol_rank, 2, tmp_path)
    for found in results:
        graph = found["graphs"][0]
        assert graph["timed_on"] == "user tensors" and not [w for w in graph["warnings"] if "not timed" in w]
        talks = found["collectives"]
        assert [t["op"] for t in talks] == ["all_reduce", "wait_tensor", "all_gather_into_tensor", "wait_tensor",
                                            "reduce_scatter_tensor", "wait_tensor"]
        assert [t["bytes"] for t in talks if t["op"] != "wait_tensor"] == [64 * 2**20, 128 * 2**20, 128 * 2**20]
        for t in talks:
            if t["op"] == "wait_tensor":
                assert t["wait_ms"] is not None and t["wait_ms"] >= 0
                continue
            assert t["ms"] > 0 and any(k.startswith("nccl") for k in t["kernels"]), t  # owned by correlation
            assert 5 < t["bus"] < 1000, t  # GB/s: more than any PCIe link gives, less than NVLink's peak
        assert found["result_kept"] and found["inputs_kept"] and found["rng_kept"] and found["after_result_kept"]
    rank0 = results[0]
    assert 5.0 <= rank0["alone_s"] < 60.0
    assert rank0["alone_warnings"] == ["not timed: its collectives need every rank: rank 1 did not come to the "
                                       "timing of graph " + results[0]["graphs"][0]["id"] + " within 5 s"]
    ranks = kernelviz.load(tmp_path / "funcol")
    assert ranks.graphs[0].collectives_agree and ranks.graphs[0].mismatch is None
