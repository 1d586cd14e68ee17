"""Property tests: mutated real output code and mutated capture JSON either load into a capture that
round-trips and renders, or are refused with one line (ParseError / CaptureError), each within a time
bound. ``benchmarks/bench_scale.py`` runs these and prints how many inputs each saw."""

import json
import os
from collections import Counter
from datetime import timedelta

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import kernelviz  # noqa: E402
from conftest import ALL_FIXTURES, FIXTURES  # noqa: E402
from kernelviz.model import Capture  # noqa: E402
from kernelviz.notebook.display import static_bundle  # noqa: E402
from kernelviz.views.payload import capture_from_bundle, payload  # noqa: E402
from kernelviz.views.text import summary  # noqa: E402

# every real module but the 148 KB resnet18 one (a render of it costs more than a fuzz step should)
CODE = [p.read_text() for p in ALL_FIXTURES if p.stat().st_size < 40_000]
CAPTURES = [kernelviz.load(FIXTURES / name).to_json() for name in (
    "cuda-h100-torch2.11/mlp_0.py", "cuda-h100-torch2.11/attention_0.py", "cpu-torch2.13/train_step_1.py")]
SEEN: Counter = Counter()  # inputs seen per test, and how each ended (read by bench_scale.py)
EXAMPLES = int(os.environ.get("KERNELVIZ_FUZZ_EXAMPLES", "1000"))  # per test
FUZZ = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=2),
                derandomize=not os.environ.get("KERNELVIZ_FUZZ_RANDOM"),  # the same inputs in every CI run
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# what gets injected: the characters that matter to the parser, control characters, non-BMP text
NASTY = st.lists(st.sampled_from(list("'\"()[]{}%#:=,.\\ \t\n\r\x00\x0b\x0c\u2028\x85") + [
    "😀", "é", " = async_compile.triton(", "def call(args):", "# AOT ID: ['x']", "'''", '"""', "@triton.jit", "buf0"]),
    max_size=8).map("".join)


def renders(capture: Capture) -> None:
    """A capture that loads round-trips through JSON and through the notebook's saved form, and renders."""
    text = capture.to_json()
    assert Capture.from_json(text) == capture
    bundle = json.loads(json.dumps(static_bundle(capture)))
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]) == capture
    assert "<script" not in bundle["text/html"]
    assert capture.to_html().startswith("<!DOCTYPE html>")
    json.dumps(payload(capture, per_kernel=False))
    assert summary(capture).startswith("kernelviz:")


@st.composite
def mutated_code(draw) -> str:
    lines = draw(st.sampled_from(CODE)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "truncate", "inject", "crlf", "tabs"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        j = draw(st.integers(i, min(i + 30, len(lines))))
        if op == "delete":
            del lines[i:j]
        elif op == "duplicate":
            lines[i:i] = lines[i:j]
        elif op == "swap" and lines:
            lines[i], lines[j - 1 if j > i else i] = lines[j - 1 if j > i else i], lines[i]
        elif op == "truncate":
            text = "".join(lines)
            lines = [text[: draw(st.integers(0, len(text)))]]
        elif op == "inject" and lines:
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(NASTY) + lines[i][at:]
        elif op == "crlf":
            lines = [line.replace("\n", "\r\n") for line in lines]
        elif op == "tabs":
            lines[i:j] = [line.replace("    ", "\t") for line in lines[i:j]]
    return "".join(lines)


@FUZZ
@given(mutated_code())
def test_load_of_mutated_output_code_gives_a_capture_or_a_parse_error(text):
    SEEN["load"] += 1
    try:
        capture = kernelviz.load(text + "\n")
    except kernelviz.ParseError as exc:
        assert "\n" not in str(exc)
        SEEN["load: ParseError"] += 1
        return
    renders(capture)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8) | st.just("<script>alert(1)</script>"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


PATHS = [list(_paths(json.loads(text))) for text in CAPTURES]


@st.composite
def mutated_json(draw) -> str:
    which = draw(st.integers(0, len(CAPTURES) - 1))
    text = CAPTURES[which]
    if draw(st.booleans()):  # the text: cut, or with characters put in
        at = draw(st.integers(0, len(text)))
        return text[:at] + (draw(NASTY) if draw(st.booleans()) else "")
    data = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS[which]))
        if not path:
            continue
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            key = path[-1]
            op = draw(st.sampled_from(["replace", "delete", "duplicate"]))
            if op == "replace":
                parent[key] = draw(JSON_VALUES)
            elif op == "delete":
                del parent[key]
            elif isinstance(parent, list):
                parent.insert(key, parent[key])
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced this path
    return json.dumps(data)


@FUZZ
@given(mutated_json())
def test_from_json_of_mutated_captures_gives_a_capture_or_a_capture_error(text):
    SEEN["from_json"] += 1
    try:
        capture = Capture.from_json(text)
    except kernelviz.CaptureError as exc:
        assert "\n" not in str(exc)
        SEEN["from_json: CaptureError"] += 1
        return
    renders(capture)
