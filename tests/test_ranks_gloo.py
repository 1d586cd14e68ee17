"""Two ranks on the CPU (gloo, localhost, torch.multiprocessing spawn): capture, lockstep timing, save and
load of a graph with functional collectives; the lockstep's time limit when one rank stays away; FSDP2 with
compiled blocks."""

import json

import pytest
import torch.multiprocessing as mp

import kernelviz
from kernelviz.views.text import headline
from ranks_job import free_port, fsdp_gloo_rank, gloo_rank


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    out = tmp_path_factory.mktemp("job")
    mp.spawn(gloo_rank, args=(2, free_port(), str(out)), nprocs=2, join=True)
    return out, [json.loads((out / f"result.rank{r}.json").read_text()) for r in range(2)]


def test_each_rank_saves_its_capture_with_rank_world_host_and_backend(job):
    out, results = job
    assert [r["saved"] for r in results] == [str(out / "step.rank0.kvz"), str(out / "step.rank1.kvz")]
    ranks = kernelviz.load(out / "step")
    assert [c.rank for c in ranks.captures] == [0, 1] and ranks.world_size == 2
    for cap in ranks.captures:
        assert cap.world_size == 2 and cap.host and cap.device == "cpu" and cap.backend == "gloo"
        assert f"rank {cap.rank} of 2 on {cap.host} (cpu, gloo)" in headline(cap)
    assert [(info.rank, info.host) for info in ranks.ranks] == [(c.rank, c.host) for c in ranks.captures]


def test_collectives_in_call_order_with_op_bytes_group_and_times(job):
    out, _ = job
    for cap in kernelviz.load(out / "step").captures:
        graph = cap.graphs[0]
        talks = [launch for launch in graph.launches if launch.collective]
        assert [(t.collective.op, t.collective.bytes, t.collective.group_ranks) for t in talks] == [
            ("all_reduce", 512, [0, 1]), ("wait_tensor", None, None), ("all_gather_into_tensor", 1024, [0, 1]),
            ("wait_tensor", None, None), ("reduce_scatter_tensor", 1024, [0, 1]), ("wait_tensor", None, None)]
        assert [t.index for t in talks] == sorted(t.index for t in talks)
        assert graph.timed_on == "user tensors"
        for t in talks:
            assert t.timing.in_graph_ms > 0 and t.timing.unit == "cpu"
            if t.collective.op == "wait_tensor":
                assert t.collective.wait_ms == t.timing.in_graph_ms
            else:  # all_reduce moves 2(n-1)/n of its bytes over the bus, the others (n-1)/n
                factor = 1.0 if t.collective.op == "all_reduce" else 0.5
                assert t.collective.bus_gb_per_s == pytest.approx(
                    t.collective.bytes / (t.timing.in_graph_ms / 1e3) / 1e9 * factor)


def test_the_block_is_split_into_compute_communication_and_idle(job):
    out, _ = job
    for info in kernelviz.load(out / "step").ranks:
        step = info.step
        assert step.unit == "cpu" and step.window_ms > 0
        parts = step.compute_ms + step.comm_ms + step.overlap_ms + step.idle_ms
        assert parts == pytest.approx(step.window_ms)
        assert {"all_reduce", "all_gather", "reduce_scatter"} <= {c.op for c in step.collectives}


def test_the_ranks_agree_and_a_planted_mismatch_is_named(job, tmp_path):
    out, _ = job
    ranks = kernelviz.load(out / "step")
    assert [(g.kernels_agree, g.collectives_agree, g.mismatch) for g in ranks.graphs] == [(True, True, None)]
    assert all(len(launch.ms) == 2 and None not in launch.ms for launch in ranks.launches)
    for r in range(2):
        data = kernelviz.load(out / f"step.rank{r}.kvz").to_dict()  # what cap.save() wrote, compressed
        if r == 1:  # rank 1 reduce-scatters where rank 0 all-gathers: the order of collectives differs
            talks = [launch for launch in data["graphs"][0]["launches"] if launch["collective"]]
            talks[2]["collective"]["op"], talks[4]["collective"]["op"] = talks[4]["collective"]["op"], \
                talks[2]["collective"]["op"]
        (tmp_path / f"step.rank{r}.json").write_text(json.dumps(data))
    planted = kernelviz.load(tmp_path / "step")
    assert planted.graphs[0].collectives_agree is False
    assert planted.graphs[0].mismatch.startswith(
        "graph 0_inference: collective 2 is all_gather_into_tensor 1.0 KB over ranks [0, 1] on rank 0 but "
        "reduce_scatter_tensor 1.0 KB over ranks [0, 1] on rank 1: a collective-order mismatch")


def test_timing_never_changes_the_results(job):
    _, results = job
    for found in results:
        assert found["result_kept"] and found["inputs_kept"] and found["rng_kept"] and found["after_result_kept"]


def test_a_missing_rank_costs_the_time_limit_and_one_line(job):
    _, (rank0, _) = job
    assert 3.0 <= rank0["alone_s"] < 30.0
    assert rank0["alone_warnings"] == ["not timed: its collectives need every rank: rank 1 did not come to the "
                                       "timing of graph 0_inference within 3 s"]
    assert not any(rank0["alone_timed"])


def test_fsdp2_compiled_blocks_captured_timed_and_compared_on_gloo(tmp_path):
    """FSDP2's gathers and scatters run eagerly around the compiled blocks: each rank's block split names
    them, every graph is timed on inputs that still hold memory, the parameters are unchanged and the job
    goes on; the ranks' files agree."""
    mp.spawn(fsdp_gloo_rank, args=(2, free_port(), str(tmp_path)), nprocs=2, join=True)
    for r in range(2):
        found = json.loads((tmp_path / f"result.rank{r}.json").read_text())
        assert {g["kind"] for g in found["graphs"]} == {"forward", "backward"}, found["warnings"]
        for graph in found["graphs"]:  # unsharded parameters are freed after use: never timed on them
            assert graph["timed_on"] in ("user tensors", "recreated inputs") and graph["timed"] == graph["launches"]
        split = found["split"]
        assert split["unit"] == "cpu" and {"all_gather", "reduce_scatter"} <= set(split["ops"])
        assert split["compute_ms"] + split["comm_ms"] + split["overlap_ms"] + split["idle_ms"] == pytest.approx(
            split["window_ms"])
        assert found["params_kept"] and found["after_step_finite"]
    ranks = kernelviz.load(tmp_path / "fsdp")
    assert len(ranks.graphs) == 4 and all(g.kernels_agree and g.collectives_agree for g in ranks.graphs)
