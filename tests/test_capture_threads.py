"""Threads: a capture records what its own thread compiles and runs, never another thread's graphs.
(On the GPU machine these run on CUDA with torch 2.11.)"""

import threading

import pytest
import torch

import kernelviz
import zoo

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.usefixtures("fresh_dynamo", "inductor_cache")]


def _in_thread(name: str, target) -> threading.Thread:
    errors: list[BaseException] = []

    def run():
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run, name=name)
    thread.errors = errors
    thread.start()
    return thread


def _join(thread: threading.Thread) -> None:
    thread.join(300)
    assert not thread.is_alive()
    if thread.errors:
        raise thread.errors[0]


def test_capture_leaves_out_what_another_thread_compiles_meanwhile(device):
    x = torch.randn(32, device=device)
    opened, done = threading.Event(), threading.Event()

    def other():
        assert opened.wait(60)
        torch.compile(zoo.with_graph_break)(x)  # two graphs and a graph break, in another thread
        done.set()

    thread = _in_thread("other", other)
    with kernelviz.capture() as cap:
        opened.set()
        assert done.wait(300)
        torch.compile(zoo.pointwise)(x)
    _join(thread)
    (graph,) = cap.graphs
    assert graph.thread == "MainThread" and "aten.sigmoid" in graph.kernels[0].original_aten
    assert cap.dynamo == []


def test_captures_in_two_threads_keep_their_own_graphs(device):
    both_open, both_ran = threading.Barrier(2, timeout=300), threading.Barrier(2, timeout=300)
    caps = {}
    x, w, b = (torch.randn(*shape, device=device) for shape in ((16, 32), (32,), (32,)))

    def work(name, fn, *args):
        def run():
            with kernelviz.capture() as cap:
                both_open.wait()
                torch.compile(fn)(*args)
                both_ran.wait()
            caps[name] = cap

        return run

    threads = [_in_thread("first", work("first", zoo.pointwise, x)),
               _in_thread("second", work("second", zoo.layer_norm_relu, x, w, b))]
    for thread in threads:
        _join(thread)
    (first,), (second,) = caps["first"].graphs, caps["second"].graphs
    assert first.thread == "first" and "aten.sigmoid" in first.kernels[0].original_aten
    assert second.thread == "second" and "aten.native_layer_norm" in second.kernels[0].original_aten
    assert first.code != second.code


def test_training_step_in_a_thread_records_forward_and_backward(device):
    model = zoo.make_mlp(device)
    x, target = torch.randn(8, 32, device=device), torch.randint(0, 32, (8,), device=device)
    caps = []

    def run():
        with kernelviz.capture() as cap:
            torch.compile(zoo.training_step)(model, x, target)
        caps.append(cap)

    _join(_in_thread("trainer", run))
    (cap,) = caps
    assert [(g.kind, g.calls) for g in cap.graphs] == [("forward", 1), ("backward", 1)]
    # autograd runs a CPU backward in the thread that called it, a CUDA one in its device thread
    assert [g.thread for g in cap.graphs] == ["trainer", "trainer"] if device == "cpu" else \
        cap.graphs[0].thread == "trainer" and cap.graphs[1].thread.startswith("Dummy")


def test_backward_in_a_thread_torch_started_goes_to_the_capture_of_its_forward(device):
    """On a GPU, autograd compiles and runs backward graphs in its own device threads, which are not
    Python threads (a thread started with ``_thread`` is one of those for ``threading``). With
    captures open in two threads, each backward still goes to the capture of its forward."""
    import _thread

    both_ran = threading.Barrier(2, timeout=300)
    caps, dummies = {}, []

    def work(name, width):
        def backward(loss, done, errors):
            try:
                dummies.append(type(threading.current_thread()).__name__)
                loss.backward()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the capture's thread
                errors.append(exc)
            done.set()

        def run():
            model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh()).to(device)
            done, errors = threading.Event(), []
            with kernelviz.capture() as cap:
                loss = torch.compile(model)(torch.randn(4, width, device=device)).sum()
                both_ran.wait()  # both forwards ran and both captures are open
                _thread.start_new_thread(backward, (loss, done, errors))
                assert done.wait(300)
                both_ran.wait()
            if errors:
                raise errors[0]
            assert model[0].weight.grad is not None
            caps[name] = cap

        return run

    threads = [_in_thread("first", work("first", 8)), _in_thread("second", work("second", 16))]
    for thread in threads:
        _join(thread)
    assert dummies == ["_DummyThread", "_DummyThread"]
    for name, width in (("first", 8), ("second", 16)):
        cap = caps[name]
        assert [(g.kind, g.calls) for g in cap.graphs] == [("forward", 1), ("backward", 1)], cap.warnings
        assert cap.graphs[0].thread == name and cap.graphs[1].thread.startswith("Dummy")
        assert all(f"{width}, {width}" in g.code for g in cap.graphs)
