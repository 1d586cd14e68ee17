"""Timing on the CPU: every launch and kernel gets a wall-clock time, and timing changes nothing."""

import gc
import os

import pytest
import torch

import kernelviz
import zoo
from conftest import FIXTURES
from kernelviz.views.payload import decode

pytestmark = pytest.mark.usefixtures("fresh_dynamo")




def _state(model):
    return [p.detach().clone() for p in model.parameters()] + [p.grad.clone() for p in model.parameters()]


def test_capture_with_bench_times_every_launch_on_the_user_tensors():
    model = zoo.make_mlp()
    x, target = torch.randn(16, 32), torch.randint(0, 32, (16,))
    step = torch.compile(zoo.training_step)
    with kernelviz.capture(bench=True) as cap:
        step(model, x, target)
    assert [g.timed_on for g in cap.graphs] == ["user tensors", "user tensors"]
    for graph in cap.graphs:
        assert graph.warnings == [] and graph.gpu_busy_ms > 0
        for launch in graph.launches:
            assert launch.timing.unit == "cpu" and launch.timing.in_graph_ms > 0, launch.name
        launched = sum(launch.timing.in_graph_ms for launch in graph.launches)
        assert graph.gap_ms >= 0 and abs(launched + graph.gap_ms - graph.gpu_busy_ms) <= 0.02 * graph.gpu_busy_ms
        assert abs(sum(launch.timing.share for launch in graph.launches) + graph.gap_ms / graph.gpu_busy_ms - 1) < 1e-6
        for kernel in graph.kernels:
            assert kernel.timing.isolated_ms > 0 and kernel.timing.error is None
    mm = next(launch for launch in cap.graphs[0].launches if launch.op == "extern_kernels.addmm")
    assert mm.timing.flops == 2 * 16 * 32 * 64  # x @ W1.T, counted by torch's FlopCounterMode
    assert mm.timing.bytes > 0 and mm.timing.gb_per_s > 0
    assert kernelviz.Capture.from_json(cap.to_json()) == cap


def test_timing_changes_no_tensor_no_rng_and_no_later_result():
    model = zoo.make_mlp()
    x, target = torch.randn(16, 32), torch.randint(0, 32, (16,))
    step = torch.compile(zoo.training_step)
    with kernelviz.capture() as cap:
        loss = step(model, x, target)
    before, rng = _state(model), torch.get_rng_state()
    cap.bench(progress=False)
    assert all(torch.equal(a, b) for a, b in zip(before, _state(model)))
    assert torch.equal(rng, torch.get_rng_state())
    model.zero_grad()
    again = step(model, x, target)
    assert torch.equal(again, loss)
    assert cap.graphs[0].timed_on == "user tensors"
    assert cap.graphs[1].timed_on == "recreated inputs"  # the backward's saved tensors are gone by now
    assert all(launch.timing.in_graph_ms > 0 for launch in cap.launches)


def test_later_bench_recreates_inputs_that_are_gone():
    x = torch.randn(64, 32)
    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(x)
    del x
    gc.collect()
    cap.bench(progress=False)
    assert cap.graphs[0].timed_on == "recreated inputs"
    assert cap.launches[0].timing.in_graph_ms > 0


@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="the CPU fixture's C++ is torch 2.13's")
def test_loaded_cpu_code_is_timed_by_running_it_anew():
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "pointwise_0.py")
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == []
    assert graph.launches[0].timing.in_graph_ms > 0 and graph.kernels[0].timing.isolated_ms > 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="there is a GPU here")
def test_cuda_graph_without_a_gpu_says_so():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "pointwise_0.py")
    cap.bench(progress=False)
    assert cap.graphs[0].warnings == ["not timed: no CUDA device here; a CUDA graph needs one to be timed"]
    assert cap.launches[0].timing is None


def test_magic_bench_flag(tmp_path):
    InteractiveShell = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("%load_ext kernelviz")
        shell.run_cell(f"import sys, torch; sys.path.insert(0, {str(FIXTURES.parent)!r}); import zoo")
        result = shell.run_cell("%%kernelviz --bench -o cap\n"
                                "zoo_out = torch.compile(zoo.reduction)(torch.randn(8, 16))")
        assert result.success
        cap = shell.user_ns["cap"]
        assert cap.launches[0].timing.in_graph_ms > 0 and cap.graphs[0].timed_on == "user tensors"
    finally:
        InteractiveShell.clear_instance()


