"""Match graphs by kind and input shapes, and launches by what they compute.

The launches of two matched graphs are aligned in call() order, as a diff of text aligns lines: runs
of launches with the same source (modulo numbers) on both sides are paired in order (longest runs
first), so a block added or removed is one run of added or removed launches. A launch left out of those
runs whose like is left out on the other side too runs in another place: the two are paired as moved
(a reordered call(); the story says so), by key, before anything is scored. Between those runs,
launches are paired one-to-one where what they compute agrees (the in-order pairing with the most
evidence in all); a leftover launch whose source nodes (or ATen ops) lie within a paired launch of the
other side joins it as a fusion (many a to one b) or a split (one a to many b); launches left in the
same place on both sides, of the same kind and writing the same shapes, are paired as changed. What
is left is added or removed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..model import Capture, Graph
from .features import Work, jaccard, within, words

WEAK = 0.25  # confidence needed for a one-to-one match between launches whose source differs
STRONG = 0.5  # confidence needed to pair launches out of call() order
SAME_TEXT = 0.9  # confidence of two launches in a run of the same source (modulo numbers) on both sides
BY_PLACE = 0.3  # confidence of two launches paired by their place in call() alone
RETURNS = 0.5  # what aligning two launches that both write call()'s outputs adds to their score
DP_CELLS = 40_000  # pairs scored in one region at most (a larger one is aligned by name first)
MOVED_CELLS = 400_000  # unpaired launches times the other side's launches beyond which none is paired out of order
DIFFLIB_CELLS = 1_000_000  # longer sequences are aligned by resynchronising (difflib's time grows with their product)
RESYNC_RUN, RESYNC_REACH = 3, 2_000  # keys in a row that resynchronise two sequences, and how far to look for them
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
    exact: bool = False  # paired with the same source modulo numbers: nothing else joins it


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


def match_launches(wa: list[Work], wb: list[Work]) -> list[LaunchGroup]:
    """Group the launches of two matched graphs (their :func:`describe`), in reading order (see the
    module's docstring)."""
    keys_a, keys_b = [key(x) for x in wa], [key(y) for y in wb]
    opcodes = _opcodes(keys_a, keys_b)
    moves = _moves(opcodes, wa, wb, keys_a, keys_b)
    moved_b = set(moves.values())
    in_order = {i: j for tag, i1, i2, j1, j2 in opcodes if tag == "equal" for i, j in zip(range(i1, i2), range(j1, j2))}
    by_key = {**in_order, **moves}
    swapped = _same_source(by_key, wa, wb, keys_a)
    groups: list[LaunchGroup] = [_pair(wa[i], wb[by_key[i]], floor=SAME_TEXT) for i in moves]
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            groups += [_pair(wa[i], wb[by_key[i]], floor=SAME_TEXT) for i in range(i1, i2)]
        else:
            xs = [x for x in wa[i1:i2] if x.index not in moves]
            ys = [y for y in wb[j1:j2] if y.index not in moved_b]
            groups += _repeated_block(keys_a, keys_b, xs, ys) or _region(xs, ys)
    groups = _moved(wa, wb, groups)
    if moves or swapped:
        groups = _reading_order(groups)
    for group in groups:
        group.a.sort()
        group.b.sort()
        group.relation = _relation(group, wa, wb)
    return groups


def _exact(w: Work) -> tuple:
    """What two launches of the same key share when they are the same launch: source and buffer shapes."""
    return w.body, frozenset(w.buffers.items())


def _moves(opcodes: list, wa: list[Work], wb: list[Work], keys_a: list, keys_b: list) -> dict[int, int]:
    """Launches the in-order alignment left unpaired whose key (the same work) is left unpaired on the other
    side too: a launch that runs in another place (a reordered call()). They are paired by key before
    anything is scored, in linear time however large and shuffled the graphs: those with the same source and
    buffer shapes first, then the rest; of several alike, the one next to where the launch before it went
    (a block moved or reversed stays whole), else the first in b's order; {a index: b index}."""
    def same(w: Work, k: tuple, exact: bool) -> tuple:
        return (k, _exact(w)) if exact else k

    left_a = [i for tag, i1, i2, _j1, _j2 in opcodes if tag != "equal" for i in range(i1, i2)]
    left_b = [j for tag, _i1, _i2, j1, j2 in opcodes if tag != "equal" for j in range(j1, j2)]
    moves: dict[int, int] = {}
    for exact in (True, False):
        taken = set(moves.values())
        unpaired = {j: same(wb[j], keys_b[j], exact) for j in left_b if j not in taken}
        waiting: dict = {}
        for j in reversed(unpaired):  # popped from the end: the first in b's order first
            waiting.setdefault(unpaired[j], []).append(j)
        for i in left_a:
            k = same(wa[i], keys_a[i], exact)
            if i in moves or k not in waiting:
                continue
            before = moves.get(i - 1)
            j = next((j for j in (before + 1, before - 1) if unpaired.get(j) == k), None) if before is not None \
                else None
            if j is None:
                stack = waiting[k]
                while stack and stack[-1] not in unpaired:
                    stack.pop()
                if not stack:
                    continue
                j = stack.pop()
            moves[i] = j
            del unpaired[j]
    return moves


def _same_source(pairs: dict[int, int], wa: list[Work], wb: list[Work], keys_a: list) -> bool:
    """Pairs of one key swapped, in place, where that puts launches of the same source and buffer shapes
    together (a run in order, or a move, may pair a layer's kernel with another layer's of other sizes while
    its own twin went elsewhere); whether any was."""
    exact_a, exact_b = {}, {}
    odd: dict = {}  # key -> a launches paired with a launch of another source
    for i, j in pairs.items():
        exact_a[i], exact_b[j] = _exact(wa[i]), _exact(wb[j])
        if exact_a[i] != exact_b[j]:
            odd.setdefault(keys_a[i], []).append(i)
    swapped = False
    for members in odd.values():
        holders: dict = {}  # b's source -> a launches in members whose partner has it
        for i in members:
            holders.setdefault(exact_b[pairs[i]], []).append(i)
        for i in members:
            want = exact_a[i]
            others = holders.get(want, [])
            while others and (exact_b[pairs[others[-1]]] != want or exact_a[others[-1]] == want):
                others.pop()  # its partner changed since, or it holds its twin
            if exact_b[pairs[i]] == want or not others:
                continue
            k = others.pop()
            pairs[i], pairs[k] = pairs[k], pairs[i]
            holders.setdefault(exact_b[pairs[k]], []).append(k)
            swapped = True
    return swapped


def key(w: Work) -> tuple:
    """What two launches must share to be aligned as the same work without scoring them: their
    :func:`shape_key` and source nodes."""
    return shape_key(w), w.nodes


def shape_key(w: Work) -> tuple:
    """The same work in another place (another layer of a model): kind, source modulo numbers, and for an
    extern call its text with the sizes and strides it passes."""
    return w.kind, w.skeleton, w.call


def _repeated_block(keys_a: list, keys_b: list, xs: list[Work], ys: list[Work]) -> list[LaunchGroup] | None:
    """A region where one side has ``n`` more launches, ``n`` of them in a row repeating (at least half of
    them with the same source) a run of launches of the other graph: a block added or removed, one more
    layer. That run is added (or removed) as one and the rest aligned by :func:`_region`; of several such
    runs, the one whose rest aligns best. None where none repeats."""
    extra = abs(len(ys) - len(xs))
    if extra < 2 or len(xs) * len(ys) > DP_CELLS:
        return None
    longer, other_keys = (ys, keys_a) if len(ys) > len(xs) else (xs, keys_b)
    other_keys = [k[0] for k in other_keys]
    best = None
    for start in range(len(longer) - extra + 1):
        if repeats([shape_key(w) for w in longer[start:start + extra]], other_keys) is None:
            continue
        rest = longer[:start] + longer[start + extra:]
        a_rest, b_rest = (xs, rest) if longer is ys else (rest, ys)
        score = sum(_score(x, y) for x, y in zip(a_rest, b_rest))
        if best is None or score > best[0]:
            best = (score, start, a_rest, b_rest)
    if best is None:
        return None
    _best, start, a_rest, b_rest = best
    block = longer[start:start + extra]
    return _reading_order((_added(block) if longer is ys else _removed(block)) + _region(a_rest, b_rest))


def repeats(run: list, keys: list) -> tuple[int, int] | None:
    """Where in ``keys`` the run of keys ``run`` repeats: (start, launches with the same key) of the place
    with the most, where that is at least half the run; None elsewhere."""
    where: dict = {}
    for k, x in enumerate(keys):
        where.setdefault(x, []).append(k)
    hits: Counter = Counter()
    for k, x in enumerate(run):
        for p in where.get(x, ()):
            if 0 <= p - k <= len(keys) - len(run):
                hits[p - k] += 1
    if not hits:
        return None
    start, count = max(hits.items(), key=lambda kv: (kv[1], kv[0]))
    return (start, count) if 2 * count >= len(run) else None


def _score(x: Work, y: Work) -> float:
    """How well two launches align: :func:`compare`'s confidence, and more where both write what call()
    returns (the last layer norm of a model is the last on both sides, however many blocks came before)."""
    confidence = compare(x, y)[0]
    return confidence + RETURNS * (x.returns and y.returns) if confidence >= WEAK else 0.0


def _added(ys: list[Work]) -> list[LaunchGroup]:
    return [LaunchGroup([], [y.index], [(None, y.index, "nothing in a computes the same", 0.0)]) for y in ys]


def _removed(xs: list[Work]) -> list[LaunchGroup]:
    return [LaunchGroup([x.index], [], [(x.index, None, "nothing in b computes the same", 0.0)]) for x in xs]


def _moved(wa: list[Work], wb: list[Work], groups: list[LaunchGroup]) -> list[LaunchGroup]:
    """Launches left added or removed by the alignment that match, or whose origins lie within, a launch
    out of order on the other side (another device or compiler orders call() differently): paired (or fused
    and split) with it after all, the launches whose names alone say so last; every group then in reading
    order. Not done where so many are left (two unrelated graphs) that looking costs more than it tells."""
    paired = [g for g in groups if g.a and g.b]
    left_a = [wa[g.a[0]] for g in groups if not g.b]
    left_b = [wb[g.b[0]] for g in groups if not g.a]
    if not left_a and not left_b or len(left_a) * len(wb) + len(left_b) * len(wa) > MOVED_CELLS:
        return groups
    owner_a = {i: g for g in paired for i in g.a}
    owner_b = {j: g for g in paired for j in g.b}
    candidates = [(-c, abs(x.position - y.position), x.index, y.index, how)
                  for x in left_a for y in left_b if (c := compare(x, y)[0]) >= STRONG
                  for how in [compare(x, y)[1]]]
    for i, j, how, confidence in _greedy(candidates, STRONG):
        group = LaunchGroup([i], [j], [(i, j, how, confidence)])
        paired.append(group)
        owner_a[i], owner_b[j] = group, group
    for by_name in (False, True):
        _join(left_a, wb, owner_a, owner_b, fused=True, by_name=by_name)
        _join(left_b, wa, owner_b, owner_a, fused=False, by_name=by_name)
    return _reading_order(paired + _removed([x for x in left_a if x.index not in owner_a])
                          + _added([y for y in left_b if y.index not in owner_b]))


def _opcodes(keys_a: list, keys_b: list) -> list:
    """Opcodes (as difflib's) between two lists of keys: difflib's (longest common runs first) where the
    lists are short enough, else :func:`_resync`'s."""
    ids: dict = {}
    a, b = ([ids.setdefault(k, len(ids)) for k in keys] for keys in (keys_a, keys_b))
    if len(a) * len(b) <= DIFFLIB_CELLS:
        return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return _resync(a, b)


def _resync(a: list, b: list) -> list:
    """Opcodes of a walk along both lists: equal keys are paired; at a difference, the nearest place
    (fewest keys skipped on both sides, at most RESYNC_REACH each) where RESYNC_RUN keys in a row agree again,
    or both lists end, closes it. Linear in the lists' length where they mostly agree, however repetitive."""
    where: dict = {}
    for j, key in enumerate(b):
        where.setdefault(key, []).append(j)
    n, m, i, j, ops = len(a), len(b), 0, 0, []

    def agree(x: int, y: int) -> bool:
        run = min(RESYNC_RUN, n - x, m - y)
        return a[x:x + run] == b[y:y + run] and (run == RESYNC_RUN or (x + run, y + run) == (n, m))

    while i < n and j < m:
        i0, j0 = i, j
        while i < n and j < m and a[i] == b[j]:
            i, j = i + 1, j + 1
        if i > i0:
            ops.append(("equal", i0, i, j0, j))
        if i == n or j == m:
            break
        best = (n - i) + (m - j), n - i, m - j  # no resynchronising: the rest differs
        for di in range(min(RESYNC_REACH, n - i)):
            if di >= best[0]:
                break
            spots = where.get(a[i + di], [])
            for y in spots[bisect_left(spots, j):bisect_left(spots, j + RESYNC_REACH)]:
                if di + y - j >= best[0]:
                    break
                if agree(i + di, y):
                    best = di + y - j, di, y - j
                    break
        _skip, di, dj = best
        ops.append(("replace" if di and dj else "delete" if di else "insert", i, i + di, j, j + dj))
        i, j = i + di, j + dj
    if i < n or j < m:
        ops.append(("replace" if i < n and j < m else "delete" if i < n else "insert", i, n, j, m))
    return ops


def _pair(x: Work, y: Work, floor: float = 0.0, how: str = "same source modulo numbers") -> LaunchGroup:
    """A one-to-one group, its evidence from :func:`compare` (``how`` at ``floor`` where that finds less)."""
    confidence, found = compare(x, y)
    if confidence < floor:
        confidence, found = floor, how
    return LaunchGroup([x.index], [y.index], [(x.index, y.index, found, confidence)], exact=x.skeleton == y.skeleton)


def _region(xs: list[Work], ys: list[Work]) -> list[LaunchGroup]:
    """Launches between two runs of the same source: paired one-to-one where what they compute agrees (in
    order, the most evidence in all), then fused or split where their origins say so, then paired by place;
    the rest added or removed."""
    if xs and ys and len(xs) * len(ys) > DP_CELLS:
        return _large_region(xs, ys)
    scores = [[_score(x, y) for y in ys] for x in xs]
    groups: list[LaunchGroup] = []
    owner_a: dict[int, LaunchGroup] = {}
    owner_b: dict[int, LaunchGroup] = {}

    def own(group: LaunchGroup) -> None:
        groups.append(group)
        owner_a.update((i, group) for i in group.a)
        owner_b.update((j, group) for j in group.b)

    pairs = _weighted_lcs(scores)
    for i, j in pairs:
        own(_pair(xs[i], ys[j]))
    _join(xs, ys, owner_a, owner_b, fused=True)
    _join(ys, xs, owner_b, owner_a, fused=False)
    for gap_a, gap_b in _gaps(xs, ys, owner_a, owner_b, pairs):
        if len(gap_a) == len(gap_b) and all(_same_place(x, y) for x, y in zip(gap_a, gap_b)):
            for x, y in zip(gap_a, gap_b):
                own(_pair(x, y, floor=BY_PLACE, how="same place in call() + buffer shapes"))
    groups += _removed([x for x in xs if x.index not in owner_a]) + _added([y for y in ys if y.index not in owner_b])
    return _reading_order(groups)


def _large_region(xs: list[Work], ys: list[Work]) -> list[LaunchGroup]:
    """A region too large to score every pair: aligned again by the ops the launches' names list, the runs
    between small enough to score, the rest added or removed."""
    def loose(w: Work):
        return w.kind, tuple(sorted(w.words))

    out: list[LaunchGroup] = []
    for tag, i1, i2, j1, j2 in _opcodes([loose(x) for x in xs], [loose(y) for y in ys]):
        if tag == "equal":
            out += [_pair(x, y, floor=BY_PLACE, how="kernel-name ops + order") for x, y in zip(xs[i1:i2], ys[j1:j2])]
        elif (i2 - i1) * (j2 - j1) <= DP_CELLS:
            out += _region(xs[i1:i2], ys[j1:j2])
        else:
            out += _removed(xs[i1:i2]) + _added(ys[j1:j2])
    return out


def _weighted_lcs(scores: list[list[float]]) -> list[tuple[int, int]]:
    """The in-order one-to-one pairs (i, j) with the largest sum of ``scores[i][j]`` (0: not a pair)."""
    n, m = len(scores), len(scores[0]) if scores else 0
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = max(below[j], row[j + 1], below[j + 1] + scores[i][j] if scores[i][j] else 0.0)
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if scores[i][j] and best[i][j] == best[i + 1][j + 1] + scores[i][j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _gaps(xs, ys, owner_a, owner_b, pairs):
    """The launches left on each side between consecutive one-to-one pairs (and before the first, after
    the last)."""
    bounds = [(-1, -1), *pairs, (len(xs), len(ys))]
    for (i0, j0), (i1, j1) in zip(bounds, bounds[1:]):
        yield ([x for x in xs[i0 + 1:i1] if x.index not in owner_a],
               [y for y in ys[j0 + 1:j1] if y.index not in owner_b])


def _same_place(x: Work, y: Work) -> bool:
    """Two launches in the same place of call() that may be one edited: both generated kernels (or calls of
    the same extern op), writing buffers of a shape in common."""
    same_kind = x.kind == y.kind if "extern" not in (x.kind, y.kind) else x.name == y.name
    return same_kind and bool({b[2] for b in _writes(x)} & {b[2] for b in _writes(y)})


def _reading_order(groups: list[LaunchGroup]) -> list[LaunchGroup]:
    """Groups in b's call() order, each removed group just after the b position of the a launch before it."""
    where: dict[int, float] = {}
    for g in groups:
        if g.a and g.b:
            for i in g.a:
                where[i] = min(g.b)
    paired = sorted(where)

    def key(g):
        if g.b:
            return (min(g.b), 0, min(g.a) if g.a else -1)
        before = bisect_left(paired, g.a[0])  # the paired a launches before it
        return (where[paired[before - 1]] if before else -1, 1, g.a[0])

    return sorted(groups, key=key)


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


def _join(mine: list[Work], theirs: list[Work], owner: dict, other_owner: dict, fused: bool,
          by_name: bool = False) -> None:
    """Attach unmatched launches of ``mine`` to a matched launch of ``theirs`` whose origins hold their own
    (a fusion when ``mine`` is side a, a split when it is side b), until none joins. The other side of that
    group must be that one launch, not one with the same source as its counterpart, and the launch must sit
    next to a member of the group on its own side or write a buffer of the shape that launch writes; where
    only their names say what they hold (allowed with ``by_name``), right next to the launch the group was
    first paired with."""
    joined = True
    while joined:
        joined = False
        for x in mine:
            if x.index not in owner and (found := _best_group(x, theirs, other_owner, fused, by_name)):
                evidence, confidence, group, y = found
                how = f"{evidence} within {y.name} ({'fused' if fused else 'split'})"
                (group.a if fused else group.b).append(x.index)
                group.matches.append((x.index, y.index, how, confidence) if fused
                                     else (y.index, x.index, how, confidence))
                owner[x.index] = group
                joined = True


def _best_group(x: Work, theirs: list[Work], other_owner: dict, fused: bool, by_name: bool):
    best = None
    for y in theirs:
        group = other_owner.get(y.index)
        if group is None or group.exact or len(group.b if fused else group.a) != 1:
            continue
        mine = group.a if fused else group.b
        distance = min(abs(x.index - k) for k in mine)
        first = group.matches[0][0 if fused else 1]  # the launch the group was paired with, before any joined
        near, shared = distance <= 2, bool(_writes(x) & _writes(y))
        for evidence, held, overlap, confidence, named in _containment(x, y):
            if not (by_name and abs(x.index - first) == 1 if named else near or shared):
                continue
            if best is None or (confidence, held, overlap, -distance) > best[0]:
                best = ((confidence, held, overlap, -distance), evidence, confidence, group, y)
    return best[1:] if best else None


def _writes(x: Work) -> set:
    return {b for b in x.buffers if b[0] == "w"}


def _containment(x: Work, y: Work):
    """(evidence, share of x that y holds, overlap, confidence, by name only) where y holds all of x's
    source nodes and ATen ops (those of the two that both launches carry); where the two carry neither in
    common (C++ kernels read from output code), where y's name lists at least half the ops x's name lists."""
    known = [(name, xs, ys) for name, xs, ys in (("source nodes", x.nodes, y.nodes), ("ATen ops", x.aten, y.aten))
             if xs and ys]
    if known:
        if all(within(xs, ys) == 1.0 for _name, xs, ys in known):
            overlap = sum(jaccard(xs, ys) for _name, xs, ys in known) / len(known)
            yield " + ".join(name for name, _xs, _ys in known), 1.0, overlap, 0.8 if len(known) == 2 else 0.7, False
    elif (held := within(x.words, y.words)) is not None and held >= 0.5:
        yield "kernel-name ops + buffer shapes", held, jaccard(x.words, y.words), round(0.5 * held, 3), True
