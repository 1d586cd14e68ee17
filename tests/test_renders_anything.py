"""What loads renders: a timed capture of real output code whose numbers are drawn from the whole float range
(negative, zero, subnormal, huge) and from integers beyond 64 bits either is refused by ``from_json`` with one
line or renders through every view (HTML report, notebook bundle, widget payload, text, a diff both ways, the
CLI's ``show`` and ``diff``) and round-trips through JSON. A figure that makes no sense says so."""

import json
import os
import random
from collections import Counter
from datetime import timedelta

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import kernelviz  # noqa: E402
from conftest import FIXTURES, fill_timings  # noqa: E402
from kernelviz.__main__ import main  # noqa: E402
from kernelviz.model import Capture  # noqa: E402
from kernelviz.notebook.display import static_bundle  # noqa: E402
from kernelviz.views.payload import capture_from_bundle, payload  # noqa: E402
from kernelviz.views.text import summary  # noqa: E402

BASE = fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11/mlp_0.py"))
BASE_JSON = BASE.to_json()
EXAMPLES = int(os.environ.get("KERNELVIZ_FUZZ_EXAMPLES_RENDER", "60"))
RENDER = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=10), derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _number_paths(value, path=()):
    """Every path in the capture's JSON that holds a number (or could: a figure left empty), with its type."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _number_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _number_paths(v, (*path, i))
    elif isinstance(value, (int, float)) and not isinstance(value, bool) or value is None:
        yield path, type(value).__name__


def _numeric_fields() -> dict[str, str]:
    """The model's number fields by name: "int" or "float" (from their annotations)."""
    import dataclasses

    from kernelviz import model

    found = {}
    for cls in vars(model).values():
        if dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls):
                kind = str(f.type)
                if not any(t in kind for t in ("list", "dict", "str", "bool")) and ("int" in kind or "float" in kind):
                    found[f.name] = "float" if "float" in kind else "int"
    return found


NUMERIC = _numeric_fields()
TYPED = sorted({(p, k if k != "NoneType" else NUMERIC[p[-1]]) for p, k in _number_paths(json.loads(BASE_JSON))
                if k != "NoneType" or p[-1] in NUMERIC}, key=repr)
FIGURES = [t for t in TYPED if {"timing", "peaks", "gap_ms", "gpu_busy_ms"} & set(t[0])]
INTEGERS = (st.sampled_from([0, -1, 2**63, 2**64, -2**63 - 1, 10**40, -10**40]) | st.integers(-2**200, 2**200)
            | st.integers(-5, 5))
NUMBERS = (st.floats(allow_nan=False, allow_infinity=False)  # the whole finite range: 0, -0, subnormals, 1e308
           | st.sampled_from([0.0, -0.0, -3.0, 1e308, -1e308, 5e-324]) | INTEGERS)
SEEN: Counter = Counter()  # how the examples ended: refused by from_json, or rendered


@st.composite
def _change(draw):
    """A number put at a path: mostly an integer where the capture holds one and any number elsewhere (a float
    or an empty figure); now and then any number anywhere, which the reader must refuse or take."""
    path, kind = draw(st.sampled_from(FIGURES) | st.sampled_from(TYPED))
    return path, draw(INTEGERS if kind == "int" and draw(st.integers(0, 9)) else NUMBERS)


ODD_NUMBERS = st.lists(_change(), min_size=1, max_size=12)


def with_numbers(changes) -> str:
    """The base capture's JSON with the numbers at these paths changed."""
    data = json.loads(BASE_JSON)
    for path, value in changes:
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    return json.dumps(data)


def renders_everywhere(capture: Capture, tmp_path) -> None:
    assert Capture.from_json(capture.to_json()) == capture
    assert capture.to_dict() == json.loads(capture.to_json())  # the JSON data made without the text, alike
    bundle = json.loads(json.dumps(static_bundle(capture)))
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]) == capture
    assert capture.to_html().startswith("<!DOCTYPE html>")
    json.dumps(payload(capture, per_kernel=False))
    assert summary(capture).startswith("kernelviz:")
    for a, b in ((BASE, capture), (capture, BASE)):
        d = kernelviz.diff(a, b)
        assert d.to_html().startswith("<!DOCTYPE html>")
        json.loads(json.dumps(d._repr_mimebundle_()))
        type(d).from_json(d.to_json())
    path = tmp_path / f"odd{random.random()}.json"
    path.write_text(capture.to_json())
    assert main(["show", str(path), "-o", str(tmp_path / "show.html")]) == 0
    assert main(["diff", str(FIXTURES / "cuda-h100-torch2.11/mlp_0.py"), str(path), "-o",
                 str(tmp_path / "diff.html")]) == 0


