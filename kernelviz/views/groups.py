"""The findings at a glance, one rule for every view: grouped by rule per graph (dynamo's in groups of their own),
each group's few that matter shown and the rest behind "N more" with their time in all. The text summary and the
HTML report call :func:`group_findings`; the panel reads the same groups, their titles included, from the payload's
``view`` annex."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .. import units
from ..model import Advice

SHOWN = 2  # findings shown in a graph's group; the rest are "N more"
DYNAMO_SHOWN = 5  # in a group of dynamo's: each is a distinct place and reason already, none timed


@dataclass
class FindingGroup:
    """The findings of one rule in one graph (``graph`` None: dynamo's), as indices into the capture's findings
    (most time at stake first): those ``shown`` and those behind ``more`` ("3 more, 0.40 ms in all")."""

    graph: str | None
    rule: str
    title: str  # "graph 0_forward · memory-bound: 5 findings, 1.20 ms in all"
    shown: list[int] = field(default_factory=list)
    more: list[int] = field(default_factory=list)
    more_text: str = ""  # "3 more, 0.40 ms in all"; "" where all are shown

    def to_json(self) -> dict:
        return asdict(self)


def _total(found: list[Advice], indices: list[int]) -> str:
    """``, 0.40 ms in all`` of the findings at ``indices`` that have a time ("" where none has)."""
    times = [found[i].ms for i in indices if found[i].ms is not None]
    return f", {units.ms_text(sum(times))} in all" if times else ""


def group_findings(found: list[Advice]) -> list[FindingGroup]:
    """``found`` (most time at stake first) by (graph, rule), in the order of each group's first finding."""
    groups: dict[tuple[str | None, str], list[int]] = {}
    for i, finding in enumerate(found):
        groups.setdefault((finding.graph, finding.rule), []).append(i)
    out = []
    for (graph, rule), indices in groups.items():
        shown = SHOWN if graph is not None else DYNAMO_SHOWN
        count = f"{len(indices)} finding{'s' * (len(indices) != 1)}"
        title = f"{f'graph {graph}' if graph else 'dynamo'} · {rule}: {count}" + (
            _total(found, indices) if len(indices) > 1 else "")
        rest = indices[shown:]
        out.append(FindingGroup(graph, rule, title, indices[:shown], rest,
                                f"{len(rest)} more{_total(found, rest)}" if rest else ""))
    return out
