"""A compiled step with a planted slowdown in one kernel, and pairs of its captures checked, for the gate's tests
(tests/test_gate.py, tests/test_gate_gpu.py) and benchmarks/bench_gate.py.

The step is an extern matmul, then a chain of ``sin`` · ``mul`` that Inductor fuses, with the ReLU before it and
the row sums after it, into one kernel. A longer chain is more work in that one kernel and in nothing else: the
graph, its launches and every other kernel stay as they are, so the slowdown is planted in one kernel of a real
compiled step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

CHAIN = 12  # sin · mul pairs in the fused kernel
SLOW_CHAIN = 14  # 2 more: the kernel about 20% slower on the CPU (benchmarks/bench_gate.py measures it)
GPU_CHAINS = (30, 36)  # on a GPU the chain must be long for the kernel's arithmetic, not its memory, to set its time


def compiled_step(chain: int, device: str = "cpu", rows: int = 512, cols: int = 256) -> Callable[[], object]:
    """The step compiled with ``chain`` pairs, on fixed inputs (compiled where first run: in a capture, which then
    records the user's lines of its kernels)."""
    import torch

    def step(x, w):
        s = torch.relu(x @ w)
        for _ in range(chain):
            s = torch.sin(s) * 1.01
        return s.sum(dim=1)

    generator = torch.Generator().manual_seed(0)
    x = torch.randn(rows, cols, generator=generator).to(device)
    w = torch.randn(cols, cols, generator=generator).to(device)
    compiled = torch.compile(step)
    return lambda: compiled(x, w)


@dataclasses.dataclass
class Counts:
    """Of the pairs checked: how many of the unchanged ones failed, and how many of the slowed ones failed
    naming the slowed kernel (``slowdown``: its median time alone, slowed over unchanged, where known)."""

    pairs: int
    false_alarms: int = 0
    detected: int = 0
    slowdown: float | None = None
    lines: list[str] = dataclasses.field(default_factory=list)  # the reasons of every wrong verdict


def pairs(count: int, repeat: int, slower: str = "5%", device: str = "cpu",
          chains: tuple[int, int] = (CHAIN, SLOW_CHAIN), **shape) -> Counts:
    """``count`` pairs of captures of the unchanged step, and ``count`` pairs of it against the slowed step
    (``chains``: the unchanged and the slowed step's)."""
    from kernelviz.gate import check
    from kernelviz.gate.repeat import timed_capture

    base, slow = (compiled_step(chain, device, **shape) for chain in chains)
    out = Counts(count)
    alone: list[tuple[float, float]] = []
    for _ in range(count):
        a, b = timed_capture(base, repeat), timed_capture(base, repeat)
        same = check(a, b, slower=slower)
        if same.failed:
            out.false_alarms += 1
            out.lines += [r.line() for r in same.reasons]
        slowed = check(a, timed_capture(slow, repeat), slower=slower)
        named = [r for r in slowed.reasons if r.check == "launch time" and "sin" in r.launch]
        out.detected += bool(named)
        out.lines += [] if named else ["missed: " + " | ".join(slowed.lines())]
        alone.append(tuple(_fused_ms(c) for c in (slowed.diff.a, slowed.diff.b)))
    known = [b / a for a, b in alone if a and b]
    out.slowdown = sorted(known)[len(known) // 2] if known else None
    return out


def _fused_ms(capture) -> float | None:
    """The time of the fused kernel (the one whose name holds sin): alone on the CPU, in the graph on a GPU."""
    graph = capture.graphs[0]
    launch = next(x for x in graph.launches if x.kernel_name and "sin" in x.kernel_name)
    kernel = graph.kernel(launch.kernel_name)
    if launch.timing and launch.timing.unit == "cpu":
        return kernel.timing.isolated_ms if kernel.timing else None
    return launch.timing.in_graph_ms if launch.timing else None
