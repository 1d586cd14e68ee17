"""kernelviz.diff on real pairs: default vs max-autotune and a model edit (timed on the H100), CPU (torch 2.13)
against H100 (torch 2.11) output of the same workloads, forward against backward, and the same capture
with every kernel renumbered. Expected pairings are checked against what the captures themselves say
(source nodes, written buffers, timings), not against stored results."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelviz
from conftest import FIXTURES
from kernelviz.compare import Diff
from kernelviz.compare.features import buffer_specs
from kernelviz.model import Capture, CaptureError

PAIRS = FIXTURES / "pairs-h100-torch2.11"
CPU, CUDA = FIXTURES / "cpu-torch2.13", FIXTURES / "cuda-h100-torch2.11"


def pair(name: str) -> Capture:
    return kernelviz.load(PAIRS / f"pair_{name}.json")


def both(folder, *names) -> Capture:
    return Capture(graphs=[g for n in names for g in kernelviz.load(folder / n).graphs])


def side_names(diff: Diff, group, side: str) -> list[str]:
    ga, gb = diff.graph_pair(group)
    graph, idx = (ga, group.a) if side == "a" else (gb, group.b)
    return [graph.launches[i].name for i in idx]


def in_graph_sum(graph, indices) -> float:
    return sum(graph.launches[i].timing.in_graph_ms for i in indices)


def assert_every_launch_accounted_for(diff: Diff) -> None:
    """Each launch of a matched or unmatched graph sits in exactly one group, and in the matches."""
    for side, capture in (("a", diff.a), ("b", diff.b)):
        for gi, graph in enumerate(capture.graphs):
            pairs = [k for k, gm in enumerate(diff.graphs) if getattr(gm, side) == gi]
            assert len(pairs) == 1
            owned = sorted(i for g in diff.groups if g.graph == pairs[0] for i in getattr(g, side))
            assert owned == list(range(len(graph.launches)))
            named = {(m.group, getattr(m, f"{side}_launch")) for m in diff.matches if getattr(m, side) is not None}
            assert {(k, i) for k, g in enumerate(diff.groups) for i in getattr(g, side) if g.graph == pairs[0]} <= named
    for m in diff.matches:
        group = diff.groups[m.group]
        ga, gb = diff.graph_pair(group)
        assert m.a is None or m.a == ga.launches[m.a_launch].name
        assert m.b is None or m.b == gb.launches[m.b_launch].name
        assert 0 <= m.confidence <= 1 and m.how


def test_default_against_max_autotune_finds_the_template_fusions_and_their_times():
    a, b = pair("default"), pair("max-autotune-no-cudagraphs")
    d = kernelviz.diff(a, b)
    assert_every_launch_accounted_for(d)
    assert [(gm.a, gm.b, gm.how, gm.confidence) for gm in d.graphs] == [
        (0, 0, "kind + input shapes", 1.0), (1, 1, "kind + input shapes", 1.0)]
    by_b = {tuple(side_names(d, g, "b")): g for g in d.groups}
    # mm + relu*2: cuBLAS and a pointwise kernel became one Triton template
    mm = by_b[("triton_tem_fused_mm_mul_relu_0",)]
    assert mm.relation == "fused" and side_names(d, mm, "a") == ["extern_kernels.mm", "triton_poi_fused_mul_relu_0"]
    ga, gb = d.graph_pair(mm)
    t = mm.measure("in-graph")
    assert t.a == pytest.approx(in_graph_sum(ga, mm.a)) and t.b == pytest.approx(in_graph_sum(gb, mm.b))
    assert t.pct == pytest.approx(100 * (t.b - t.a) / t.a)
    iso = mm.measure("isolated")
    assert iso.a is None and "extern" in iso.note and iso.b == gb.kernels[0].timing.isolated_ms
    # the fused template reads the inputs once: fewer bytes than the mm's output written and read back
    assert mm.measure("bytes").b < mm.measure("bytes").a
    # MLP: the first addmm and its GELU epilogue fused; the second addmm became a template; layer norm kept
    fused = by_b[("triton_tem_fused_addmm_gelu_t_0",)]
    assert fused.relation == "fused"
    assert side_names(d, fused, "a") == ["extern_kernels.mm", "triton_poi_fused_addmm_gelu_0"]
    addmm = by_b[("triton_tem_fused_addmm_gelu_t_1",)]
    assert addmm.relation == "changed" and side_names(d, addmm, "a") == ["extern_kernels.addmm"]
    norm = by_b[("triton_per_fused_native_layer_norm_2",)]
    assert norm.relation == "same" and norm.how == "identical source" and norm.confidence == 1.0
    xblock = norm.measure("XBLOCK")
    ka, kb = d.graph_pair(norm)[0].kernels[-1], d.graph_pair(norm)[1].kernels[-1]
    assert (xblock.a, xblock.b) == (ka.timing.config["XBLOCK"], kb.timing.config["XBLOCK"])
    assert norm.measure("registers").a == ka.timing.num_regs
    # fusions are one Match per launch of the side with several, all in one group
    fused_matches = [m for m in d.matches if m.group == d.groups.index(mm)]
    assert sorted(m.a for m in fused_matches) == ["extern_kernels.mm", "triton_poi_fused_mul_relu_0"]
    assert {m.b for m in fused_matches} == {"triton_tem_fused_mm_mul_relu_0"}
    assert any("within" in m.how for m in fused_matches)
    # headline: totals over every launch, wins and losses ordered by the change of in-graph time
    total = d.headline.measures[0]
    assert total.name == "GPU time of launches"
    assert total.a == pytest.approx(sum(x.timing.in_graph_ms for x in a.launches))
    assert total.b == pytest.approx(sum(x.timing.in_graph_ms for x in b.launches))
    changes = [d.groups[k].measure("in-graph").delta for k in d.headline.wins + d.headline.losses]
    wins = changes[:len(d.headline.wins)]
    assert all(c < 0 for c in wins) and wins == sorted(wins)
    assert all(c > 0 for c in changes[len(wins):])
    assert d.headline.counts["fused"] == 2 and d.headline.notes == []


def test_model_edit_matches_by_what_is_computed_not_by_name():
    d = kernelviz.diff(pair("default"), pair("edited"))
    assert_every_launch_accounted_for(d)
    mlp = next(gm for gm in d.graphs if gm.a is not None and gm.b is not None)
    assert (d.a.graphs[mlp.a].id, d.b.graphs[mlp.b].id) == ("7_inference", "10_inference")
    assert 0.3 < mlp.confidence < 1  # same kind, some input shapes changed (hidden 64 -> 128)
    mm_graph = next(gm for gm in d.graphs if gm.b is None)
    assert d.a.graphs[mm_graph.a].id == "6_inference"  # no fp16 mm graph in the edited capture
    removed = [g for g in d.groups if g.graph == d.graphs.index(mm_graph)]
    assert {g.relation for g in removed} == {"removed"}
    groups = {tuple(side_names(d, g, "a")): g for g in d.groups if g.graph == d.graphs.index(mlp)}
    act = groups[("triton_poi_fused_addmm_gelu_0",)]
    assert side_names(d, act, "b") == ["triton_poi_fused_addmm_relu_0"] and act.relation == "changed"
    assert "source nodes" in act.how
    norm = groups[("triton_per_fused_native_layer_norm_1",)]
    assert norm.relation == "same" and side_names(d, norm, "b") == ["triton_per_fused_native_layer_norm_1"]
    for name in ("extern_kernels.mm", "extern_kernels.addmm"):
        g = groups[(name,)]
        assert side_names(d, g, "b") == [name] and g.relation == "changed"  # its shapes changed
        assert g.how.startswith("same source modulo numbers")
    # a graph without a counterpart is in the totals, not among the wins and losses
    assert not {d.groups[k].graph for k in d.headline.wins + d.headline.losses} & {d.graphs.index(mm_graph)}
    assert any("no counterpart" in n for n in d.headline.notes)
    assert d.headline.measures[1].name == "in matched graphs"


def test_cpu_torch213_against_h100_torch211_pairs_graphs_and_splits():
    a = both(CPU, "train_step_0.py", "train_step_1.py")
    b = both(CUDA, "train_step_0.py", "train_step_1.py")
    d = kernelviz.diff(a, b)
    assert_every_launch_accounted_for(d)
    assert [(a.graphs[gm.a].kind, b.graphs[gm.b].kind) for gm in d.graphs] == [("forward", "forward"),
                                                                              ("backward", "backward")]
    for g in d.groups:
        ga, gb = d.graph_pair(g)
        externs_a = [ga.launches[i] for i in g.a if ga.launches[i].kernel_name is None]
        externs_b = [gb.launches[i] for i in g.b if gb.launches[i].kernel_name is None]
        if externs_a and externs_b:  # cuBLAS calls carry their source nodes on both devices
            assert externs_a[0].source_nodes == externs_b[0].source_nodes
    # C++ kernels have no metadata comments: CPU's one sum over 2048 columns is H100's two-stage reduction.
    # Which launches those are is read from the buffers they write.
    backward = [g for g in d.groups if g.graph == 1]
    ga, gb = a.graphs[1], b.graphs[1]
    cpu_sum = next(g for g in backward if side_names(d, g, "a") == ["cpp_fused_sum_2"])
    specs_a, specs_b = buffer_specs(ga), buffer_specs(gb)
    written_a = {specs_a[w] for i in cpu_sum.a for w in ga.launches[i].writes}
    written_b = {specs_b[w] for i in cpu_sum.b for w in gb.launches[i].writes}
    assert cpu_sum.relation == "split" and written_a & written_b
    assert all(gb.launches[i].kernel_name.split("_fused_")[1].startswith("sum") for i in cpu_sum.b)
    # the H100 orders call() differently: the reductions the CPU fused into a kernel far away are added, in a
    # run of their own; nothing of the CPU's is left unpaired
    added = [gb.launches[j].kernel_name for g in backward if g.relation == "added" for j in g.b]
    assert added and all("_fused_sum_" in name for name in added)
    assert d.headline.counts["removed"] == 0
    assert any("a is not timed" in n for n in d.headline.notes)


def test_forward_against_backward_matches_nothing():
    d = kernelviz.diff(kernelviz.load(CUDA / "train_step_0.py"), kernelviz.load(CUDA / "train_step_1.py"))
    assert [(gm.a, gm.b) for gm in d.graphs] == [(0, None), (None, 0)]
    assert not [m for m in d.matches if m.a is not None and m.b is not None]
    assert {g.relation for g in d.groups} == {"added", "removed"}
    assert_every_launch_accounted_for(d)


def test_a_template_against_the_same_template_at_other_sizes():
    code = pair("max-autotune-no-cudagraphs").graphs[0].code
    d = kernelviz.diff(code, CUDA / "template_mm_0.py")
    (g,) = d.groups
    assert g.relation == "changed" and g.how.startswith("same source modulo numbers")
    assert d.graphs[0].confidence < 1  # 2048x2048 against 4096x512 inputs


def _renumbered(code: str, order: list[int]) -> str:
    """The same output code with every kernel's counter suffix replaced (``_0`` -> ``_<order[0]>``)."""
    names = sorted(set(re.findall(r"\b((?:triton|cpp)_\w+?_)(\d+)\b", code)))
    mapping = {p + n: f"{p}{order[int(n) % len(order)] + 100}" for p, n in names}
    return re.sub(r"\b(?:triton|cpp)_\w+?_\d+\b", lambda m: mapping.get(m.group(0), m.group(0)), code)


