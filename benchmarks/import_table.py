"""Who imports whom by package in two kernelviz trees, side by side, as ``tests/test_layers.py`` counts it (imports
inside functions included, the model's doors and imports for type checkers aside): a Markdown table of the packages'
edges before and after a change, and each side's circles.

``python benchmarks/import_table.py OLD_CHECKOUT [NEW_CHECKOUT]`` (NEW: this checkout)."""

from __future__ import annotations

import argparse
import graphlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_layers import package_imports  # noqa: E402


def circles(edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """Package circles of ``edges``: each found once an edge of the one before is taken out of the graph."""
    graph = {a: set(b) for a, b in edges.items()}
    found = []
    while True:
        try:
            graphlib.TopologicalSorter(graph).prepare()
            return found
        except graphlib.CycleError as exc:
            circle = exc.args[1]
            found.append(circle)
            graph[circle[1]].discard(circle[0])  # graphlib lists each node before one that it is a predecessor of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="a checkout of kernelviz before the change")
    parser.add_argument("new", type=Path, nargs="?", default=ROOT, help="a checkout after it (default: this one)")
    args = parser.parse_args()
    before, after = (package_imports(tree / "kernelviz") for tree in (args.old, args.new))
    print("| package | imports before | imports after |\n|---|---|---|")
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name), after.get(name)
        shown = ["(none)" if side is None else ", ".join(sorted(side)) or "-" for side in (old, new)]
        print(f"| {name} | {shown[0]} | {shown[1]} |")
    for label, edges in (("before", before), ("after", after)):
        found = circles(edges)
        print(f"\npackage circles {label} (each package imports the next): {len(found)}"
              + "".join(f"\n  {' -> '.join(reversed(c))}" for c in found))


if __name__ == "__main__":
    main()
