"""The findings at a glance, one rule for every view: grouped by rule per graph (dynamo's in groups of their own),
each group's few that matter shown and the rest behind "N more" with their time in all. The text summary and the
HTML report call :func:`group_findings`; the panel reads the same groups from the payload's ``view`` annex."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..advice.graphs import ms_text
from ..model import Advice

SHOWN = 2  # findings shown in a graph's group; the rest are "N more"
DYNAMO_SHOWN = 5  # in a group of dynamo's: each is a distinct place and reason already, none timed


@dataclass
class FindingGroup:
    """The findings of one rule in one graph (``graph`` None: dynamo's), as indices into the capture's findings
    (most time at stake first): those ``shown`` and those behind "N more", with ``more_ms`` their time in all."""

    graph: str | None
    rule: str
    shown: list[int] = field(default_factory=list)
    more: list[int] = field(default_factory=list)
    ms: float | None = None  # the group's time at stake in all (None where none of it was measured)
    more_ms: float | None = None

    def to_json(self) -> dict:
        return {"graph": self.graph, "rule": self.rule, "shown": self.shown, "more": self.more, "ms": self.ms,
                "more_ms": self.more_ms}


def _total(found: list[Advice], indices: list[int]) -> float | None:
    times = [found[i].ms for i in indices if found[i].ms is not None]
    return sum(times) if times else None


def group_findings(found: list[Advice]) -> list[FindingGroup]:
    """``found`` (most time at stake first) by (graph, rule), in the order of each group's first finding."""
    groups: dict[tuple[str | None, str], list[int]] = {}
    for i, finding in enumerate(found):
        groups.setdefault((finding.graph, finding.rule), []).append(i)
    out = []
    for (graph, rule), indices in groups.items():
        shown = SHOWN if graph is not None else DYNAMO_SHOWN
        out.append(FindingGroup(graph, rule, indices[:shown], indices[shown:], _total(found, indices),
                                _total(found, indices[shown:])))
    return out


def group_title(group: FindingGroup, found: list[Advice]) -> str:
    """``graph 0_forward · refused-fusion: 5 findings, 1.20 ms in all``."""
    count = len(group.shown) + len(group.more)
    at = f"graph {group.graph}" if group.graph else "dynamo"
    ms = f", {ms_text(group.ms)} in all" if group.ms is not None and count > 1 else ""
    return f"{at} · {group.rule}: {count} finding{'s' * (count != 1)}{ms}"


def more_line(group: FindingGroup) -> str:
    """``3 more, 0.40 ms in all`` (empty where all are shown)."""
    if not group.more:
        return ""
    return f"{len(group.more)} more" + (f", {ms_text(group.more_ms)} in all" if group.more_ms is not None else "")
