"""Property test: every number, string and bool the model types (every field of every class, generated from the
annotations), given an odd value (digits of other scripts, signs, numbers as text, huge integers, NaN and
Infinity, odd floats, lone surrogates): ``Capture.from_json`` and ``from_dict`` load it, and then its JSON reads
back the same, or refuse it with a one-line CaptureError; never another exception. Output code whose numbers are
odd: ``kernelviz.load`` gives a capture or a one-line ParseError."""

import json
import os
import re
from datetime import timedelta

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import kernelviz  # noqa: E402
from conftest import FIXTURES  # noqa: E402
from kernelviz.codec import field_types  # noqa: E402
from kernelviz.model import Advice, Capture, CaptureError, KernelIR, Occupancy  # noqa: E402
from model_data import full, is_scalar, reachable, scalar_paths  # noqa: E402

BASE = full(Capture, set())
PATHS = scalar_paths(Capture, BASE)
SETTINGS = settings(max_examples=int(os.environ.get("KERNELVIZ_FUZZ_EXAMPLES", "400")), deadline=timedelta(seconds=2),
                    derandomize=not os.environ.get("KERNELVIZ_FUZZ_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow])

NUMBER_TEXT = st.sampled_from(["²", "١٢", "٣.٥", "½", "Ⅻ", "𝟗", "+1", "-1", "−1", " 1", "1_000", "0x10", "1e400", "NaN",
                               "nan", "Infinity", "-Infinity", "inf", "1.5", "", "0"])
DIGITS = st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=4)  # digits of every script
HUGE = st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**308, 10**309, -(10**400), 2**1024]) | st.integers(
    min_value=-(10**400), max_value=10**400)
ODD_FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [-0.0, 5e-324, 1.7976931348623157e308, float("nan"), float("inf"), -float("inf"), 1e-310])
SURROGATES = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF) | st.characters(), min_size=1,
                     max_size=5)
ODD = NUMBER_TEXT | DIGITS | HUGE | ODD_FLOATS | SURROGATES | st.booleans() | st.none() | st.just([]) | st.just({})


@st.composite
def odd_capture(draw) -> dict:
    """The full capture's data with one to three of its typed values made odd."""
    data = json.loads(json.dumps(BASE))
    for _ in range(draw(st.integers(1, 3))):
        path, _ = draw(st.sampled_from(PATHS))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = draw(ODD)
    return data


def round_trips(capture: Capture) -> None:
    text = capture.to_json()
    again = Capture.from_json(text)
    if re.search(r"\\u[dD][89abAB]", text):  # two lone surrogates that JSON reads back as one character: saved
        assert Capture.from_json(again.to_json()) == again  # as that character from then on
        return
    assert again == capture and again.to_json() == text


def test_the_generated_capture_holds_every_typed_value_of_every_class_and_loads():
    fields = {(cls, name) for cls in reachable(Capture) for name, tp in field_types(cls).items() if is_scalar(tp)}
    assert {path[-1] for path, _ in PATHS} >= {name for _, name in fields} and len(PATHS) > len(fields) > 150
    round_trips(Capture.from_dict(BASE))


def loads_and_round_trips_or_is_refused_in_one_line(load, given) -> None:
    try:
        capture = load(given)
    except CaptureError as exc:
        assert "\n" not in str(exc)
        return
    round_trips(capture)


@SETTINGS
@given(odd_capture())
def test_from_dict_of_odd_values_loads_and_round_trips_or_is_refused_in_one_line(data):
    loads_and_round_trips_or_is_refused_in_one_line(Capture.from_dict, data)


@SETTINGS
@given(odd_capture())
def test_from_json_of_odd_values_loads_and_round_trips_or_is_refused_in_one_line(data):
    # NaN and Infinity as JSON text, surrogates as escapes
    loads_and_round_trips_or_is_refused_in_one_line(Capture.from_json, json.dumps(data))


COLLECTIVES = FIXTURES / "cpu-torch2.13" / "collectives_0.py"
GATHER = "all_gather_into_tensor.default(buf6, 2, '0')"


