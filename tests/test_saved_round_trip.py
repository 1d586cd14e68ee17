"""What ``save()``, ``to_json()`` and a notebook's output write, ``load()``, ``from_json()`` and
``capture_from_bundle()`` read back, whatever a capture made in
Python holds: any value of each field's type (figures that make no sense included: NaN, ±inf, the largest
doubles, integers beyond 64 bits; any text), the model's captures generated from its type annotations. The
written JSON is a fixed point: read back and written again, it is the same text (a float that is not finite is
written as null, read back as None where the field may be None, else as NaN)."""

import dataclasses
import math
import sys
import types
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kernelviz
from kernelviz import codec
from kernelviz.model import SCHEMA_VERSION, AsRun, Capture, CaptureError, Launch, LaunchTiming
from kernelviz.views.payload import capture_from_bundle, saved

LIMIT = 2**1024  # the integers a capture's JSON holds: those a double can hold (the views' arithmetic needs it)
TEXT = st.text(st.characters(exclude_categories=()), max_size=8)  # lone surrogates included
FLOATS = st.one_of(st.floats(), st.sampled_from([sys.float_info.max, -sys.float_info.max, math.inf, math.nan]))
INTEGERS = st.one_of(st.integers(-(2**70), 2**70), st.integers(-LIMIT + 1, LIMIT - 1))
JSON_DATA = st.recursive(st.none() | st.booleans() | INTEGERS | FLOATS | TEXT,
                         lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2),
                         max_leaves=4)
_MADE: dict[typing.Any, st.SearchStrategy] = {}


def of_type(tp) -> st.SearchStrategy:
    """Any value of annotation ``tp`` of the model."""
    if tp not in _MADE:
        _MADE[tp] = _make(tp)
    return _MADE[tp]


def _make(tp) -> st.SearchStrategy:
    if dataclasses.is_dataclass(tp):
        return st.builds(tp, **{name: st.deferred(lambda hint=hint: of_type(hint))
                                for name, hint in codec.field_types(tp).items()})
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*map(of_type, args))
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is list:
        return st.lists(of_type(args[0]), max_size=2)
    if origin is dict:
        return st.dictionaries(TEXT, of_type(args[1]), max_size=2)
    return {str: TEXT, int: INTEGERS, float: FLOATS, bool: st.booleans(), type(None): st.none()}.get(tp, JSON_DATA)


def _in_order(capture: Capture) -> Capture:
    """The capture with what every capture made here holds: this kernelviz's schema version, each launch's index
    its place in its graph's call(), a finding's launches of its graph, a rank that a file name can hold (save()
    names the file by it)."""
    capture.schema_version = SCHEMA_VERSION
    capture.rank = None if capture.rank is None else capture.rank % 4096
    sizes = {}
    for graph in capture.graphs:
        for i, launch in enumerate(graph.launches):
            launch.index = i
        sizes[graph.id] = len(graph.launches)
    for finding in capture.findings:
        if finding.graph in sizes:
            finding.launches = [i % sizes[finding.graph] for i in finding.launches] if sizes[finding.graph] else []
    return capture


CAPTURES = of_type(Capture).map(_in_order)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(CAPTURES)
def test_any_capture_reads_back_what_to_json_and_save_write(tmp_path_factory, capture):
    text = capture.to_json()
    assert Capture.from_json(text).to_json() == text
    assert Capture.from_json(capture.to_json(indent=1)).to_json() == text
    folder = tmp_path_factory.mktemp("saved")
    for name in ("capture.kvz", "capture.json"):
        assert kernelviz.load(capture.save(folder / name)).to_json() == text


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(CAPTURES)
def test_any_capture_reads_back_from_the_notebook_output_it_makes(capture):
    """The output a notebook saves (the payload, its view annex worked out from whatever the capture holds)."""
    assert capture_from_bundle(saved(capture)).to_json() == capture.to_json()


def test_a_derived_infinite_figure_beside_an_integer_beyond_64_bits_reads_back(tmp_path):
    """The advice works out an infinite idle time from as-run figures at a double's ends, while a launch's bytes
    need the standard library's writer (orjson writes 64 bits at most): the file, the JSON and the notebook's
    output still read back, the figure as null (None); NaN and infinite times beside them too."""
    cap = kernelviz.load(_fixture("cuda-h100-torch2.11/mlp_0.py"))
    cap.graphs[0].as_run = AsRun(unit="gpu", plain_ms=1.7e308, launch_cpu_ms=1.7e308, kernels_ms=-1.7e308,
                                 replay_ms=-1.7e308)
    launch: Launch = cap.graphs[0].launches[0]
    launch.timing = LaunchTiming(in_graph_ms=1.0, bytes_args=2**70, bytes=2**70)
    assert [f.ms for f in cap.advice()] == [math.inf]
    text = cap.to_json()
    again = kernelviz.load(cap.save(tmp_path / "cap.json"))
    assert again.findings[0].ms is None and again.graphs[0].launches[0].timing.bytes == 2**70
    assert again.to_json() == text == kernelviz.load(cap.save(tmp_path / "cap.kvz")).to_json()
    assert Capture.from_json(text).to_json() == text
    assert capture_from_bundle(saved(cap)).to_json() == text
    cap.graphs[0].launches[1].timing = LaunchTiming(in_graph_ms=math.nan, share=math.inf, flops=-math.inf)
    text = cap.to_json()
    for again, written in ((kernelviz.load(cap.save(tmp_path / "odd.kvz")), text), (Capture.from_json(text), text),
                           (capture_from_bundle(saved(cap)), text)):
        assert again.to_json() == written and again.graphs[0].launches[1].timing.share is None


def test_an_integer_no_reader_takes_is_refused_where_it_is_written(tmp_path):
    cap = kernelviz.load(_fixture("cuda-h100-torch2.11/mlp_0.py"))
    cap.graphs[0].launches[0].timing = LaunchTiming(bytes=2**1100)
    with pytest.raises(CaptureError, match=r"^an integer of 1101 bits cannot be written: .*\(\|n\| < 2\*\*1024\)$"):
        cap.save(tmp_path / "cap.json")
    assert not (tmp_path / "cap.json").exists()


def _fixture(name: str):
    from conftest import FIXTURES

    return FIXTURES / name
