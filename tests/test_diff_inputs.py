"""What kernelviz.diff takes: the wrong kind of argument refused in one line, a job's ranks compared rank by rank
(or by its reference rank, saying so), captures with odd values from a hand-edited file, and a call() whose
launches run in another order, reported as a reordering however the launches were permuted."""

import copy
import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kernelviz
from conftest import FIXTURES, fill_timings, reordered
from kernelviz.__main__ import main
from kernelviz.model import Capture, CaptureError, Ranks
from kernelviz.notebook.diff_display import payload
from kernelviz.ranks import load_ranks
from kernelviz.views.diff_text import summary, value

CPU, CUDA = FIXTURES / "cpu-torch2.13", FIXTURES / "cuda-h100-torch2.11"
COLLECTIVES = CPU / "collectives_0.py"


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text


# --- the wrong kind of argument ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, 3, 1.5, {"graphs": []}, ["a.json"], object(), True],
                         ids=["None", "int", "float", "dict", "list", "object", "bool"])
def test_an_argument_of_the_wrong_kind_is_refused_in_one_line_that_says_what_to_pass(bad):
    cap = kernelviz.load(CPU / "mlp_0.py")
    for a, b, side in ((bad, cap, "a"), (cap, bad, "b")):
        with pytest.raises(TypeError) as caught:
            kernelviz.diff(a, b)
        text = one_line(caught.value)
        assert text.startswith(f"kernelviz.diff: {side} is ") and "pass a Capture, a Ranks" in text


def test_a_bytes_path_a_diff_and_odd_labels_are_refused_saying_what_to_pass_instead():
    cap = kernelviz.load(CPU / "mlp_0.py")
    for path in (bytes(CPU / "mlp_0.py"), bytearray(bytes(CPU / "mlp_0.py"))):
        with pytest.raises(TypeError, match=r"a is a bytes path; pass it as str \(os\.fsdecode\(path\)\)"):
            kernelviz.diff(path, cap)
    d = kernelviz.diff(cap, cap)
    with pytest.raises(TypeError, match=r"b is a diff; .* its \.a and \.b"):
        kernelviz.diff(cap, d)
    for labels in ("ab", ("a",), ("a", 2), ["a", "b", "c"]):
        with pytest.raises(TypeError, match="labels is .*; pass two strings"):
            kernelviz.diff(cap, cap, labels=labels)
    assert kernelviz.diff(cap, cap, labels=["x", "y"]).labels == ["x", "y"]


@pytest.mark.parametrize("path", ["", "   ", "mlp\0.py"], ids=["empty", "blank", "nul"])
def test_a_path_no_file_can_have_is_refused_in_one_line(path):
    with pytest.raises(CaptureError) as caught:
        kernelviz.diff(path, CPU / "mlp_0.py")
    assert one_line(caught.value).startswith("kernelviz.diff: a is ")


