"""The gate on a GPU: pairs of captures of the unchanged step pass, the planted slowdown of one kernel
fails naming it (tests/gate_steps.py). Run on the GPU machine:

    PYTHONPATH=$PWD python -m pytest -q -m gpu tests/test_gate_gpu.py

On a GPU the chain is longer (``GPU_CHAINS``: 30, then 20% more) and the tensors larger (2048 x 2048), so that the
fused kernel's arithmetic, not its memory traffic, sets its time and 20% more of it is about 20% more time."""

import pytest

from gate_steps import GPU_CHAINS, pairs

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


def test_unchanged_pairs_pass_and_a_planted_slowdown_fails_naming_the_kernel():
    counts = pairs(5, repeat=3, device="cuda", chains=GPU_CHAINS, rows=2048, cols=2048)
    assert counts.slowdown and counts.slowdown > 1.1, counts.slowdown  # the plant is there on this GPU
    assert (counts.false_alarms, counts.detected) == (0, 5), counts.lines
