"""What changed, in words: one sentence per graph pair ("11 launches added after launch 21, repeating
launches 11-21; 1 changed (launch 22); launches reordered: 2 of 40 moved (launches 3, 7)") and one for the
whole diff. Launch numbers are those of side a's call() (its table's "#"), except where a launch exists only
in b."""

from __future__ import annotations

from bisect import bisect_left

from ..model import Graph
from .features import Work
from .match import repeats, shape_key
from .model import Group, Measure

NAMED = 2  # changes listed by name up to this many; beyond, by launch number
SPANS = 8  # runs of launch numbers listed in a sentence at most


def graph_story(ga: Graph, gb: Graph, groups: list[Group], wa: list[Work], wb: list[Work]) -> str:
    """The groups of one graph pair (in reading order) as a sentence; ``wa`` and ``wb`` are the graphs'
    :func:`describe`."""
    keys_a = [shape_key(w) for w in wa]
    keys_b = [shape_key(w) for w in wb]
    parts: list[str] = []
    before = None  # the last a launch seen, in reading order
    k = 0
    while k < len(groups):
        run = [groups[k]]
        if run[0].relation in ("added", "removed"):
            while k + 1 < len(groups) and groups[k + 1].relation == run[0].relation:
                k += 1
                run.append(groups[k])
            parts.append(_run(run[0].relation, run, before, ga, gb, keys_a, keys_b))
        elif run[0].relation in ("fused", "split"):
            g = run[0]
            parts.append(f"{_numbers(g.a)} fused into one ({_name(gb, g.b[0])})" if g.relation == "fused"
                         else f"launch {g.a[0]} ({_name(ga, g.a[0])}) split into {len(g.b)}")
        before = max([i for g in run for i in g.a], default=before)
        k += 1
    changed = [g for g in groups if g.relation == "changed"]
    if changed:
        where = "; ".join(f"launch {g.a[0]}: {_names(ga, gb, g)} ({g.changed})"
                          for g in changed) if len(changed) <= NAMED else _numbers([g.a[0] for g in changed])
        parts.append(f"{_count(len(changed))} changed ({where})")
    return "; ".join(parts + _reordered(groups)) or "no launch changed"


def unpaired_story(ga: Graph | None, gb: Graph | None) -> str:
    """A graph without a counterpart: ``3 launches removed (the graph has no counterpart in b)``."""
    graph, relation, other = (ga, "removed", "b") if ga is not None else (gb, "added", "a")
    return f"{_count(len(graph.launches))} {relation} (the graph has no counterpart in {other})"


def diff_story(stories: list[tuple[str, str]]) -> str:
    """The sentence of a whole diff from (graph pair's name, its sentence), naming graphs where several
    changed."""
    changed = [(name, text) for name, text in stories if text != "no launch changed"]
    if not changed:
        return "no launch changed"
    if len(stories) == 1:
        return changed[0][1]
    return "; ".join(f"{name}: {text}" for name, text in changed)


def with_time(story: str, time: Measure, noise_pct: float) -> str:
    """The diff's sentence with its total time where that moved by ``noise_pct`` or more: ``the same launches;
    time of launches 0.0214 → 0.051 ms (+138.3%)`` (a diff whose launches are the same is not "unchanged")."""
    pct = time.pct
    if pct is None or abs(pct) < noise_pct:
        return story
    moved = f"{time.name} {time.a:.4g} → {time.b:.4g} {time.unit} ({pct:+.1f}%)"
    return f"{'the same launches' if story == 'no launch changed' else story}; {moved}"


def _run(relation, run, before, ga, gb, keys_a, keys_b) -> str:
    """A run of added (or removed) launches: how many, where, and which launches of a it repeats."""
    if relation == "added":
        indices = [j for g in run for j in g.b]
        where = f"after launch {before}" if before is not None else "before launch 0"
        if len(indices) == 1:
            where += f" ({_name(gb, indices[0])})"
        found = repeats([keys_b[j] for j in indices], keys_a)
    else:
        indices = [i for g in run for i in g.a]
        where = f"({_numbers(indices)}" + (f": {_name(ga, indices[0])})" if len(indices) == 1 else ")")
        gone = set(indices)
        others = [None if i in gone else x for i, x in enumerate(keys_a)]
        found = repeats([keys_a[i] for i in indices], others)
    text = f"{_count(len(indices))} {relation} {where}"
    if found and len(indices) > 1:
        text += f", repeating launches {found[0]}-{found[0] + len(indices) - 1}"
    return text


