"""Every public function given the wrong kind of argument raises one line that says what to pass."""

import pytest

import kernelviz
from conftest import FIXTURES


@pytest.fixture(scope="module")
def cap():
    return kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")


CALLS = {
    "capture(bench='yes')": (lambda cap: kernelviz.capture(bench="yes"), "pass True or False"),
    "capture(profile=1)": (lambda cap: kernelviz.capture(profile=1), "pass True or False"),
    "bench(limit_s='x')": (lambda cap: cap.bench(limit_s="x", progress=False), "a positive number of seconds"),
    "bench(limit_s=0)": (lambda cap: cap.bench(limit_s=0, progress=False), "a positive number of seconds"),
    "bench(peaks=3)": (lambda cap: cap.bench(peaks=3, progress=False), "a DevicePeaks or None"),
    "bench(progress='x')": (lambda cap: cap.bench(progress="x"), "report(done, total, label)"),
    "bench(repros=1)": (lambda cap: cap.bench(repros=1, progress=False), "pass True or False"),
    "save(None)": (lambda cap: cap.save(None), "a non-empty str or a pathlib.Path"),
    "save(b'x')": (lambda cap: cap.save(b"x"), "os.fsdecode"),
    "save_html(3)": (lambda cap: cap.save_html(3), "a non-empty str or a pathlib.Path"),
    "counters(top='a')": (lambda cap: cap.counters(top="a"), "a whole number from 1 up"),
    "Capture.from_json(3)": (lambda cap: kernelviz.Capture.from_json(3), "pass the JSON as str or bytes"),
    "load_ranks(None)": (lambda cap: kernelviz.load_ranks(None), "a non-empty str or a pathlib.Path"),
    "load(3)": (lambda cap: kernelviz.load(3), "pass a path"),
    "diff(None, cap)": (lambda cap: kernelviz.diff(None, cap), "pass a Capture"),
}


@pytest.mark.parametrize("call", CALLS)
def test_a_wrong_kind_of_argument_is_one_line_saying_what_to_pass(cap, call):
    make, says = CALLS[call]
    with pytest.raises(TypeError) as caught:
        make(cap)
    message = str(caught.value)
    assert "\n" not in message and says in message, message
