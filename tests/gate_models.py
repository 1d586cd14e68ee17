"""Model steps for the gate measured as CI sees it, each capture in its own process (benchmarks/bench_gate.py
--processes, tests/test_gate_processes.py), and the code changes the gate must catch.

    python tests/gate_models.py MODEL VARIANT OUT.json [--repeat 1] [--device cpu]

captures ``repeat`` timed runs of MODEL's step with VARIANT's code (merged as the pytest plugin merges them) and
saves the capture to OUT.json. Models: ``transformer`` (a training step, CPU), ``cnn`` (a training step, CPU),
``resnet18`` (torchvision, inference, batch 16), ``gpt2`` (transformers' GPT-2 from a small config, a training
step; no weights downloaded). Variants, each a change to the model's code:

- ``base``: the step unchanged;
- ``slow``: one kernel does more arithmetic: the activation's kernel (GELU and a chain of ``sin`` · ``mul``
  fused into it, outside autograd, so that it holds a real share of the step) gets a longer chain, about 20%
  more time in that kernel (``--chain BASE,SLOW`` sets the chains; the benchmark prints the kernel's measured
  slowdown and its share of the step);
- ``added``: a launch added (a row-wise ``cumsum`` of the activation, which Inductor cannot fuse into it);
- ``unfused``: a fusion lost (an opaque custom op between the activation and the scale after it, so that the one
  kernel they made is split).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

MODELS = ("transformer", "cnn", "resnet18", "gpt2")
VARIANTS = ("base", "slow", "added", "unfused")
# sin · mul pairs in the activation's kernel, unchanged and ``slow``: enough for it to hold 5% of the step or more
# (the benchmark prints its share; --chain sets them)
CHAINS = {"transformer": (4, 5), "cnn": (3, 4), "resnet18": (48, 58), "gpt2": (96, 116)}


@torch.library.custom_op("kernelviz_gate::barrier", mutates_args=())
def barrier(t: torch.Tensor) -> torch.Tensor:
    """An identity Inductor cannot see through (a custom op): the fusion across it is lost."""
    return t.clone()


@barrier.register_fake
def _(t):
    return torch.empty_like(t)


barrier.register_autograd(lambda ctx, grad: grad)


def act(h, variant: str, chains: tuple[int, int]):
    """The activation every model runs where the change is made: GELU, a chain of ``sin`` · ``mul`` outside
    autograd (``chains``: its length unchanged and in ``slow``), then a scale."""
    g = torch.nn.functional.gelu(h)
    s = g.detach()
    for _ in range(chains[1 if variant == "slow" else 0]):  # an int index: dynamo (torch 2.11) refuses a bool
        s = torch.sin(s) * 1.01
    g = g + s * 1e-3
    if variant == "added":
        g = g + torch.cumsum(g.detach(), dim=-1) * 1e-3
    if variant == "unfused":
        g = barrier(g)
    return g * 1.5


def build(model: str, variant: str, device: str = "cpu", chains: tuple[int, int] | None = None) -> Callable[[], object]:
    """MODEL's step with VARIANT's code, compiled, on fixed inputs: a callable whose repetition is harmless."""
    torch.manual_seed(0)
    chains = CHAINS[model] if chains is None else chains
    if model == "transformer":
        net, x = _transformer(variant, chains), torch.randn(8, 64, 128)
    elif model == "cnn":
        net, x = _cnn(variant, chains), torch.randn(8, 3, 32, 32)
    elif model == "resnet18":
        net, x = _resnet18(variant, chains), torch.randn(16, 3, 224, 224)
    elif model == "gpt2":
        net, x = _gpt2(variant, chains), torch.randint(0, 1000, (8, 256))
    else:
        raise ValueError(f"model {model!r}: expected one of {', '.join(MODELS)}")
    net, x = net.to(device), x.to(device)
    if model == "resnet18":
        net.eval()
    compiled = torch.compile(net)
    if model == "resnet18":
        def infer():
            with torch.no_grad():
                return compiled(x)
        return infer

    def train():
        for p in net.parameters():
            p.grad = None
        loss = compiled(x)
        loss.backward()
        return loss
    return train


def _transformer(variant: str, chains: tuple[int, int]):
    class Block(nn.Module):
        def __init__(self, d: int):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.fc2(act(self.fc1(self.ln2(x)), variant, chains))

    class Net(nn.Module):
        def __init__(self, d: int = 128):
            super().__init__()
            self.blocks = nn.Sequential(Block(d), Block(d))

        def forward(self, x):
            return self.blocks(x).pow(2).mean()

    return Net()


def _cnn(variant: str, chains: tuple[int, int]):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32)
            self.c2, self.b2 = nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64)
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            x = nn.functional.max_pool2d(act(self.b1(self.c1(x)), variant, chains), 2)
            x = self.b2(self.c2(x)).relu().mean(dim=(2, 3))
            return self.fc(x).logsumexp(dim=1).mean()

    return Net()


def _resnet18(variant: str, chains: tuple[int, int]):
    import torchvision

    net = torchvision.models.resnet18()
    net.layer1[0].relu = _Act(variant, chains)  # the change, in the first block's activations
    return net


def _gpt2(variant: str, chains: tuple[int, int]):
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=1000, n_positions=256)
    lm = GPT2LMHeadModel(config)
    lm.transformer.h[0].mlp.act = _Act(variant, chains)  # the change, in the first block's MLP

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = lm

        def forward(self, ids):
            return self.lm(input_ids=ids, labels=ids).loss

    return Step()


class _Act(nn.Module):
    """:func:`act` as a module (torchvision and transformers call their activation as one)."""

    def __init__(self, variant: str, chains: tuple[int, int]):
        super().__init__()
        self.variant, self.chains = variant, chains

    def forward(self, h):
        return act(h, self.variant, self.chains)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=MODELS)
    parser.add_argument("variant", choices=VARIANTS)
    parser.add_argument("out")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--chain", metavar="BASE,SLOW", help="sin · mul pairs in the activation's kernel")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the CPU models: 1)")
    args = parser.parse_args(argv)
    from kernelviz.gate.repeat import timed_capture

    if not args.device.startswith("cuda"):
        torch.set_num_threads(args.threads)
    chains = tuple(int(n) for n in args.chain.split(",")) if args.chain else None
    step = build(args.model, args.variant, args.device, chains)
    timed_capture(step, args.repeat).save(args.out)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
