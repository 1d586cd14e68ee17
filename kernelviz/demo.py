"""The demo workload: a small MLP's training step (forward, backward, optimizer step) on the CPU."""

from __future__ import annotations


def run_demo():
    """Compile, run and time one training step under a capture; returns the Capture."""
    import warnings

    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # torch's, where numpy is absent
    import torch

    import kernelviz

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
                                torch.nn.Linear(128, 10))
    x, target = torch.randn(32, 64), torch.randint(0, 10, (32,))

    def train_step(x, target):
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        return loss

    with kernelviz.capture(bench=True) as cap:
        torch.compile(train_step)(x, target)
    return cap
