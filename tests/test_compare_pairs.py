"""kernelviz.diff reads a model change as the user made it: CPU pairs (torch 2.13, tests/make_diff_fixtures.py)
with one change each, read both as live captures (C++ kernels with their source nodes) and as saved output
code alone. A block added is one run of added launches; fusions only where the origins say so."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelviz
from conftest import FIXTURES
from kernelviz.compare import Diff
from kernelviz.compare.match import _opcodes, _resync
from kernelviz.views.diff_text import summary

PAIRS = FIXTURES / "diff-cpu-torch2.13"


def load(name: str, code: bool):
    cap = kernelviz.load(PAIRS / f"{name}.json")
    return kernelviz.load(cap.graphs[0].code) if code else cap


def pair(a: str, b: str, code: bool = False) -> Diff:
    return kernelviz.diff(load(a, code), load(b, code), labels=(a, b))


def relations(d: Diff) -> list[str]:
    return [g.relation for g in d.groups]


def names(d: Diff, group, side: str) -> list[str]:
    ga, gb = d.graph_pair(group)
    graph, idx = (ga, group.a) if side == "a" else (gb, group.b)
    return [graph.launches[i].name for i in idx]


@pytest.mark.parametrize("code", [False, True], ids=["capture", "code"])
def test_a_block_added_is_one_run_of_added_launches(code):
    d = pair("gpt_2", "gpt_3", code)
    ga, gb = d.a.graphs[0], d.b.graphs[0]
    assert (len(ga.launches), len(gb.launches)) == (23, 34)
    rel = relations(d)
    added = [k for k, r in enumerate(rel) if r == "added"]
    assert len(added) == 11 and added == list(range(added[0], added[0] + 11))  # one contiguous run
    assert "split" not in rel and "fused" not in rel and "removed" not in rel
    # the added run is a whole block: b's launches 22-32, the same kernels (modulo numbers) as a block of a
    run = [j for k in added for j in d.groups[k].b]
    assert run == list(range(22, 33))
    assert [gb.launches[j].kernel_name is None for j in run] == [ga.launches[i].kernel_name is None
                                                                 for i in range(11, 22)]
    # the last layer norm (it writes call()'s output) is paired with the last one, not with the new block's first
    last = next(g for g in d.groups if g.a == [22])
    assert last.b == [33]
    sentence = d.headline.summary
    assert sentence.startswith("11 launches added after launch 21, repeating launches ")
    assert sentence == d.graphs[0].summary and sentence in summary(d, width=1000)  # one line where the width allows


@pytest.mark.parametrize("code", [False, True], ids=["capture", "code"])
def test_width_changed_changes_the_mlp_launches_in_place(code):
    d = pair("gpt_2", "gpt_2_wide", code)
    assert all(g.a == g.b for g in d.groups)  # every launch where it was
    changed = [g.a[0] for g in d.groups if g.relation == "changed"]
    assert changed == [8, 9, 10, 19, 20, 21]  # up-projection, GELU, down-projection of both blocks
    assert d.headline.summary == "6 launches changed (launches 8-10, 19-21)"
    # the same extern call and the same kernel on other sizes: what changed is the shape, not the name
    assert {g.changed for g in d.groups if g.relation == "changed"} == {"shape"}
    assert "changed  8 extern_kernels.addmm → 8 extern_kernels.addmm  shape changed" in summary(d)


@pytest.mark.parametrize("code", [False, True], ids=["capture", "code"])
def test_gelu_swapped_for_relu_is_one_kernel_changed(code):
    d = pair("mlp_gelu", "mlp_relu", code)
    assert relations(d) == ["same", "changed", "same", "same"]
    g = d.groups[1]
    assert names(d, g, "a") == ["cpp_fused_gelu_0"] and names(d, g, "b") == ["cpp_fused_relu_0"]
    # with the capture's source nodes the evidence is what it came from; from code alone, its place
    assert g.how == ("same place in call() + buffer shapes" if code else "source nodes")
    assert d.headline.summary == "1 launch changed (launch 1: cpp_fused_gelu_0 → cpp_fused_relu_0 (fused ops, source))"
    assert "cpp_fused_relu_0  fused ops, source changed" in summary(d)


@pytest.mark.parametrize("code", [False, True], ids=["capture", "code"])
def test_dropout_off_removes_its_random_numbers_and_changes_the_gelu_kernel(code):
    d = pair("mlp_dropout", "mlp_gelu", code)
    assert relations(d) == ["removed", "same", "changed", "same", "same"]
    assert names(d, d.groups[0], "a") == ["aten.randint.low_out"]
    assert names(d, d.groups[2], "a") == ["cpp_fused_gelu_native_dropout_0"]
    assert d.headline.summary.startswith("1 launch removed (launch 0: aten.randint.low_out); 1 launch changed")


@pytest.mark.parametrize("code", [False, True], ids=["capture", "code"])
def test_bf16_autocast_adds_the_weight_cast_and_changes_every_launch(code):
    d = pair("mlp_gelu", "mlp_bf16", code)
    assert relations(d) == ["added", "changed", "changed", "changed", "changed"]
    assert names(d, d.groups[0], "b") == ["cpp_fused__to_copy_0"]
    assert [g.a for g in d.groups[1:]] == [[0], [1], [2], [3]]  # the rest in place
    assert d.headline.summary == ("1 launch added before launch 0 (cpp_fused__to_copy_0); "
                                  "4 launches changed (launches 0-3)")


def test_a_fusion_made_in_one_compile_only_is_a_fusion_where_the_origins_say_so():
    d = pair("mlp_frozen", "mlp_autotune")  # max-autotune: each linear a C++ GEMM template with its epilogue
    fused = d.groups[0]
    assert fused.relation == "fused"
    assert names(d, fused, "a") == ["mkl._mkl_linear.default", "cpp_fused_addmm_gelu_0"]
    assert names(d, fused, "b") == ["cpp_fused_addmm_gelu_0"]
    assert "source nodes + ATen ops within cpp_fused_addmm_gelu_0 (fused)" in [m.how for m in d.matches]
    assert relations(d)[1:] == ["changed", "same"]
    assert d.headline.summary.startswith("launches 0-1 fused into one (cpp_fused_addmm_gelu_0); 1 launch changed")
    # from code alone the C++ kernels carry no origins: the template's name lists the linear's ATen op, and it
    # sits right next to the kernel it is paired with
    code = pair("mlp_frozen", "mlp_autotune", code=True)
    assert relations(code) == ["fused", "changed", "same"]
    assert code.groups[0].how.startswith("kernel-name ops")


def test_a_block_removed_reads_the_other_way_round():
    d = pair("gpt_3", "gpt_2", code=True)
    removed = [k for k, g in enumerate(d.groups) if g.relation == "removed"]
    assert len(removed) == 11 and removed == list(range(removed[0], removed[0] + 11))
    assert d.headline.summary.startswith("11 launches removed (launches 22-32), repeating launches ")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=60), st.lists(st.integers(0, 3), max_size=60))
def test_resync_opcodes_cover_both_lists_in_order(a, b):
    i = j = 0
    for tag, i1, i2, j1, j2 in _resync(a, b):
        assert (i1, j1) == (i, j) and (i2 > i1 or j2 > j1)
        assert (a[i1:i2] == b[j1:j2]) if tag == "equal" else tag in ("replace", "delete", "insert")
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))


def test_a_block_added_to_a_long_repetitive_graph_is_one_insert():
    a = list(range(11)) * 400  # 4,400 launches: too long for difflib's time
    b = a[:2200] + list(range(100, 111)) + a[2200:]
    ops = _opcodes(a, b)
    assert ops == [("equal", 0, 2200, 0, 2200), ("insert", 2200, 2200, 2200, 2211), ("equal", 2200, 4400, 2211, 4411)]
    # the same block again: among identical blocks any place is as good; still one insert
    ops = _opcodes(a, a[:2200] + a[:11] + a[2200:])
    assert [op[0] for op in ops].count("insert") == 1 and len(ops) <= 3


def test_what_changed_survives_json_and_an_older_diff_reads_without_it():
    d = pair("mlp_gelu", "mlp_relu")
    again = Diff.from_json(d.to_json())
    assert again.headline.summary == d.headline.summary and again.graphs[0].summary == d.graphs[0].summary
    data = d.to_dict()
    del data["headline"]["summary"], data["graphs"][0]["summary"]
    old = Diff.from_dict(data)
    assert old.headline.summary == "" and "what changed" not in summary(old) and old.to_html()


def test_a_graph_without_counterpart_and_no_change_in_words():
    forward, backward = (kernelviz.load(FIXTURES / "cpu-torch2.13" / f"train_step_{i}.py") for i in (0, 1))
    d = kernelviz.diff(forward, kernelviz.Capture(graphs=forward.graphs + backward.graphs))
    assert d.headline.summary == "graph 3_backward: 6 launches added (the graph has no counterpart in a)"
    assert kernelviz.diff(forward, forward).headline.summary == "no launch changed"
