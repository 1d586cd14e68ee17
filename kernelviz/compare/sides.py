"""What :func:`kernelviz.diff` compares: each argument as a capture (a path loaded; a job's ranks rank by rank,
or its reference rank), or one line that says what to pass."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from ..arguments import what_it_is
from ..model import Capture, CaptureError, Ranks
from .match import match_graphs
from .model import Diff

EXPECTED = ("pass a Capture, a Ranks (a job's captures) or the path (str or pathlib.Path) of anything "
            "kernelviz.load reads")


@dataclass
class Sides:
    """The two sides of a diff: the captures it holds, the pairs of captures compared (one, or one per rank)
    whose graphs the two hold one after another, and which ranks were compared (in one line)."""

    a: Capture
    b: Capture
    pairs: list[tuple[Capture, Capture]]
    note: str = ""


def sides(a: Any, b: Any) -> Sides:
    """``a`` and ``b`` as :class:`Sides`: two jobs of the same ranks, each keeping every rank's capture, rank by
    rank (graphs named ``rank<N>:<id>``); else a job by its reference (lowest) rank."""
    xa, xb = _read(a, "a"), _read(b, "b")
    if isinstance(xa, Ranks) and isinstance(xb, Ranks) and _numbers(xa) == _numbers(xb) and _whole(xa) \
            and _whole(xb) and len(xa.captures) > 1:
        pairs = [(x.wait_stages(), y.wait_stages()) for x, y in zip(xa.captures, xb.captures)]
        return Sides(_merged(xa), _merged(xb), pairs, f"compared rank by rank: ranks {_list(_numbers(xa))} "
                                                      "(graphs named rank<N>:<graph>)")
    ca, cb = _reference(xa, "a"), _reference(xb, "b")
    return Sides(ca, cb, [(ca, cb)], _picked(xa, xb))


def graph_pairs(s: Sides) -> list[tuple[int | None, int | None, str, float]]:
    """:func:`match_graphs` of each pair of captures, as indices in the graphs of ``s.a`` and ``s.b``."""
    out, at_a, at_b = [], 0, 0
    for pa, pb in s.pairs:
        out += [(None if i is None else i + at_a, None if j is None else j + at_b, how, confidence)
                for i, j, how, confidence in match_graphs(pa, pb)]
        at_a, at_b = at_a + len(pa.graphs), at_b + len(pb.graphs)
    return out


def check_labels(labels: Any) -> list[str] | None:
    """``labels`` as a list of two strings (None: none given); TypeError in one line for anything else."""
    if labels is None:
        return None
    if isinstance(labels, (tuple, list)) and len(labels) == 2 and all(isinstance(x, str) for x in labels):
        return list(labels)
    raise TypeError(f"kernelviz.diff: labels is {what_it_is(labels)}; pass two strings, e.g. labels=(\"before\", "
                    "\"after\")")


def _read(x: Any, side: str) -> Capture | Ranks:
    """One argument as a capture or a job's ranks (a path loaded)."""
    from ..loading import load

    if isinstance(x, (Capture, Ranks)):
        return x
    if isinstance(x, Diff):
        raise TypeError(f"kernelviz.diff: {side} is a diff; {EXPECTED} (a diff's own captures are its .a and .b)")
    path = os.fspath(x) if isinstance(x, os.PathLike) else x
    if isinstance(path, (bytes, bytearray)):
        raise TypeError(f"kernelviz.diff: {side} is a bytes path; pass it as str (os.fsdecode(path)) or "
                        "pathlib.Path, or a Capture or Ranks")
    if not isinstance(path, str):
        raise TypeError(f"kernelviz.diff: {side} is {what_it_is(x)}; {EXPECTED}")
    if not path.strip():
        raise CaptureError(f"kernelviz.diff: {side} is an empty path; {EXPECTED}")
    if "\0" in path:
        raise CaptureError(f"kernelviz.diff: {side} is a path with a NUL character, which no file has; {EXPECTED}")
    return load(x)


def _numbers(ranks: Ranks) -> list[int]:
    return [info.rank for info in ranks.ranks]


def _whole(ranks: Ranks) -> bool:
    """Every rank's capture kept (not summarised to the reference rank's)."""
    return len(ranks.captures) == len(ranks.ranks)


def _reference(x: Capture | Ranks, side: str) -> Capture:
    if isinstance(x, Capture):
        return x.wait_stages()
    if x.reference is None:
        raise CaptureError(f"kernelviz.diff: {side} is a job's ranks without any rank's capture; pass one "
                           "capture, e.g. ranks.capture(0)")
    return x.reference.wait_stages()


def _picked(xa: Capture | Ranks, xb: Capture | Ranks) -> str:
    """Which rank of a job was compared, and why not rank by rank (empty where neither side is a job)."""
    jobs = [(side, x) for side, x in (("a", xa), ("b", xb)) if isinstance(x, Ranks)]
    if not jobs:
        return ""
    ranks = " and ".join(f"rank {x.reference.rank if x.reference.rank is not None else _numbers(x)[0]} of {side}"
                         for side, x in jobs)
    if len(jobs) == 1:
        why = f"{jobs[0][0]} is a job's ranks, the other one capture"
    elif _numbers(xa) != _numbers(xb):
        why = f"a holds ranks {_list(_numbers(xa))}, b ranks {_list(_numbers(xb))}"
    elif not (_whole(xa) and _whole(xb)):
        why = "a job summarised keeps only its reference rank's capture"
    else:
        why = "each job has one rank"
    return f"compared {ranks} ({why}); another rank: kernelviz.diff(ranks.capture(n), ...)"


def _merged(ranks: Ranks) -> Capture:
    """One capture of every rank's graphs, named ``rank<N>:<id>``, with the reference rank's facts."""
    ref = ranks.reference
    graphs = [replace(graph, id=f"rank{info.rank}:{graph.id}")
              for info, capture in zip(ranks.ranks, ranks.captures) for graph in capture.wait_stages().graphs]
    return Capture(graphs=graphs, torch_version=ref.torch_version, triton_version=ref.triton_version,
                   device_name=ref.device_name, peaks=ref.peaks, world_size=ranks.world_size, backend=ref.backend)


def _list(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers)) if len(numbers) < 5 or numbers != list(range(numbers[0], numbers[-1] + 1)) \
        else f"{numbers[0]}-{numbers[-1]}"