def test_time_kernels_button_times_and_refreshes_the_panel():
    pytest.importorskip("anywidget")
    from kernelviz.notebook.widget import CaptureWidget

    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(torch.randn(256))
    widget = CaptureWidget(cap)
    assert decode(widget.payload)["graphs"][0]["launches"][0]["timing"] is None
    widget._on_message(widget, {"type": "bench"}, [])  # what the panel's "Time kernels" button sends
    timing = decode(widget.payload)["graphs"][0]["launches"][0]["timing"]
    assert timing["unit"] == "cpu" and timing["in_graph_ms"] > 0
    assert decode(widget.payload)["graphs"][0]["timed_on"] in ("user tensors", "recreated inputs")



def _gather_masked(x, idx, big_idx, mask):
    return (x[idx] * mask.unsqueeze(-1)).sum(0) + x[big_idx].sum(0)


def _gather_inputs():
    x = torch.randn(8, 50).t()  # not contiguous: its stride must come from the tensor, not the code
    idx = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    big_idx = torch.randint(0, 50, (10_000,))  # 80 KB: too large to keep (over 64 KiB)
    mask = torch.tensor([True, False] * 4)
    return x, idx, big_idx, mask


def test_inputs_are_recorded_from_the_run_with_the_values_that_steer_it():
    from kernelviz.bench.inputs import decode

    x, idx, big_idx, mask = _gather_inputs()
    with kernelviz.capture() as cap:
        torch.compile(_gather_masked)(x, idx, big_idx, mask)
    specs = cap.graphs[0].inputs
    assert len(specs) == 4 and all(s.recorded for s in specs)
    floats = next(s for s in specs if s.dtype == "float32")
    assert (floats.device, floats.shape, floats.stride, floats.values) == ("cpu", ["50", "8"], ["1", "50"], None)
    small = next(s for s in specs if s.dtype == "int64" and s.shape == ["8"])
    assert torch.equal(decode(small.values, torch.int64, [8]), idx)
    assert next(s for s in specs if s.shape == ["10000"]).values is None
    bools = next(s for s in specs if s.dtype == "bool")
    assert torch.equal(decode(bools.values, torch.bool, [8]), mask)
    assert kernelviz.Capture.from_json(cap.to_json()).graphs[0].inputs == specs


def test_recorded_specs_replace_what_the_code_declares():
    """The GPT-2 crash: the code's get_args() says cuda:0 where the run passed CPU scalars."""
    from kernelviz.recorder.specs import apply_snapshot, snapshot

    graph = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "train_step_1.py").graphs[0]
    assert {s.device for s in graph.inputs} == {"cuda:0"}
    real = [torch.zeros([int(d) for d in s.shape], dtype=getattr(torch, s.dtype)) for s in graph.inputs]
    apply_snapshot(graph, snapshot(real))
    assert {s.device for s in graph.inputs} == {"cpu"} and all(s.recorded for s in graph.inputs)
    apply_snapshot(graph, snapshot(real[:-1]))
    assert graph.warnings[-1].startswith(f"the graph ran with {len(real) - 1} inputs but its call() takes")


def test_recreated_inputs_keep_the_run_s_values_and_name_the_made_up_ones():
    x, idx, big_idx, mask = _gather_inputs()
    with kernelviz.capture() as cap:
        expected = torch.compile(_gather_masked)(x, idx, big_idx, mask)
    del x, idx, big_idx, mask
    gc.collect()
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == []
    big = next(s for s in graph.inputs if s.shape == ["10000"])
    assert big.values is None and graph.made_up_values == []  # too big for the model: kept in this process
    assert all(launch.timing.in_graph_ms > 0 for launch in graph.launches)
    assert expected.shape == (8,)
    loaded = kernelviz.Capture.from_json(cap.to_json())  # the JSON alone: that input's values are made up
    loaded.bench(progress=False)
    assert loaded.graphs[0].made_up_values == [big.name] and loaded.graphs[0].timed_on == "recreated inputs"


def _planted(code: str, kernel: str, body: str) -> str:
    """The code with one kernel replaced by a Python function that does ``body`` (a crash, a hang)."""
    return code + f"\n\ndef _planted(*args):\n    {body}\n\n\n{kernel} = _planted\n"


def _mlp_code() -> str:
    with torch.no_grad(), kernelviz.capture() as cap:
        torch.compile(zoo.make_mlp())(torch.randn(64, 32))
    return cap.graphs[0].code


