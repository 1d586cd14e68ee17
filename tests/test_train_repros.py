"""Repros of a training step on the CPU: every kernel of the forward and backward graphs (parameters that
require grad, dropout, a batch norm's in-place update of its running stats) runs alone and matches, whether
the graphs were timed at the capture's exit on the user's tensors or after the cell on recreated inputs."""

import subprocess
import sys

import pytest
import torch

import kernelviz
from kernelviz import children

RUNNER = """
import runpy, sys
for path in sys.argv[1:]:
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        print(f"exit {exc.code}", flush=True)
"""


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.BatchNorm1d(32), torch.nn.GELU(),
                               torch.nn.Dropout(0.2), torch.nn.Linear(32, 16), torch.nn.LayerNorm(16))


def _step(model, x):
    loss = model(x).square().mean()
    loss.backward()
    return loss


def _run_all(scripts: dict[str, str], tmp_path) -> str:
    """Each script run as ``python script.py`` runs it (its own ``__main__``), all in one child process."""
    paths = []
    for name, text in scripts.items():
        paths.append(tmp_path / f"{name}.py")
        paths[-1].write_text(text)
    done = subprocess.run([sys.executable, "-c", RUNNER, *map(str, paths)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def train_capture():
    torch._dynamo.reset()
    model, x = _model(), torch.randn(8, 16)
    step = torch.compile(lambda x: _step(model, x))
    with kernelviz.capture(bench=True, repros=True) as cap:
        step(x)
    yield cap.wait_repros(), step, model, x
    torch._dynamo.reset()


def test_every_kernel_of_a_train_step_gets_a_repro_that_runs_alone_and_matches(train_capture, tmp_path):
    cap = train_capture[0]
    assert sorted(g.id.split("_")[-1] for g in cap.graphs) == ["backward", "forward"]
    scripts = {}
    for graph in cap.graphs:
        assert graph.timed_on == "user tensors" and not [w for w in graph.warnings if "repro" in w]
        scripts[f"{graph.id}_call"] = graph.to_repro()
        scripts.update({kernel.name: kernel.to_repro() for kernel in graph.kernels})
    assert len(scripts) >= 6
    out = _run_all(scripts, tmp_path)
    verdicts = [line for line in out.splitlines() if ": outputs match (" in line]
    assert len(verdicts) == len(scripts), out
    assert out.count("exit 0") == len(scripts) and "MISMATCH" not in out


def test_after_the_cell_the_backward_is_timed_on_recreated_inputs_and_its_repros_recorded(train_capture,
                                                                                        monkeypatch):
    """The backward's saved tensors are gone after the cell: it is timed in the timing process on inputs recreated
    from the specs (no value made up), its launches recorded there, then the repros' expected outputs computed; the
    user's tensors and RNG stay as they were."""
    _, step, model, x = train_capture
    with kernelviz.capture() as cap:
        step(x)
    kinds, give = [], children.Worker.give
    monkeypatch.setattr(children.Worker, "give", lambda self, job, kind="time": kinds.append(kind) or give(self, job,
                                                                                                         kind))
    rng = torch.get_rng_state()
    state = [t.detach().clone() for t in model.state_dict().values()]  # weights, and the running stats
    cap.bench(repros=True, progress=False).wait_repros()
    assert kinds == ["time", "expect"]
    assert torch.equal(torch.get_rng_state(), rng)
    assert all(torch.equal(a, b) for a, b in zip(state, model.state_dict().values()))
    backward = next(g for g in cap.graphs if g.id.endswith("backward"))
    assert backward.timed_on == "recreated inputs" and backward.made_up_values == []
    assert not [w for w in backward.warnings if w.startswith(("not timed", "timing:"))]
    assert all(launch.timing is not None and launch.timing.in_graph_ms for launch in backward.launches)
    for graph in cap.graphs:
        assert graph.repro.expected and graph.repro.error is None, graph.warnings
        for kernel in graph.kernels:
            assert kernel.repro.error is None and kernel.repro.expected, (kernel.name, graph.warnings)


def test_the_time_a_run_s_stream_stood_dry_is_found_and_said_apart_from_the_gap():
    """Kernel b was launched (at 250 ns) after kernel a ended (200 ns): the 100 ns before b are the CPU's, not
    the graph's gap; kernel c was enqueued while b ran, so the 10 ns before it are the graph's own."""
    from kernelviz.bench.results import fill
    from kernelviz.bench.timers import InGraph, dry_ns
    from kernelviz.model import Graph, Launch

    events = [("0", 100, 200, "a", 50), ("0", 300, 400, "b", 250), ("0", 410, 500, "c", 260),
              ("1", 1100, 1200, "a", 1050), ("1", 1210, 1300, "b", 1060)]
    assert dry_ns(events, [[100, 500], [1100, 1300]]) == 100
    graph = Graph(id="g", kind="forward", device="cuda", code="", launches=[Launch(index=0, step=0, op="x")])
    inst = type("Inst", (), {"kernels": {}})()
    fill(graph, inst, {}, InGraph(ms={0: 0.2}, busy_ms=0.25, dry_ms=0.1), {}, "cpu", None, set())
    assert graph.gap_ms == pytest.approx(0.05)
    assert [w for w in graph.warnings if "stood idle 0.100 ms per run of call() waiting for the CPU" in w]


def test_loaded_code_gets_the_attention_philox_seed_and_offset_on_the_host():
    """A loaded capture's code declares the philox seed and offset of efficient attention on the GPU; the run
    passes them on the CPU, where the op reads them (a device pointer read on the host faults)."""
    from kernelviz.bench.inputs import recreate
    from kernelviz.model import Graph, Launch, TensorSpec

    op = "torch.ops.aten._scaled_dot_product_efficient_attention_backward.default"
    graph = Graph(id="g", kind="backward", device="cuda", code="",
                  inputs=[TensorSpec("getitem_2", [], [], "int64", "cuda:0"),
                          TensorSpec("getitem_3", [], [], "int64", "cuda:0")],
                  launches=[Launch(index=0, step=0, op=op, args=["getitem_2", "getitem_3", "0.1"])])
    args, made_up = recreate(graph)
    assert [a.device.type for a in args] == ["cpu", "cpu"] and made_up == ["getitem_2", "getitem_3"]


def test_integer_inputs_too_big_for_the_model_are_kept_here_and_the_backward_timed_on_them():
    """An embedding's backward takes its 9,000 indices (72 KB, above what the model keeps): the run's copy
    stays in this process and is handed to the timing process, so the backward is timed after the cell with no value
    made up."""
    torch._dynamo.reset()
    table = torch.nn.Embedding(64, 8)
    ids = torch.randint(0, 64, (9000,))
    step = torch.compile(lambda: table(ids).square().mean().backward())
    with kernelviz.capture() as cap:
        step()
    cap.bench(progress=False)
    backward = next(g for g in cap.graphs if g.kind == "backward")
    kept = [spec for spec in backward.inputs if spec.dtype == "int64"]
    assert kept and all(spec.values is None for spec in kept)  # too big for the model
    assert backward.timed_on == "recreated inputs" and backward.made_up_values == []
    assert all(launch.timing.in_graph_ms > 0 for launch in backward.launches)
    torch._dynamo.reset()