def _reordered(groups: list[Group]) -> list[str]:
    """``launches reordered: 3 of 12 moved (launches 4, 9-10)``, or ``... 12 launches in reverse order``: the
    paired launches of a outside the longest run that keeps its order in b (none where b keeps a's order)."""
    firsts = [min(g.a) for g in sorted((g for g in groups if g.a and g.b), key=lambda g: min(g.b))]
    kept = set(_in_order(firsts))
    if len(kept) == len(firsts):
        return []
    if len(kept) == 1:
        return [f"launches reordered: {_count(len(firsts))} in reverse order"]
    moved = [i for g in groups if g.a and g.b and min(g.a) not in kept for i in g.a]
    return [f"launches reordered: {len(moved)} of {sum(len(g.a) for g in groups if g.b)} moved ({_numbers(moved)})"]


def _in_order(values: list[int]) -> list[int]:
    """A longest increasing run (not necessarily contiguous) of distinct ``values``, in n log n."""
    tails: list[int] = []  # tails[k]: the smallest last value of an increasing run of length k + 1
    ends: list[int] = []  # where in values that run ends
    before: list[int | None] = []  # where in values the run through each value comes from
    for k, v in enumerate(values):
        at = bisect_left(tails, v)
        before.append(ends[at - 1] if at else None)
        tails[at:at + 1], ends[at:at + 1] = [v], [k]
    out, k = [], ends[-1] if ends else None
    while k is not None:
        out.append(values[k])
        k = before[k]
    return out[::-1]


def what_changed(ga: Graph, gb: Graph, x: Work, y: Work) -> str:
    """What differs between two paired launches, in words: ``shape, dtype, config, fused ops, source`` (those
    that differ, in that order); ``arguments`` where only the call's other arguments do."""
    both = bool(x.fragment) and bool(y.fragment)  # a side without a fragment (a package loaded alone) says nothing
    shapes = [{(rw, shape) for rw, _, shape in w.buffers} | ({shape for _, shape in w.fragment} if both else set())
              for w in (x, y)]
    dtypes = [{dtype for _, dtype, _ in w.buffers} | ({dtype for dtype, _ in w.fragment} if both else set())
              for w in (x, y)]
    configs = [_config(g, w) for g, w in ((ga, x), (gb, y))]
    found = [word for word, differs in (("shape", shapes[0] != shapes[1]), ("dtype", dtypes[0] != dtypes[1]),
                                        ("config", configs[0] != configs[1]),
                                        ("fused ops" if x.kind != "extern" else "op", x.words != y.words),
                                        ("source", x.skeleton != y.skeleton)) if differs]
    return ", ".join(found) or "arguments"


def _config(graph: Graph, w: Work) -> dict | None:
    kernel = next((k for k in graph.kernels if k.name == graph.launches[w.index].kernel_name), None)
    return kernel.timing.config if kernel is not None and kernel.timing is not None else None


def _names(ga: Graph, gb: Graph, g: Group) -> str:
    """``a → b``, or the name once where both sides call it the same."""
    a, b = _name(ga, g.a[0]), _name(gb, g.b[0])
    return a if a == b else f"{a} → {b}"


def _name(graph: Graph, index: int) -> str:
    return graph.launches[index].name


def _count(n: int) -> str:
    return f"{n} launch{'es' * (n != 1)}"


def _numbers(indices: list[int]) -> str:
    """``launches 8-10, 19-21`` (``launch 3`` for one)."""
    indices = sorted(indices)
    spans, start = [], indices[0]
    for prev, cur in zip(indices, indices[1:] + [None]):
        if cur != prev + 1:
            spans.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = cur
    listed = ", ".join(spans[:SPANS]) + (f", … ({len(spans)} runs in all)" if len(spans) > SPANS else "")
    return f"launch{'es' * (len(indices) != 1)} {listed}"