@settings(max_examples=10, deadline=None)
@given(st.permutations(list(range(12))))
def test_renumbered_kernels_still_match_one_to_one(order):
    code = (CUDA / "train_step_1.py").read_text()
    a, b = kernelviz.load(code), kernelviz.load(_renumbered(code, order))
    assert {k.name for k in a.kernels}.isdisjoint({k.name for k in b.kernels})
    d = kernelviz.diff(a, b)
    assert {g.relation for g in d.groups} == {"same"}
    assert [(m.a_launch, m.b_launch, m.confidence) for m in d.matches] == [
        (i, i, 1.0) for i in range(len(a.launches))]
    assert {m.how for m in d.matches if m.a.startswith("triton_")} == {"identical source"}


def test_diff_json_round_trip_and_what_it_refuses():
    d = kernelviz.diff(pair("default"), pair("max-autotune-no-cudagraphs"), labels=("default", "autotune"))
    text = d.to_json()
    again = Diff.from_json(text)
    assert again == d and again.to_json() == text
    data = json.loads(text)
    assert data["format"] == "kernelviz-diff" and [m["a"] for m in data["matches"]][0] == d.matches[0].a
    with pytest.raises(CaptureError, match="kernelviz-diff"):
        Diff.from_json(d.a.to_json())
    with pytest.raises(CaptureError, match="not JSON"):
        Diff.from_json("{oops")
    with pytest.raises(CaptureError):
        Capture.from_json(text)  # a diff is not a capture


def test_cpu_wall_clock_and_gpu_time_are_shown_but_not_compared(fresh_dynamo):
    import torch

    import zoo

    model, x = zoo.make_mlp(), torch.randn(4096, 32)
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(model)(x)
    assert cap.launches and all(launch.timing.unit == "cpu" for launch in cap.launches)
    gpu = pair("default")
    d = kernelviz.diff(gpu, cap)
    mlp = next(gm for gm in d.graphs if gm.a is not None and gm.b is not None)
    assert gpu.graphs[mlp.a].id == "7_inference" and mlp.how == "kind + input shapes"
    times = [g.measure("in-graph") for g in d.groups if g.graph == d.graphs.index(mlp) and g.a and g.b]
    assert times and all(t.a is not None and t.b is not None for t in times)
    assert all(not t.comparable and t.delta is None and "CPU wall clock" in t.note for t in times)
    isolated = [g.measure("isolated") for g in d.groups if g.graph == d.graphs.index(mlp) and g.a and g.b]
    assert all(m.delta is None for m in isolated)
    assert any(m.a is not None and m.b is not None and "CPU wall clock" in m.note for m in isolated)
    assert d.headline.wins == d.headline.losses == []
    assert d.headline.measures[0].name == "time of launches"
