"""Diff figures: time to diff captures of growing size, and to render the diff (text, HTML, panel payload).

    python benchmarks/bench_diff.py [--kernels 50 200 800] [--repeats 3]

Each capture is the real H100 fixtures' graphs repeated (tests/conftest.py big_capture); side b is the
same code with every kernel renumbered, so that nothing matches by name. Prints median seconds.
"""

from __future__ import annotations

import argparse
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


def median_s(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import kernelviz
    from conftest import big_capture
    from kernelviz.views.diff_display import payload
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


if __name__ == "__main__":
    main()