@RENDER
@given(changes=ODD_NUMBERS)
def test_a_capture_with_numbers_from_the_whole_range_renders_through_every_view_or_is_refused(changes,
                                                                                              tmp_path_factory):
    try:
        capture = Capture.from_json(with_numbers(changes))
    except kernelviz.CaptureError as exc:
        assert "\n" not in str(exc)
        SEEN["refused"] += 1
        return
    renders_everywhere(capture, tmp_path_factory.mktemp("odd"))
    SEEN["rendered"] += 1


def test_most_drawn_captures_render():
    """The property above saw captures that render, not only refusals (run after it, in the same session)."""
    if not SEEN:
        pytest.skip("run with the property test")
    assert SEEN["rendered"] >= SEEN["refused"], SEEN


def test_a_figure_that_makes_no_sense_says_so(tmp_path):
    cap = Capture.from_json(BASE_JSON)
    matmul, gelu = cap.graphs[0].launches[:2]
    matmul.timing.in_graph_ms, matmul.timing.flops, matmul.timing.bytes = -1.5, 1e308, 10**40
    gelu.timing.gb_per_s = -3.0
    cap.graphs[0].gap_ms = -2.0
    cap.peaks.dram_gb_per_s = -1.0
    renders_everywhere(cap, tmp_path)
    page = cap.to_html()
    assert "invalid: -3 GB/s" in page and "invalid: -1.5<" in page and "invalid: 1e+40 B" in page
    assert "2 launches with invalid figures (negative or beyond any device) not drawn: #0, #1" in page
    text = summary(cap)
    assert "invalid: -1.5 ms" in text and "invalid: -2 ms" in text


CPU = FIXTURES / "cpu-torch2.13"
CUDA = FIXTURES / "cuda-h100-torch2.11"
ODD_CODE = [  # (fixture, text in it, what it becomes): output code that loads but whose parts are not what they seem
    (CUDA / "mlp_0.py", "inductor_meta={'grid_type'", "inductor_meta=[1, 2], _={'grid_type'"),
    (CUDA / "mlp_0.py", "triton_meta={'signature'", "triton_meta='abc', _={'signature'"),
    (CUDA / "mlp_0.py", "empty_strided_cuda((4096, 4096)", f"empty_strided_cuda(({10 ** 39}, 4096)"),
    (CUDA / "mlp_0.py", "size_hints={'x': 16777216}", "size_hints={'x': -16777216000000000000000000}"),
    (CPU / "mlp_0.py", "cpp_pybinding(['const at::BFloat16*', 'at::BFloat16*']",
     "cpp_pybinding([{'a': [1]}, ['at::BFloat16*', [2]]]"),
    (CPU / "mlp_0.py", "cpp_pybinding(['const at::BFloat16*', 'at::BFloat16*']", "cpp_pybinding({('a',): 1}"),
    (CPU / "mlp_0.py", "cpp_pybinding(['const at::BFloat16*', 'at::BFloat16*']", "cpp_pybinding([[[[[[1]]]]]]"),
    (CPU / "collectives_0.py", "all_reduce_.default(buf1, 'sum', '0')", "all_reduce_.default(buf1, 'sum', '²')"),
    (CPU / "collectives_0.py", "all_reduce_.default(buf1, 'sum', '0')", "all_reduce_.default(buf1, 'sum', -7)"),
]


@pytest.mark.parametrize("fixture, old, new", ODD_CODE, ids=[f"{f.stem}:{n[:30]}" for f, _, n in ODD_CODE])
def test_output_code_that_loads_renders_everywhere_or_is_refused_in_one_line(fixture, old, new, tmp_path):
    text = fixture.read_text()
    assert old in text
    path = tmp_path / "odd_output_code.py"
    path.write_text(text.replace(old, new, 1))
    try:
        capture = kernelviz.load(path)
    except kernelviz.ParseError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
        return
    renders_everywhere(fill_timings(capture), tmp_path)
    for kernel in capture.kernels:  # what the model reads of its metadata
        kernel.params, kernel.reads_writes() if hasattr(kernel, "reads_writes") else None


@pytest.mark.parametrize("depth", [5000, 1100])
def test_json_nested_too_deep_is_refused_by_depth_in_one_line(depth):
    data = json.loads(BASE_JSON)
    data["warnings"] = ["deep"]
    text = json.dumps(data).replace('["deep"]', "[" * depth + "]" * depth, 1)
    with pytest.raises(kernelviz.CaptureError, match=r"^not valid JSON \(nested too deep for a JSON reader: over "
                                                     r"about 1,000 levels, where a capture has about 10\)"):
        Capture.from_json(text)


def test_json_nested_deep_in_free_form_metadata_loads_and_renders(tmp_path):
    data = json.loads(BASE_JSON)
    data["graphs"][0]["kernels"][0]["triton_meta"] = {"odd": None}
    text = json.dumps(data).replace('{"odd": null}', '{"odd": ' + "[" * 900 + "]" * 900 + "}", 1)
    renders_everywhere(Capture.from_json(text), tmp_path)
