"""The source diff of a group of launches: each side's text (kernel sources, or the call line of an
extern call), difflib's line opcodes between them, and pygments runs split into lines for highlighting."""

from __future__ import annotations

import difflib

from ..compare.model import Diff, Group
from ..model import Graph
from .highlight import runs

CONTEXT = 3  # unchanged lines kept around each change


def side_text(graph: Graph | None, indices: list[int]) -> tuple[str, str]:
    """The source of a side of a group and its language ("cpp" when its kernels are C++)."""
    if graph is None or not indices:
        return "", "python"
    kernels = {k.name: k for k in graph.kernels}
    parts, lang = [], "python"
    for i in indices:
        launch = graph.launches[i]
        kernel = kernels.get(launch.kernel_name or "")
        if kernel is None:
            parts.append(launch.text + "\n")
        else:
            parts.append(kernel.source if kernel.source.endswith("\n") else kernel.source + "\n")
            lang = "cpp" if kernel.kind == "cpp" else lang
    return "".join(parts), lang


def source_diff(diff: Diff, group: Group) -> dict:
    """Both sides' text and language, and difflib's opcodes over their lines."""
    ga, gb = diff.graph_pair(group)
    a, lang_a = side_text(ga, group.a)
    b, lang_b = side_text(gb, group.b)
    matcher = difflib.SequenceMatcher(None, a.splitlines(), b.splitlines(), autojunk=False)
    return {"a": a, "b": b, "lang_a": lang_a, "lang_b": lang_b,
            "ops": [list(op) for op in matcher.get_opcodes()]}


def unified(ops: list[list], context: int = CONTEXT):
    """Rows of a unified diff: ("=", i, j) unchanged, ("-", i, None), ("+", None, j), ("…", n, None) for
    n unchanged lines left out."""
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            keep_head = context if k > 0 else 0
            keep_tail = context if k < len(ops) - 1 else 0
            if i2 - i1 > keep_head + keep_tail:
                yield from (("=", i, j1 + i - i1) for i in range(i1, i1 + keep_head))
                yield ("…", i2 - i1 - keep_head - keep_tail, None)
                yield from (("=", i, j1 + i - i1) for i in range(i2 - keep_tail, i2))
            else:
                yield from (("=", i, j1 + i - i1) for i in range(i1, i2))
            continue
        yield from (("-", i, None) for i in range(i1, i2))
        yield from (("+", None, j) for j in range(j1, j2))


def line_runs(text: str, lang: str) -> list[list[tuple[str, str]]]:
    """Pygments ``(class, text)`` runs of each line of ``text``."""
    lines: list[list[tuple[str, str]]] = [[]]
    for cls, chunk in runs(text, lang):
        for n, piece in enumerate(chunk.split("\n")):
            if n:
                lines.append([])
            if piece:
                lines[-1].append((cls, piece))
    return lines
