"""Compare two captures: which graphs and launches correspond, what changed, and the time it made."""

from __future__ import annotations

import os
from pathlib import Path

from ..codec import without_gc
from ..model import Capture, Ranks
from .features import describe
from .match import match_launches
from .measures import NOISE_PCT, graph_measures, group_measures, headline, kernels_by_name
from .model import Diff, GraphMatch, Group, Headline, Match, Measure
from .sides import Sides, check_labels, graph_pairs, sides
from .story import diff_story, graph_story, unpaired_story, what_changed, with_time

__all__ = ["diff", "label", "Diff", "GraphMatch", "Group", "Headline", "Match", "Measure"]


def diff(a: Capture | Ranks | str | Path, b: Capture | Ranks | str | Path, *,
         labels: tuple[str, str] | None = None) -> Diff:
    """The diff of capture ``a`` (before) against ``b`` (after); each may also be a job's :class:`Ranks` or the
    path of anything :func:`kernelviz.load` reads. ``labels`` name the two sides in the views (default: the
    paths, or a and b).

    Two jobs of the same ranks are compared rank by rank (rank 0 with rank 0, ...; the diff's graphs are named
    ``rank<N>:<graph>``); a job against one capture, jobs of different ranks, or a job summarised to its
    reference rank, by that reference (lowest) rank: pass ``ranks.capture(n)`` for another. A line of the
    headline's notes says which ranks were compared. Anything else raises :class:`TypeError` (or, for a
    path that cannot be read, :class:`~kernelviz.CaptureError`) in one line that says what to pass.
    """
    chosen = check_labels(labels)
    both = sides(a, b)
    names = [label(x) if isinstance(x, (str, os.PathLike)) else side for x, side in ((a, "a"), (b, "b"))]
    with without_gc():  # many small objects, no cycles: the collector would scan them again and again
        return _diff(both, chosen or names)


def _diff(both: Sides, labels: list[str]) -> Diff:
    ca, cb = both.a, both.b
    out = Diff(a=ca, b=cb, labels=labels)
    skeletons: dict[str, str] = {}
    for i, j, how, confidence in graph_pairs(both):
        ga = ca.graphs[i] if i is not None else None
        gb = cb.graphs[j] if j is not None else None
        graph = len(out.graphs)
        out.graphs.append(GraphMatch(a=i, b=j, how=how, confidence=confidence, measures=graph_measures(ga, gb)))
        if ga is not None and gb is not None:
            wa, wb = describe(ga, skeletons), describe(gb, skeletons)
            pairs = match_launches(wa, wb)
        else:
            pairs = _unpaired(ga, gb)
        first = len(out.groups)
        kernels = kernels_by_name(ga), kernels_by_name(gb)
        for found in pairs:
            group = Group(relation=found.relation, graph=graph, a=found.a, b=found.b, how=found.matches[0][2],
                          confidence=min(m[3] for m in found.matches))
            group.measures = group_measures(ga, gb, group, kernels)
            if group.relation == "changed":
                group.changed = what_changed(ga, gb, wa[group.a[0]], wb[group.b[0]])
            for x, y, m_how, m_confidence in found.matches:
                out.matches.append(Match(
                    a=ga.launches[x].name if x is not None else None, b=gb.launches[y].name if y is not None else None,
                    how=m_how, confidence=m_confidence, group=len(out.groups), a_launch=x, b_launch=y))
            out.groups.append(group)
        gm = out.graphs[graph]
        gm.summary = (graph_story(ga, gb, out.groups[first:], wa, wb) if ga is not None and gb is not None
                      else unpaired_story(ga, gb))
    out.headline = headline(out)
    if both.note:
        out.headline.notes.insert(0, both.note)
    out.headline.summary = with_time(diff_story([(f"graph {_graph_name(out, gm)}", gm.summary) for gm in out.graphs]),
                                     out.headline.measures[0], NOISE_PCT)
    return out


def label(path: str | Path) -> str:
    """A path as the user gave it, or relative to the working directory where that is shorter."""
    text = str(path)
    try:
        relative = os.path.relpath(text)
    except ValueError:  # another drive (Windows)
        return text
    return relative if len(relative) < len(text) else text


def _graph_name(d: Diff, gm: GraphMatch) -> str:
    ida = d.a.graphs[gm.a].id if gm.a is not None else None
    idb = d.b.graphs[gm.b].id if gm.b is not None else None
    return ida if ida == idb or idb is None else idb if ida is None else f"{ida} → {idb}"


def _unpaired(ga, gb):
    """A graph without a counterpart: each of its launches removed (or added)."""
    from .match import LaunchGroup

    if ga is not None:
        return [LaunchGroup([x.index], [], [(x.index, None, "its graph has no counterpart in b", 0.0)], "removed")
                for x in ga.launches]
    return [LaunchGroup([], [y.index], [(None, y.index, "its graph has no counterpart in a", 0.0)], "added")
            for y in gb.launches]

