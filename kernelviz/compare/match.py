"""Match graphs by kind and input shapes, and launches by what they compute.

Launches are matched in three passes over each pair of graphs: one-to-one pairs on strong evidence
(greedy, best first, nearest in call() order on ties); then a leftover launch whose origins lie within
a matched launch of the other side joins it as a fusion (many a to one b) or a split (one a to many b);
then one-to-one pairs on weaker evidence. What is left is added or removed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..model import Capture, Graph
from .features import Work, describe, jaccard, within, words

STRONG, WEAK = 0.5, 0.25  # confidence needed for a one-to-one match in the first and third pass
# Evidence and its weight in a match's confidence: what a launch came from counts most.
WEIGHTS = {"source nodes": 3.0, "ATen ops": 2.0, "fragment shapes": 1.0, "buffer shapes": 1.0,
           "kernel-name ops": 1.0}
NAMES_ONLY = 0.8  # confidence scale where only names and shapes say what a launch computes


@dataclass
class LaunchGroup:
    """Launch indices of side a and what they became on side b, and the matches that made the group."""

    a: list[int]
    b: list[int]
    matches: list[tuple[int | None, int | None, str, float]]  # (a index, b index, how, confidence)
    relation: str = ""


def compare(x: Work, y: Work) -> tuple[float, str]:
    """Confidence (0..1) that ``x`` and ``y`` compute the same thing, and the evidence that says so."""
    if x.body is not None and x.body == y.body:
        return 1.0, "identical source"
    scores = {"source nodes": jaccard(x.nodes, y.nodes), "ATen ops": jaccard(x.aten, y.aten),
              "kernel-name ops": jaccard(x.words, y.words)}
    if x.fragment and y.fragment:
        scores["fragment shapes"] = jaccard(x.fragment, y.fragment)
    else:
        scores["buffer shapes"] = jaccard(x.buffers, y.buffers)
    known = {k: v for k, v in scores.items() if v is not None}
    if not any(known.get(k) for k in ("source nodes", "ATen ops", "kernel-name ops")):
        return 0.0, ""
    confidence = sum(WEIGHTS[k] * v for k, v in known.items()) / sum(WEIGHTS[k] for k in known)
    agree = [k for k, v in known.items() if v >= 0.5]
    if x.skeleton == y.skeleton:
        confidence, agree = max(confidence, 0.9), ["same source modulo numbers", *agree]
    elif "source nodes" not in known and "ATen ops" not in known:
        confidence *= NAMES_ONLY
    return round(confidence, 3), " + ".join(agree) or "partial " + max(known, key=known.get)


def match_graphs(a: Capture, b: Capture) -> list[tuple[int | None, int | None, str, float]]:
    """Graph pairs (index in a, index in b, how, confidence), then a's unmatched, then b's."""
    def key(graph: Graph):
        return [(s.dtype or "", tuple(s.shape or ())) for s in graph.inputs]

    def ops(graph: Graph) -> frozenset[str]:
        return frozenset(w for launch in graph.launches
                         for w in words(launch.name).union(*map(words, launch.original_aten)))

    keys_a, keys_b = [key(g) for g in a.graphs], [key(g) for g in b.graphs]
    counts_a, counts_b = [Counter(k) for k in keys_a], [Counter(k) for k in keys_b]
    ops_a, ops_b = [ops(g) for g in a.graphs], [ops(g) for g in b.graphs]
    candidates = []
    for i, ga in enumerate(a.graphs):
        for j, gb in enumerate(b.graphs):
            if "unknown" not in (ga.kind, gb.kind) and ga.kind != gb.kind:
                continue
            same_ops = jaccard(ops_a[i], ops_b[j]) or 0.0
            if keys_a[i] == keys_b[j]:
                confidence, how = (1.0 if same_ops >= 0.5 else 0.9), "kind + input shapes"
            else:
                inputs = jaccard(counts_a[i], counts_b[j]) or 0.0
                confidence = 0.6 * inputs + 0.4 * same_ops
                how = f"kind + {inputs:.0%} of input shapes + {same_ops:.0%} of ops"
            distance = abs(i / max(1, len(a.graphs) - 1) - j / max(1, len(b.graphs) - 1))
            candidates.append((-confidence, distance, i, j, how))
    pairs = _greedy(candidates, threshold=0.3)
    return _with_unmatched(pairs, len(a.graphs), len(b.graphs))


def _greedy(candidates: list, threshold: float, taken_a=None, taken_b=None) -> list:
    """Best-first one-to-one choice among (-confidence, distance, i, j, how) candidates."""
    taken_a, taken_b = set(taken_a or ()), set(taken_b or ())
    chosen = []
    for neg, _distance, i, j, how in sorted(candidates, key=lambda c: c[:4]):
        if -neg < threshold or i in taken_a or j in taken_b:
            continue
        taken_a.add(i)
        taken_b.add(j)
        chosen.append((i, j, how, -neg))
    return chosen


def _with_unmatched(pairs: list, na: int, nb: int) -> list:
    matched_a, matched_b = {p[0] for p in pairs}, {p[1] for p in pairs}
    return (sorted(pairs, key=lambda p: p[0]) + [(i, None, "no graph of this kind and inputs in b", 0.0)
            for i in range(na) if i not in matched_a]
            + [(None, j, "no graph of this kind and inputs in a", 0.0) for j in range(nb) if j not in matched_b])


def match_launches(ga: Graph, gb: Graph) -> list[LaunchGroup]:
    """Group the launches of two matched graphs (see the module's docstring)."""
    wa, wb = describe(ga), describe(gb)
    candidates = []
    for x in wa:
        for y in wb:
            confidence, how = compare(x, y)
            if confidence > 0:
                candidates.append((-confidence, abs(x.position - y.position), x.index, y.index, how))
    groups: list[LaunchGroup] = []
    owner_a: dict[int, LaunchGroup] = {}
    owner_b: dict[int, LaunchGroup] = {}

    def add_pairs(pairs):
        for i, j, how, confidence in pairs:
            group = LaunchGroup([i], [j], [(i, j, how, confidence)])
            groups.append(group)
            owner_a[i], owner_b[j] = group, group

    add_pairs(_greedy(candidates, STRONG))
    _join(wa, wb, owner_a, owner_b, fused=True)
    _join(wb, wa, owner_b, owner_a, fused=False)
    add_pairs(_greedy(candidates, WEAK, owner_a, owner_b))
    groups += [LaunchGroup([x.index], [], [(x.index, None, "nothing in b computes the same", 0.0)])
               for x in wa if x.index not in owner_a]
    groups += [LaunchGroup([], [y.index], [(None, y.index, "nothing in a computes the same", 0.0)])
               for y in wb if y.index not in owner_b]
    for group in groups:
        group.a.sort()
        group.b.sort()
        group.relation = _relation(group, wa, wb)
    return groups


def _relation(group: LaunchGroup, wa: list[Work], wb: list[Work]) -> str:
    if not group.b:
        return "removed"
    if not group.a:
        return "added"
    if len(group.a) > 1:
        return "fused"
    if len(group.b) > 1:
        return "split"
    x, y = wa[group.a[0]], wb[group.b[0]]
    if x.body is not None:
        return "same" if x.body == y.body else "changed"
    same_call = y.body is None and x.name == y.name and x.skeleton == y.skeleton and x.buffers == y.buffers
    return "same" if same_call else "changed"


def _join(mine: list[Work], theirs: list[Work], owner: dict, other_owner: dict, fused: bool) -> None:
    """Attach unmatched launches of ``mine`` to a matched launch of ``theirs`` whose origins hold their own
    (a fusion when ``mine`` is side a, a split when it is side b), until none joins. The other side of that
    group must be that one launch, and the launch must sit next to a member of the group on its own side or
    write a buffer of the shape that launch writes."""
    joined = True
    while joined:
        joined = False
        for x in mine:
            if x.index not in owner and (found := _best_group(x, theirs, other_owner, fused)):
                evidence, confidence, group, y = found
                how = f"{evidence} within {y.name} ({'fused' if fused else 'split'})"
                (group.a if fused else group.b).append(x.index)
                group.matches.append((x.index, y.index, how, confidence) if fused
                                     else (y.index, x.index, how, confidence))
                owner[x.index] = group
                joined = True


def _best_group(x: Work, theirs: list[Work], other_owner: dict, fused: bool):
    best = None
    for y in theirs:
        group = other_owner.get(y.index)
        if group is None or len(group.b if fused else group.a) != 1:
            continue
        distance = min(abs(x.index - k) for k in (group.a if fused else group.b))
        if distance > 2 and not _writes(x) & _writes(y):
            continue
        for evidence, held, overlap, confidence in _containment(x, y):
            if best is None or (confidence, held, overlap, -distance) > best[0]:
                best = ((confidence, held, overlap, -distance), evidence, confidence, group, y)
    return best[1:] if best else None


def _writes(x: Work) -> set:
    return {b for b in x.buffers if b[0] == "w"}


def _containment(x: Work, y: Work):
    """(evidence, share of x that y holds, overlap, confidence) on the strongest evidence both launches carry."""
    for evidence, xs, ys, need, confidence in (("source nodes", x.nodes, y.nodes, 1.0, 0.8),
                                               ("ATen ops", x.aten, y.aten, 1.0, 0.7),
                                               ("kernel-name ops", x.words, y.words, 0.5, 0.5)):
        held = within(xs, ys)
        if held is None:
            continue
        if held >= need:
            yield evidence, held, jaccard(xs, ys), round(confidence * held, 3)
        return
