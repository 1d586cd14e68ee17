"""Diff figures: time to diff captures of growing size, and to render the diff (text, HTML, panel payload);
then one graph of many launches against itself in another order.

    python benchmarks/bench_diff.py [--kernels 50 200 800] [--launches 10000] [--repeats 3]

Each capture is the real H100 fixtures' graphs repeated (tests/conftest.py big_capture); side b is the
same code with every kernel renumbered, so that nothing matches by name. Prints median seconds.

The reordering figures: one graph of ``--launches`` launches (the H100 fixtures' graphs one after another in
one call(), each copy's kernels and buffers named apart, as a model of many layers) against the same graph
with every kernel renamed and its launches shuffled, reversed, or in order (goal: 2 s at 10,000 launches).
"""

from __future__ import annotations

import argparse
import copy
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def renumbered(capture):
    import kernelviz
    from kernelviz.model import Capture

    def rename(code: str) -> str:
        return re.sub(r"\b((?:triton|cpp)_\w+?_)(\d+)\b", lambda m: f"{m.group(1)}{int(m.group(2)) + 1000}", code)

    graphs = []
    for graph in capture.graphs:
        (again,) = kernelviz.load(rename(graph.code)).graphs
        again.id, again.kind = graph.id, graph.kind
        graphs.append(again)
    return Capture(graphs=graphs)


def one_graph(launches: int, tag: str):
    """One graph of at least ``launches`` launches: the H100 fixtures' graphs one after another, the kernels and
    buffers of copy ``k`` suffixed ``_<tag><k>``."""
    import kernelviz
    from conftest import CUDA_FIXTURES
    from kernelviz.model import Graph

    sources = [kernelviz.load(p).graphs[0] for p in CUDA_FIXTURES]
    merged = Graph(id="0_forward", kind="forward", device="cuda", code="")
    while len(merged.launches) < launches:
        k = len(merged.kernels)
        graph = copy.deepcopy(sources[k % len(sources)])
        names = {kernel.name: f"{kernel.name}_{tag}{k}" for kernel in graph.kernels}

        def buffer(name, suffix=f"_{tag}{k}"):
            return name and name + suffix

        for kernel in graph.kernels:
            kernel.source = kernel.source.replace(kernel.name, names[kernel.name])
            kernel.name = names[kernel.name]
        for spec in graph.inputs:
            spec.name = buffer(spec.name)
        for event in graph.memory:
            event.buffer, event.source = buffer(event.buffer), buffer(event.source)
        for launch in graph.launches:
            launch.kernel_name = names.get(launch.kernel_name, launch.kernel_name)
            launch.reads, launch.writes = [buffer(n) for n in launch.reads], [buffer(n) for n in launch.writes]
            launch.index = len(merged.launches)
            merged.launches.append(launch)
        merged.kernels += graph.kernels
        merged.memory += graph.memory
        merged.inputs += graph.inputs
        merged.outputs += [buffer(n) for n in graph.outputs]
    return merged


def median_s(fn, repeats: int, clock=time.perf_counter) -> float:
    """Median seconds of ``fn`` by ``clock`` (wall clock; ``time.process_time``: this process's CPU time, which
    other work on the shared machine changes less)."""
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import kernelviz

    kernelviz.needs("pytest", "test", "benchmarks/bench_diff.py")  # tests/conftest.py imports it
    from conftest import big_capture, reordered
    from kernelviz.notebook.diff_display import payload
    from kernelviz.views.diff_text import summary

    print(f"{'kernels':>8} {'launches':>9} {'diff s':>8} {'text s':>8} {'html s':>8} {'payload s':>10} {'same':>6}")
    for n in args.kernels:
        a = big_capture(n)
        b = renumbered(a)
        d = kernelviz.diff(a, b)
        same = sum(g.relation == "same" for g in d.groups) / len(d.groups)
        diff_s = median_s(lambda a=a, b=b: kernelviz.diff(a, b), args.repeats)
        print(f"{len(a.kernels):>8} {len(a.launches):>9} {diff_s:>8.3f} "
              f"{median_s(lambda d=d: summary(d), args.repeats):>8.3f} {median_s(d.to_html, args.repeats):>8.3f} "
              f"{median_s(lambda d=d: payload(d), args.repeats):>10.3f} {same:>6.0%}")

    from kernelviz.model import Capture

    a = one_graph(args.launches, "a")
    n = len(a.launches)
    orders = {"in order": list(range(n)), "reversed": list(range(n))[::-1],
              "shuffled": random.Random(0).sample(range(n), n)}
    print(f"\n{'order':>9} {'launches':>9} {'diff s':>8} {'cpu s':>8} {'paired':>7}  what changed")
    for name, order in orders.items():
        ca, cb = Capture(graphs=[a]), Capture(graphs=[reordered(one_graph(args.launches, "b"), order)])
        d = kernelviz.diff(ca, cb)
        paired = sum(len(g.a) for g in d.groups if g.a and g.b) / n
        wall = median_s(lambda ca=ca, cb=cb: kernelviz.diff(ca, cb), args.repeats)
        cpu = median_s(lambda ca=ca, cb=cb: kernelviz.diff(ca, cb), args.repeats, time.process_time)
        print(f"{name:>9} {n:>9} {wall:>8.3f} {cpu:>8.3f} {paired:>7.0%}  {d.headline.summary[:60]}")


if __name__ == "__main__":
    main()