def test_the_cli_gives_the_one_line_and_exit_2(tmp_path, capsys):
    not_a_capture = tmp_path / "settings.json"
    not_a_capture.write_text('{"graphs": 3}')
    assert main(["diff", str(CPU / "mlp_0.py"), str(not_a_capture)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"kernelviz: {not_a_capture}: not a kernelviz capture")


# --- a job's ranks ------------------------------------------------------------------------------------------


def job(folder: Path, world: int, edit=None) -> Path:
    """The collectives capture saved as the rank files of a ``world``-rank job; ``edit(rank, capture)`` changes
    a rank's copy first. Returns the prefix kernelviz.load reads."""
    for rank in range(world):
        capture = kernelviz.load(COLLECTIVES)
        capture.rank, capture.world_size = rank, world
        if edit:
            edit(rank, capture)
        capture.save(folder / "step")
    return folder / "step"


def slower_on_rank_1(rank: int, capture: Capture) -> None:
    """Rank 1 runs its first kernel built otherwise (its source edited)."""
    if rank == 1:
        capture.graphs[0].kernels[0].source += "// built otherwise on rank 1\n"


def test_two_jobs_of_the_same_ranks_are_compared_rank_by_rank(tmp_path):
    a = kernelviz.load(job(tmp_path / "a", 3))
    b = kernelviz.load(job(tmp_path / "b", 3, slower_on_rank_1))
    assert isinstance(a, Ranks) and isinstance(b, Ranks)
    d = kernelviz.diff(a, b)
    assert [g.id for g in d.a.graphs] == [f"rank{r}:{g.id}" for r in range(3) for g in a.capture(r).graphs]
    for gm in d.graphs:  # each graph against the same rank's
        assert d.a.graphs[gm.a].id.split(":")[0] == d.b.graphs[gm.b].id.split(":")[0]
    assert d.headline.notes[0] == "compared rank by rank: ranks 0, 1, 2 (graphs named rank<N>:<graph>)"
    changed = [d.a.graphs[d.graphs[g.graph].a].id for g in d.groups if g.relation != "same"]
    assert changed and {c.split(":")[0] for c in changed} == {"rank1"}
    assert d.headline.summary.startswith("graph rank1:0_inference: 1 launch changed (launch ")
    assert "compared rank by rank" in summary(d) and "compared rank by rank" in d.to_html()
    assert type(d).from_json(d.to_json()) == d
    assert a.capture(1).graphs[0].id == "0_inference"  # the job itself is left as it was


def test_a_job_against_one_capture_or_other_ranks_is_compared_by_its_reference_rank_and_says_so(tmp_path):
    a = kernelviz.load(job(tmp_path / "a", 2, slower_on_rank_1))
    three = kernelviz.load(job(tmp_path / "b", 3))
    one = kernelviz.load(COLLECTIVES)
    summarised = load_ranks(job(tmp_path / "c", 2), summarise_above=1, progress=False)
    assert summarised.summarised
    expected = [
        (a, one, "compared rank 0 of a (a is a job's ranks, the other one capture)"),
        (one, a, "compared rank 0 of b (b is a job's ranks, the other one capture)"),
        (a, three, "compared rank 0 of a and rank 0 of b (a holds ranks 0, 1, b ranks 0, 1, 2)"),
        (a, summarised, "compared rank 0 of a and rank 0 of b (a job summarised keeps only its reference "
                        "rank's capture)")]
    for x, y, note in expected:
        d = kernelviz.diff(x, y)
        assert d.headline.notes[0] == note + "; another rank: kernelviz.diff(ranks.capture(n), ...)"
        assert [g.id for g in d.a.graphs] == ["0_inference"] and d.headline.summary == "no launch changed"
    assert "1 launch changed" in kernelviz.diff(a.capture(1), one).headline.summary  # the way to another rank


def test_the_cli_diffs_two_jobs_by_their_prefixes(tmp_path, capsys):
    a, b = job(tmp_path / "a", 2), job(tmp_path / "b", 2, slower_on_rank_1)
    assert main(["diff", str(a), str(b), "-o", str(tmp_path / "diff.html")]) == 0
    out = capsys.readouterr().out
    assert "note: compared rank by rank: ranks 0, 1" in out and "graph rank1:0_inference → rank1:0_inference" in out


def test_the_magic_diffs_a_cell_against_a_job_held_in_a_variable(tmp_path, monkeypatch, capsys):
    from kernelviz.notebook import diff_display

    shown = []
    monkeypatch.setattr(diff_display, "show", shown.append)
    namespace = {"job": kernelviz.load(job(tmp_path, 2)), "count": 3}
    diff_display.show_against("job", kernelviz.load(COLLECTIVES), namespace)
    (d,) = shown
    assert d.labels == ["job", "this cell"] and d.headline.notes[0].startswith("compared rank 0 of a (a is a job's")
    diff_display.show_against("count", kernelviz.load(COLLECTIVES), namespace)
    assert capsys.readouterr().err == "kernelviz: --diff count: an int (3), not a kernelviz Capture, Ranks or a path\n"


# --- odd values from a hand-edited file -----------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.sampled_from([10**40, -10**30, 2**64, 10**300])
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)
BASES = {"cuda": kernelviz.load(CUDA / "mlp_0.py"), "cuda-timed": fill_timings(kernelviz.load(CUDA / "mlp_0.py")),
         "cpu": kernelviz.load(CPU / "mlp_0.py")}
META = ["kernel_num_gb", "num_load", "num_store", "num_reduction", "grid_type", "backend_hash", "signature",
        "XBLOCK", "num_warps", "device"]
TOP = ["torch_version", "triton_version", "device_name", "warnings", "host", "device", "backend", "rank",
       "world_size"]


@st.composite
def odd_capture(draw) -> tuple[Capture, str]:
    """A base capture's JSON with values of any JSON type put where a hand edit could: the capture's metadata,
    a kernel's Inductor and Triton metadata, a kernel timing's config."""
    base = draw(st.sampled_from(sorted(BASES)))
    data = json.loads(BASES[base].to_json())
    for _ in range(draw(st.integers(1, 5))):
        where = draw(st.sampled_from(["top", "inductor_meta", "triton_meta", "config"]))
        value = draw(JSON_VALUES)
        kernel = draw(st.sampled_from(data["graphs"][0]["kernels"]))
        if where == "top":
            data[draw(st.sampled_from(TOP))] = value
        elif where == "config":
            if kernel.get("timing"):
                kernel["timing"]["config"] = {**(kernel["timing"].get("config") or {}), draw(st.sampled_from(META)):
                                              value}
        elif isinstance(kernel.get(where), dict):
            kernel[where][draw(st.sampled_from(META))] = value
    return base, json.dumps(data)


SEEN = {"refused": 0, "diffed": 0}


@settings(max_examples=40, deadline=timedelta(seconds=20), derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=odd_capture())
def test_a_capture_with_odd_values_that_loads_diffs_through_every_view(case, tmp_path_factory):
    base, text = case
    try:
        odd = Capture.from_json(text)
    except CaptureError as exc:
        one_line(exc)
        SEEN["refused"] += 1
        return
    for a, b in ((BASES[base], odd), (odd, BASES[base])):
        d = kernelviz.diff(a, b)
        assert summary(d).startswith("kernelviz diff:") and d.to_html().startswith("<!DOCTYPE html>")
        json.dumps(payload(d))
        assert type(d).from_json(d.to_json()).to_json() == d.to_json()
    path = tmp_path_factory.mktemp("odd") / "odd.json"
    path.write_text(text)
    assert main(["diff", str(path), str(path), "--json", str(path.with_name("diff.json"))]) == 0
    SEEN["diffed"] += 1


