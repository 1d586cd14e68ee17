"""Diffs of pairs made live on the GPU (run on the GPU machine): default against max-autotune, both timed on
the same tensors, and `kernelviz run --bench` of a CUDA script."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import kernelviz
import zoo
from kernelviz.views.diff_text import summary

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_dynamo")]


def _captured(mode: str, model, x):
    torch._dynamo.reset()
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(model, mode=mode)(x)
    return cap


def test_default_against_max_autotune_live_and_timed():
    x = torch.randn(4096, 32, device="cuda")
    model = zoo.make_mlp("cuda")
    a = _captured("default", model, x)
    b = _captured("max-autotune-no-cudagraphs", model, x)
    d = kernelviz.diff(a, b, labels=("default", "max-autotune"))
    assert [(gm.how, gm.confidence) for gm in d.graphs] == [("kind + input shapes", 1.0)]
    kinds_b = {k.kind for k in b.kernels}
    assert {g.relation for g in d.groups} <= {"same", "changed", "fused", "split"}  # nothing lost or invented
    for g in d.groups:
        t = g.measure("in-graph")
        assert t.comparable and t.a > 0 and t.b > 0 and t.delta == pytest.approx(t.b - t.a)
    if "triton_template" in kinds_b:  # autotuning picked a template for at least one matmul
        assert any(g.relation in ("fused", "changed") and any(b.graphs[0].launches[i].kernel_name for i in g.b)
                   for g in d.groups)
    total = d.headline.measures[0]
    assert total.name == "GPU time of launches"
    assert total.b == pytest.approx(sum(x.timing.in_graph_ms for x in b.launches))
    print(summary(d))  # the figures, for the GPU run's log


def test_run_bench_times_a_cuda_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n"
                      "m = torch.nn.Linear(256, 256).cuda()\n"
                      "x = torch.randn(512, 256, device='cuda')\n"
                      "torch.compile(lambda x: torch.relu(m(x)).sum())(x).backward()\n")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-m", "kernelviz", "run", str(script), "--bench", "-o",
                           str(tmp_path / "r.html")], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    cap = kernelviz.load(tmp_path / "r.json")
    assert {g.kind for g in cap.graphs} == {"forward", "backward"}
    assert all(x.timing is not None and x.timing.unit == "gpu" for x in cap.launches)