def test_a_loaded_capture_is_timed_in_another_process(tmp_path):
    pid_file = tmp_path / "pid"
    code = _mlp_code() + f"\nopen({str(pid_file)!r}, 'w').write(str(__import__('os').getpid()))\n"
    cap = kernelviz.load(code)
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == []
    assert int(pid_file.read_text()) != os.getpid()
    assert all(launch.timing.in_graph_ms > 0 for launch in graph.launches)
    assert all(kernel.timing.isolated_ms > 0 for kernel in graph.kernels)


def test_a_timing_process_left_unused_is_kept_for_the_next_timing_and_ends_itself_when_idle(monkeypatch):
    from kernelviz import children

    monkeypatch.setattr(children, "IDLE_S", 2)
    worker = children.Worker()
    worker.keep()
    assert children.Worker.get() is worker  # started as the next one would be
    worker.keep()
    monkeypatch.setenv("KERNELVIZ_TEST_CHANGED", "1")  # the user's environment changed since: a new start
    fresh = children.Worker.get()
    assert fresh is not worker and worker.proc.poll() is not None
    assert fresh.proc.wait(timeout=120) == 0  # no job within IDLE_S: it ends by itself
    assert fresh.proc.stdout.read() == "ready\n"
    fresh.close()


def test_loading_a_cuda_capture_where_torch_sees_a_gpu_starts_its_timing_process(monkeypatch):
    from kernelviz import children

    code = (FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py").read_text()
    kernelviz.load(code)
    assert children.Worker._kept is None  # no GPU here: nothing started
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    kernelviz.load(code)
    worker = children.Worker._kept
    assert worker is not None and worker.ready()
    kernelviz.load(code)
    assert children.Worker._kept is worker  # one is enough
    assert worker.proc.stdout.readline() == "ready\n"
    children.Worker.get().close()


def test_the_expected_outputs_of_cuda_repros_leave_a_timing_process_waiting_for_the_next_timing():
    """Computing repros' expected outputs takes the waiting timing process; one starts again after, as after a
    timing, so that the next capture's timing does not wait for a start (here, with no GPU, the job fails in it)."""
    from kernelviz import children
    from kernelviz.model import ReproRecord
    from kernelviz.repro.record import expect

    graph = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py").graphs[0]
    kernel = next(k for k in graph.kernels if k.kind.startswith("triton"))
    kernel.repro = ReproRecord(launch=0)
    assert children.Worker._kept is None
    expect([graph])
    assert kernel.repro.error and not kernel.repro.expected  # answered, in a process of its own
    worker = children.Worker._kept
    assert worker is not None and worker.ready() and worker.proc.stdout.readline() == "ready\n"
    children.Worker.get().close()


@pytest.mark.parametrize("body, error", [
    ("__import__('ctypes').string_at(0)", "the timing process died (SIGSEGV)"),
    ("__import__('os').abort()", "the timing process died (SIGABRT)"),
    ("__import__('time').sleep(3600)", "did not finish within 5 s (a hang?): the timing process was stopped"),
    ("raise RuntimeError('planted')", "RuntimeError: planted"),
], ids=["segfault", "abort", "hang", "exception"])
def test_a_launch_that_kills_or_hangs_its_process_is_marked_and_the_rest_are_timed(body, error):
    code = _mlp_code()
    graph = kernelviz.load(code).graphs[0]
    victim = graph.kernels[0].name
    cap = kernelviz.load(_planted(code, victim, body))
    cap.bench(progress=False, limit_s=5)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == []
    for launch in graph.launches:
        if launch.kernel_name == victim:
            assert launch.timing.error == error and launch.timing.in_graph_ms is None
        else:
            assert launch.timing.error is None and launch.timing.in_graph_ms > 0, launch.name
    assert graph.kernel(victim).timing.error == error


def test_the_same_kernel_timed_twice_agrees_within_20_percent():
    """One OpenMP thread: on a CPU shared with other processes, a parallel kernel waits for preempted
    threads (whole scheduler slices); that is the machine's noise, not the timer's. A shared machine's speed
    also drifts, by up to 2x from one minute to the next (a whole run slower, not single samples), and a test
    beside this one in the other worker can load it for a whole timing: two timings in a row must agree, within
    five."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x = torch.randn(2**20)
        with kernelviz.capture() as cap:
            torch.compile(zoo.pointwise)(x)
        times = []
        for _ in range(5):
            cap.bench(progress=False)
            timing = cap.graphs[0].kernels[0].timing
            assert timing.samples >= 20 and timing.spread is not None
            times.append(timing.isolated_ms)
            if len(times) >= 2 and max(times[-2:]) / min(times[-2:]) < 1.2:
                break
    finally:
        torch.set_num_threads(threads)
    assert max(times[-2:]) / min(times[-2:]) < 1.2, times
    assert max(times) / min(times) < 2, times  # the drift itself stays within what the machine shows


def test_extern_calls_that_crash_are_left_out_and_the_kernels_after_them_timed():
    code = _mlp_code()
    graph = kernelviz.load(code).graphs[0]
    assert {launch.op for launch in graph.launches if launch.op} == {"extern_kernels.addmm"}
    planted = code + ("\n\ndef _planted(*args, **kwargs):\n    __import__('os').abort()\n\n\n"
                      "extern_kernels = __import__('types').SimpleNamespace(addmm=_planted)\n")
    cap = kernelviz.load(planted)
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.warnings == []
    for launch in graph.launches:
        if launch.op:
            assert launch.timing.error == "the timing process died (SIGABRT)"
        else:
            assert launch.timing.in_graph_ms > 0 and graph.kernel(launch.kernel_name).timing.isolated_ms > 0


def test_a_graph_of_extern_calls_alone_is_not_given_another_modules_globals():
    """A compiled graph's callable may be a wrapper (Inductor aligns inputs on CUDA): with no kernel names
    to check by, only the module whose file holds the graph's code is taken."""
    import json
    import types

    from kernelviz.live import module_globals

    with kernelviz.capture() as cap:
        torch.compile(torch.mm)(torch.randn(64, 64), torch.randn(64, 64))
    (graph,) = cap.graphs
    assert not graph.kernels and graph.launches[0].op
    wrapper = types.SimpleNamespace(current_callable=json.dumps)  # another module's function
    found = module_globals(graph, wrapper)
    assert found is not vars(json) and found is not None and "assert_size_stride" in found
    assert open(found["__file__"]).read() == graph.code


def test_the_timing_process_imports_torch_and_a_graph_s_code_with_its_collector_off():
    """Importing the worker's module leaves torch to main(), which imports it with the collector off (a quarter of
    the process's start); a graph's code is loaded the same way; the collector is back on after each."""
    import subprocess
    import sys

    from kernelviz import worker
    from kernelviz.children import child_environment

    code = "import sys, kernelviz.worker; print(sorted(m for m in ('torch', 'triton') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], env=child_environment(), capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr[-500:]
    gc.collect()
    try:
        with worker._uncollected():  # a graph's code: its garbage collected after
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        with pytest.raises(ValueError), worker._uncollected(freeze=True):  # a failed start: nothing kept for good
            raise ValueError
        assert gc.isenabled() and gc.get_freeze_count() == 0
        with worker._uncollected(freeze=True):  # the start's imports: kept out of later passes
            pass
        assert gc.isenabled() and gc.get_freeze_count() > 0
        gc.disable()
        with worker._uncollected():
            pass
        assert not gc.isenabled()  # as it was
    finally:
        gc.enable()
        gc.unfreeze()


def test_each_run_gets_its_own_copies_of_the_inputs_it_mutates_with_their_strides(monkeypatch):
    """One foreach copy for them all; an expanded input (overlapping strides) among them is cloned alone."""
    from kernelviz.bench import measure
    from kernelviz.bench.measure import arg_maker

    clones = []
    clone = measure._clone
    monkeypatch.setattr(measure, "_clone", lambda t: clones.append(t) or clone(t))

    expanded = torch.randn(3).expand(4, 3)
    args = [torch.randn(4, 3), torch.randn(3, 4).t(), torch.randn(8)[1::2], torch.arange(5), 7, torch.randn(2)]
    for inputs in (args, args[:1] + [expanded] + args[1:]):
        kept = [a.clone() if isinstance(a, torch.Tensor) else a for a in inputs]
        mutated = set(range(len(inputs) - 1))  # not the last
        make = arg_maker(inputs, mutated)
        first, second = make(), make()
        for i, (given, a, b) in enumerate(zip(inputs, first, second)):
            if i not in mutated or not isinstance(given, torch.Tensor):
                assert a is given and b is given
                continue
            assert a is not given and b is not given and a.data_ptr() != b.data_ptr()
            assert a.stride() == given.stride() and a.dtype == given.dtype and torch.equal(a, given)
            if 0 not in a.stride():  # a run writes into its copies, never into the user's tensors
                a.add_(1)
        assert all(torch.equal(k, a) for k, a in zip(kept, inputs) if isinstance(a, torch.Tensor))
        assert [c is expanded for c in clones] == ([True, True] if inputs is not args else [])  # one a run
        clones.clear()
    ones = torch.ones(2)
    assert arg_maker([ones, 3], set())() == [ones, 3] and not clones  # nothing mutated: nothing copied
