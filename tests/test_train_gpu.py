"""Repros of training steps on the GPU (run on the GPU machine): every kernel of the forward and backward
graphs of a 2-layer GPT-2 step (dropout, SDPA with its philox seed and offset) and of a resnet50 step
(channels-last, bf16 autocast) gets a script that runs alone and matches, recorded at the capture's exit on
the user's tensors or after the cell on recreated inputs."""

import subprocess
import sys

import pytest
import torch

import kernelviz
import zoo

pytestmark = pytest.mark.gpu

RUNNER = """
import runpy, sys
for path in sys.argv[1:]:
    print(f"start {path}", flush=True)
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        print(f"exit {exc.code}", flush=True)
    except Exception as exc:
        print(f"error {type(exc).__name__}: {str(exc)[:200]}", flush=True)
"""


def _verdicts(scripts: dict[str, str], tmp_path) -> dict[str, str]:
    """Each script run as ``python script.py`` runs it, in as few child processes as faults allow: the
    verdict line each printed (a child that dies is started again after the script it died in)."""
    paths = {}
    for i, (name, text) in enumerate(scripts.items()):
        paths[str(tmp_path / f"s{i}.py")] = name
        (tmp_path / f"s{i}.py").write_text(text)
    todo, verdicts = list(paths), {}
    while todo:
        done = subprocess.run([sys.executable, "-c", RUNNER, *todo], capture_output=True, text=True, timeout=900)
        current = None
        for line in done.stdout.splitlines():
            if line.startswith("start "):
                current = line[6:]
                verdicts[paths[current]] = "died"
            elif current and (": outputs match" in line or "MISMATCH" in line or line.startswith("error ")):
                verdicts[paths[current]] = line
        todo = todo[todo.index(current) + 1:] if current and done.returncode != 0 else []
    return verdicts


def _repro_share(cap, tmp_path) -> tuple[float, list[str]]:
    """The share of the capture's kernels whose repro runs alone and matches, and what the others say."""
    scripts, failed = {}, []
    for graph in cap.graphs:
        for kernel in graph.kernels:
            try:
                scripts[f"{graph.id} {kernel.name}"] = kernel.to_repro()
            except ValueError as exc:  # ReproError: why there is none
                failed.append(f"{graph.id} {kernel.name}: {exc}")
    verdicts = _verdicts(scripts, tmp_path)
    failed += [f"{name}: {line}" for name, line in verdicts.items() if ": outputs match" not in line]
    total = sum(len(g.kernels) for g in cap.graphs)
    print(f"{total - len(failed)} of {total} kernel repros run alone and match", *failed[:20], sep="\n  ")
    return (total - len(failed)) / total, failed


def test_gpt2_train_step_repros_at_exit_and_after_the_cell(tmp_path):
    torch._dynamo.reset()
    pytest.importorskip("transformers")
    step = zoo.gpt2_training_step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    kinds = sorted(g.kind for g in cap.wait_repros().graphs)
    assert "backward" in kinds and "forward" in kinds
    share, failed = _repro_share(cap, tmp_path)
    assert share >= 0.95, failed
    with kernelviz.capture() as later:
        step()
    later.bench(repros=True, progress=False).wait_repros()  # after the cell: the backward on recreated inputs
    backward = [g for g in later.graphs if g.kind == "backward"]
    assert backward and all(g.timed_on == "recreated inputs" for g in backward)
    recorded = [k for g in later.graphs for k in g.kernels if k.repro is not None and k.repro.expected]
    assert len(recorded) >= 0.95 * sum(len(g.kernels) for g in later.graphs), [g.warnings for g in backward]


def test_resnet50_train_step_repros(tmp_path):
    torch._dynamo.reset()
    pytest.importorskip("torchvision")
    step = zoo.resnet50_training_step()
    step()
    with kernelviz.capture() as cap:
        step()
    cap.bench(repros=True, progress=False)
    assert any(g.kind == "backward" and g.timed_on == "recreated inputs" for g in cap.graphs)
    share, failed = _repro_share(cap, tmp_path)
    assert share >= 0.95, failed
