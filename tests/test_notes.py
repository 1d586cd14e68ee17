"""The note on a launch's times (in the graph against alone) is chosen by its figures: over every launch of a
generated kernel in the fixtures (real Inductor output: captures timed on an H100, an H200 and the CPU, and output
code of both devices) with the times it has, and with times drawn for it, no note contradicts its numbers."""

import copy
import json
import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.model import KernelTiming, LaunchTiming
from kernelviz.views.payload import payload
from kernelviz.views.rules import AGREE, time_note

_UNITS = {"µs": 1e-3, "ms": 1.0, "s": 1e3}
_FIGURES = re.compile(r"^(Faster|Slower) in the graph \(([\d.]+) (µs|ms|s)\) than alone \(([\d.]+) (µs|ms|s)\): ")


@cache
def _captures() -> tuple:
    paths = sorted(p for pattern in ("*.json", "*.kvz", "*.py") for p in FIXTURES.rglob(pattern))
    found = []
    for path in paths:
        try:
            cap = kernelviz.load(path)
        except Exception:  # noqa: BLE001 - not a capture (a job's rank files, a broken fixture of bad input)
            continue
        if isinstance(cap, kernelviz.Capture):
            found.append((path, cap))
    return tuple(found)


@cache
def _launches() -> tuple:
    """(capture, graph, launch) for every launch of a generated kernel the graph holds."""
    return tuple((cap, graph, launch) for _, cap in _captures() for graph in cap.graphs
                 for launch in graph.launches if any(k.name == launch.kernel_name for k in graph.kernels))


def _ms(figure: str, unit: str) -> float:
    return float(figure) * _UNITS[unit]


def _assert_agrees(graph, launch) -> str:
    """The note of ``launch`` says what its figures say: none where a figure is missing or they agree within
    AGREE; else which is faster, with both figures as they are, and a cause that fits that side and device."""
    note = time_note(graph, launch)
    kernel = next(k for k in graph.kernels if k.name == launch.kernel_name)
    in_graph = launch.timing.in_graph_ms if launch.timing else None
    alone = kernel.timing.isolated_ms if kernel.timing else None
    usable = all(v is not None and v == v and 0 < v < float("inf") for v in (in_graph, alone))
    if not usable or abs(in_graph - alone) <= AGREE * alone:
        assert note == "", (in_graph, alone, note)
        return note
    match = _FIGURES.match(note)
    assert match, note
    word, shown_in_graph, shown_alone = match[1], _ms(match[2], match[3]), _ms(match[4], match[5])
    assert word == ("Faster" if in_graph < alone else "Slower"), (in_graph, alone, note)
    assert (shown_in_graph < shown_alone) == (word == "Faster"), note  # the figures shown read the same way
    assert abs(shown_in_graph - in_graph) <= 0.01 * in_graph and abs(shown_alone - alone) <= 0.01 * alone, note
    gpu = launch.timing.unit == "gpu"
    assert (("inputs may still be in L2" if gpu else "inputs may still be in the CPU's caches") in note) == (
        word == "Faster"), note
    assert ("mean of its runs" in note) == (word == "Slower" and gpu), note  # the GPU's in-graph figure is a mean
    assert ("cores" in note) == (word == "Slower" and not gpu), note
    return note


def test_the_timed_fixtures_notes_read_as_their_figures_and_reach_the_panel():
    timed = [(cap, graph, launch) for cap, graph, launch in _launches() if launch.timing is not None]
    notes = [(_assert_agrees(graph, launch), launch.timing.unit) for _, graph, launch in timed]
    # both sides of the rule on real figures: an H100 kernel faster in the graph, a CPU kernel slower
    assert {(note.split(" ")[0], unit) for note, unit in notes if note} >= {("Faster", "gpu"), ("Slower", "cpu")}
    cap = next(cap for cap, graph, launch in timed if time_note(graph, launch).startswith("Slower"))
    annex = payload(cap)["view"]["launches"]
    assert [annex[g]["notes"] for g in range(len(cap.graphs))] == [
        {str(x.index): n for x in graph.launches if (n := time_note(graph, x))} for graph in cap.graphs]


_TIMES = st.one_of(st.none(), st.just(0.0), st.just(float("nan")), st.just(float("inf")),
                   st.floats(min_value=1e-4, max_value=5e3, allow_nan=False))  # from 0.1 µs


@settings(max_examples=300, deadline=None)
@given(data=st.data(), in_graph=_TIMES, alone=_TIMES, near=st.floats(min_value=0.5, max_value=2.0))
def test_no_note_contradicts_its_figures(data, in_graph, alone, near):
    _, graph, launch = data.draw(st.sampled_from(_launches()))
    if alone is not None and data.draw(st.booleans()):
        in_graph = alone * near  # around the threshold, either side of it
    unit = "cpu" if graph.device == "cpu" else "gpu"
    timed = copy.copy(launch)
    timed.timing = LaunchTiming(in_graph_ms=in_graph, unit=unit)
    kernel = copy.copy(next(k for k in graph.kernels if k.name == launch.kernel_name))
    kernel.timing = KernelTiming(isolated_ms=alone, unit=unit)
    shown = copy.copy(graph)
    shown.kernels = [kernel if k.name == kernel.name else k for k in graph.kernels]
    _assert_agrees(shown, timed)


@needs_browser
def test_the_panel_shows_the_note_it_is_given(tmp_path):
    """The Kernel tab shows the payload's note as it is (none where the payload has none): the rule is Python's."""
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "demo_timed.json")
    data = payload(cap)
    notes = data["view"]["launches"][0]["notes"]
    graph = cap.graphs[0]
    assert notes == {"1": time_note(graph, graph.launches[1]), "3": time_note(graph, graph.launches[3])}
    notes["1"] = "a note made up here: the panel shows what it is given"
    site = panel_site(tmp_path, json.dumps(data))
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        shown = []
        for i in range(4):
            page.locator(".kv-row").nth(i).click()
            shown.append(page.locator(".kv-kernel-tab > .kv-note").all_inner_texts())
        assert page.errors == []
    assert shown == [[], [notes["1"]], [], [notes["3"]]]