def test_odd_values_the_property_drew_were_diffed_not_only_refused():
    if not SEEN["diffed"] + SEEN["refused"]:
        pytest.skip("run with the property test")
    assert SEEN["diffed"] >= 10, SEEN


def test_a_figure_that_is_not_a_number_or_beyond_a_float_is_shown_not_raised():
    a = kernelviz.load(CUDA / "mlp_0.py")
    for kernel in a.graphs[0].kernels:
        kernel.inductor_meta["kernel_num_gb"] = 0.25
    b = copy.deepcopy(a)
    first, second = b.graphs[0].kernels[:2]
    first.inductor_meta["kernel_num_gb"] = "0.5"  # a string where Inductor writes a number
    second.inductor_meta["kernel_num_gb"] = 10**400  # an integer no float holds
    d = kernelviz.diff(a, b)
    by_kernel = {d.b.graphs[0].launches[g.b[0]].kernel_name: g.measure("bytes") for g in d.groups if g.b}
    assert by_kernel[first.name].a == 0.25e9 and by_kernel[first.name].b is None
    beyond = by_kernel[second.name]
    assert beyond.b == 10**409 and beyond.delta is None and beyond.pct is None  # no float holds b - a
    assert value(beyond.b, beyond.unit).startswith("invalid: ")  # as the diff's views show it
    assert summary(d) and d.to_html() and json.dumps(payload(d))


# --- a reordered call() --------------------------------------------------------------------------------------


def with_order(capture: Capture, order: list[int]) -> Capture:
    return Capture(graphs=[reordered(capture.graphs[0], order)])


def views(d) -> list[str]:
    return [summary(d), d.to_html(), json.dumps(payload(d)["headline"]["summary"])]


def test_a_reversed_call_reads_as_reversed_in_every_view():
    a = kernelviz.load(CUDA / "resnet18_0.py")
    n = len(a.launches)
    d = kernelviz.diff(a, with_order(a, list(range(n))[::-1]))
    assert d.headline.summary == f"launches reordered: {n} launches in reverse order"
    assert d.headline.counts["same"] == n
    for text in views(d):
        assert f"launches reordered: {n} launches in reverse order" in text


def test_a_launch_moved_is_named_with_what_changed_beside_it():
    a = kernelviz.load(CUDA / "train_step_1.py")
    n = len(a.launches)
    order = [*range(1, 6), 0, *range(6, n)]  # launch 0 runs after launch 5
    d = kernelviz.diff(a, with_order(a, order))
    assert d.headline.summary == f"launches reordered: 1 of {n} moved (launch 0)"
    for text in views(d):
        assert f"launches reordered: 1 of {n} moved (launch 0)" in text
    kernel = a.graphs[0].kernels[-1]
    edited = copy.deepcopy(a)
    edited.graphs[0].kernel(kernel.name).source = kernel.source.replace("xmask", "xmask & (xindex >= 0)")
    d = kernelviz.diff(a, with_order(edited, order))
    assert "1 launch changed" in d.headline.summary and d.headline.summary.endswith("moved (launch 0)")
    assert kernelviz.diff(a, a).headline.summary == "no launch changed"


def renumbered(capture: Capture) -> Capture:
    """The capture with every kernel's name changed, as the next compile numbers them."""
    again = copy.deepcopy(capture)
    for graph in again.graphs:
        names = {k.name: f"{k.name}_{k.name[::-1][:3]}9" for k in graph.kernels}
        for kernel in graph.kernels:
            kernel.source, kernel.name = kernel.source.replace(kernel.name, names[kernel.name]), names[kernel.name]
        for launch in graph.launches:
            launch.kernel_name = names.get(launch.kernel_name, launch.kernel_name)
    return again


PERMUTED = [CUDA / "resnet18_0.py", CUDA / "train_step_1.py", CPU / "convnext_0.py", CPU / "collectives_0.py"]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(PERMUTED), st.data(), st.booleans())
def test_any_permutation_of_a_call_pairs_every_launch_with_itself_and_reads_as_a_reordering(fixture, data, rename):
    a = kernelviz.load(fixture)
    n = len(a.launches)
    order = data.draw(st.permutations(range(n)))
    b = with_order(renumbered(a) if rename else a, order)
    d = kernelviz.diff(a, b)
    assert {g.relation for g in d.groups} == {"same"}, [(g.relation, g.a, g.b) for g in d.groups]
    assert sorted(i for g in d.groups for i in g.a) == list(range(n))
    assert sorted(j for g in d.groups for j in g.b) == list(range(n))
    if order == sorted(order):
        assert d.headline.summary == "no launch changed"
    else:
        assert "launches reordered: " in d.headline.summary and "no launch changed" not in d.headline.summary
