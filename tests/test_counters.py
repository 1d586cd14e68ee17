"""Hardware counters without a GPU: the one line that says why none are measured (no GPU, no ncu, no
permission) and a capture left as it was; counters measured on an H100 (tests/fixtures/counters) loaded,
round-tripped and shown in the HTML report."""

import stat

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.counters import run as counters_run

TIMED = FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json"  # schema 3, no counters
HOT = FIXTURES / "counters" / "h100" / "hot_line.json"  # measured on an H100 by tests/test_counters_gpu.py


def _unchanged_with_one_line(capsys, expected):
    cap = kernelviz.load(TIMED)
    before = cap.to_json()
    assert cap.counters() is cap
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kernelviz: counters not measured: ") and expected in err[0], err
    assert cap.to_json() == before and all(launch.counters is None for launch in cap.launches)


def test_on_the_cpu_one_line_and_nothing_changes(capsys):
    _unchanged_with_one_line(capsys, "no CUDA device here")


@pytest.fixture
def gpu_claimed(monkeypatch, tmp_path):
    """A machine that says it has a GPU and has no ncu anywhere but where the test puts one."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda"))
    monkeypatch.setattr(counters_run, "DEFAULT_CUDA", str(tmp_path / "none"))
    (tmp_path / "bin").mkdir()
    return tmp_path


def test_without_ncu_one_line_and_nothing_changes(capsys, gpu_claimed):
    _unchanged_with_one_line(capsys, "ncu (Nsight Compute) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin")


def test_without_counter_permission_one_line_and_nothing_changes(capsys, gpu_claimed):
    ncu = gpu_claimed / "bin" / "ncu"  # answers as ncu does where counters are not permitted
    ncu.write_text("#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                   "NVIDIA GPU Performance Counters on the target device 0.'\nexit 1\n")
    ncu.chmod(ncu.stat().st_mode | stat.S_IEXEC)
    (gpu_claimed / "bin" / "extras" / "python").mkdir(parents=True)
    (gpu_claimed / "bin" / "extras" / "python" / "ncu_report.py").write_text("")
    _unchanged_with_one_line(capsys, "no permission for GPU performance counters (ERR_NVGPUCTRPERM)")


def test_the_process_ncu_profiles_loads_and_runs_each_graph(tmp_path):
    """``kernelviz.counters.child`` (what ncu starts) runs as a plain process too: it imports what it needs, loads
    a graph's code and runs its call(); on a torch without CUDA the wait for the GPU after that call is what stops
    the graph, said in one line, and the process still ends well."""
    import json
    import subprocess
    import sys

    import torch

    import zoo

    with torch.no_grad(), kernelviz.capture() as cap:
        torch.compile(zoo.make_mlp())(torch.randn(64, 32))
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"capture": cap.to_dict(), "launches": [[] for _ in cap.graphs]}))
    done = subprocess.run([sys.executable, "-m", "kernelviz.counters.child", str(job)], capture_output=True,
                          text=True, env=counters_run._environment(), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "kernelviz-counters ready"
    assert lines[1:] == [f"kernelviz-counters skip {g} AssertionError: Torch not compiled with CUDA enabled"
                         for g in range(len(cap.graphs))]


def test_measured_counters_load_round_trip_and_show_in_the_report():
    cap = kernelviz.load(HOT)
    assert cap.schema_version == 4
    (launch,) = [launch for launch in cap.launches if launch.counters is not None]
    c = launch.counters
    assert c.error is None and c.tool.startswith("Nsight Compute") and c.sm_pct > 50 and c.stalls
    source = cap.graphs[0].kernel(launch.kernel_name).source.splitlines()
    hottest = max(c.lines, key=lambda line: line.stall_samples)
    assert "tl.sin(tl.exp(" in source[hottest.line - 1]
    assert kernelviz.Capture.from_json(cap.to_json()).to_json() == cap.to_json()
    html = cap.to_html()
    assert "Counters (Nsight Compute" in html and "hottest lines and findings" in html
    assert "tl.sin(tl.exp(tl.sin(tl.exp(v * 0.001))))" in html


def test_measured_throughput_says_what_bounds_a_launch_and_the_advice_follows():
    """The expensive-line kernel moves little (0.7% of the DRAM peak) and keeps its SMs busy (88% of speed of
    light): measured, it is compute-bound, and no memory-bound finding claims its time."""
    from kernelviz.advice import advise
    from kernelviz.counters.attach import use_measured

    cap = kernelviz.load(HOT)
    (launch,) = [launch for launch in cap.launches if launch.counters is not None]
    assert launch.timing.bound == "memory" and "memory-bound" in {f.rule for f in advise(cap)}  # by its bytes
    use_measured(launch)
    assert launch.timing.bound == "compute" and launch.timing.pct_peak_flops == launch.counters.sm_pct
    rules = {f.rule for f in advise(cap)}
    assert "memory-bound" not in rules and {"stall", "spills"} <= rules


def test_the_panels_measure_counters_button_answers_with_the_line_that_says_why(gpu_claimed):
    """The live widget's "counters" message (the panel's Measure counters button) runs cap.counters() and,
    where nothing could be measured, sends the panel the one line that says why, its progress cleared."""
    from kernelviz.notebook.widget import CaptureWidget

    cap = kernelviz.load(TIMED)
    before = cap.to_json()
    widget = CaptureWidget(cap)
    sent = []
    widget.send = sent.append
    widget._on_message(widget, {"type": "counters"}, [])
    assert sent == [{"type": "note", "text": "counters not measured: ncu (Nsight Compute) not found on PATH, "
                                             "in $CUDA_HOME/bin or /usr/local/cuda/bin"}]
    assert widget.progress == {} and cap.to_json() == before