@pytest.mark.parametrize("size", ["²", "١٢", "-2", "+2", "2_0", "99999999999999999999999"])
def test_a_collectives_group_size_written_as_an_odd_number_is_a_parse_error_naming_it(size, tmp_path):
    text = COLLECTIVES.read_text()
    assert GATHER in text
    path = tmp_path / "odd_group_size.py"
    path.write_text(text.replace(GATHER, GATHER.replace("2", size, 1)))
    with pytest.raises(kernelviz.ParseError) as caught:
        kernelviz.load(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "group size" in message and repr(size) in message


@SETTINGS
@given(st.text(st.characters(categories=["Nd", "No", "Nl"]) | st.sampled_from("+-_ 0123456789"), min_size=1,
               max_size=6))
def test_odd_group_sizes_give_a_capture_that_read_ascii_digits_or_a_parse_error(number):
    try:
        capture = kernelviz.load(COLLECTIVES.read_text().replace(GATHER, GATHER.replace("2", number, 1)))
    except kernelviz.ParseError as exc:
        assert "\n" not in str(exc)
        return
    gather = next(launch for launch in capture.launches if launch.op and "all_gather" in launch.op)
    assert gather.collective.bytes == (512 * int(number) or None if re.fullmatch(r"\s*[0-9]+\s*", number) else None)


def test_a_buffer_size_written_as_an_odd_number_leaves_its_line_not_understood():
    text = COLLECTIVES.read_text().replace("buf0 = empty_strided_cpu((8, ", "buf0 = empty_strided_cpu((٨, ", 1)
    graph = kernelviz.load(text).graphs[0]
    assert any("not understood (ParseError)" in warning for warning in graph.warnings)
    assert "buf0" not in {event.buffer for event in graph.memory if event.kind == "alloc"}


RENDER = settings(SETTINGS, max_examples=max(20, SETTINGS.max_examples // 8))


@RENDER
@given(odd_capture())
def test_odd_values_that_load_render_in_every_view_and_the_diff(data):
    """What loads renders: the text summary, the HTML report, the notebook's saved bundle, the findings
    and a diff with itself, whatever its numbers: "invalid: ..." where a figure makes no sense, never an exception."""
    from kernelviz.notebook.display import static_bundle

    try:
        capture = Capture.from_json(json.dumps(data))
    except CaptureError:
        return
    assert str(capture) and capture.to_html() and static_bundle(capture)
    capture.advice()
    assert str(kernelviz.diff(capture, capture))


def _every_timed(attr, value):
    def set_(cap):
        for launch in cap.launches:
            if launch.timing is not None:
                setattr(launch.timing, attr, value)
    return set_


ODD_FIGURES = {  # a capture made or edited in Python can hold what a file may not: every view still renders it
    "denormal in-graph ms": _every_timed("in_graph_ms", 5e-324),
    "bytes beyond a double": _every_timed("bytes", 2**1100),
    "infinite ms": _every_timed("in_graph_ms", float("inf")),
    "finding ms beyond a double": lambda cap: cap.findings.append(Advice("spills", cap.graphs[0].id, [0], ms=10**400)),
    "finding at a negative launch": lambda cap: cap.findings.append(Advice("spills", cap.graphs[0].id, [-5], ms=1.0)),
    "no warps per SM": lambda cap: setattr(cap.kernels[0], "ir", KernelIR(occupancy=Occupancy(
        1, "registers", 1, 1, 1, 1, 128, 4, 0))),
    "lone surrogate": lambda cap: setattr(cap.kernels[0], "source", cap.kernels[0].source + "\ud800"),
}


@pytest.mark.parametrize("odd", ODD_FIGURES)
def test_odd_figures_render_everywhere_and_save(odd, tmp_path):
    from kernelviz.notebook.display import static_bundle

    capture = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json")
    ODD_FIGURES[odd](capture)
    capture.advice()
    assert str(capture) and static_bundle(capture) and str(kernelviz.diff(capture, capture))
    capture.save_html(tmp_path / "r.html")
    try:
        again = kernelviz.load(capture.save(tmp_path / "c"))
    except CaptureError as exc:  # refused where it is saved, in one line, where a file cannot hold it
        assert odd in ("bytes beyond a double", "finding ms beyond a double", "finding at a negative launch")
        assert "\n" not in str(exc) and not list(tmp_path.glob("c*"))
    else:
        assert again.to_json() == capture.to_json()
