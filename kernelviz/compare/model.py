"""The diff of two captures as plain, typed, JSON-serialisable data.

A :class:`Diff` holds both captures, the graphs matched between them (:class:`GraphMatch`), the
launches matched inside each pair of graphs (:class:`Group`: one-to-one, fused, split, added or
removed, with its :class:`Measure` s on both sides) and one :class:`Match` per kernel or extern call.
Like the capture model, this module imports only the model and its codec at import time; the methods that
render a diff are doors into its views, imported when called.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..codec import build
from ..model import Capture, CaptureError, Document, Record

FORMAT = "kernelviz-diff"
DIFF_VERSION = 1
RELATIONS = ("same", "changed", "fused", "split", "added", "removed")


@dataclass
class Measure(Record):
    """One figure or setting on both sides: a time, a config key, registers, bytes..."""

    name: str  # "in-graph", "isolated", "XBLOCK", "registers", ...
    kind: str  # "time", "count", "config", "binary", "bytes", "device"
    a: float | int | str | None = None
    b: float | int | str | None = None
    unit: str = ""  # "ms", "s", "B" or ""
    comparable: bool = True  # False where the two sides are different measures (CPU wall clock vs GPU time)
    note: str = ""  # why a side is missing or the two are not compared, in one line

    @property
    def delta(self) -> float | None:
        """``b - a`` where both are numbers and comparable (None where an integer beyond a float meets a float)."""
        if not self.comparable or not is_number(self.a) or not is_number(self.b):
            return None
        try:
            return self.b - self.a
        except OverflowError:
            return None

    @property
    def pct(self) -> float | None:
        """The change in percent of ``a`` (negative: ``b`` is smaller; None where it is beyond a float)."""
        delta = self.delta
        if delta is None or not self.a:
            return None
        try:
            return 100.0 * delta / self.a
        except OverflowError:
            return None

    @property
    def changed(self) -> bool:
        return self.a != self.b


@dataclass
class Match(Record):
    """One kernel or extern call and its counterpart: ``a`` and ``b`` are its launch names on each side
    (None where added or removed). A fusion or split is one Match per launch of the side with several,
    all in one :class:`Group`."""

    a: str | None
    b: str | None
    how: str  # the evidence: "identical source", "source nodes + ATen ops", "kernel-name ops + order", ...
    confidence: float  # 0..1
    group: int  # index in Diff.groups
    a_launch: int | None = None  # launch index in the group's graph on side a
    b_launch: int | None = None


@dataclass
class Group(Record):
    """Launches of side a and what they became on side b."""

    relation: str  # one of RELATIONS
    graph: int  # index in Diff.graphs
    a: list[int] = field(default_factory=list)  # launch indices in that pair's graph a
    b: list[int] = field(default_factory=list)
    how: str = ""
    confidence: float = 0.0
    measures: list[Measure] = field(default_factory=list)
    changed: str = ""  # of a "changed" group, what differs: "shape, dtype, config, fused ops, source" (those that do)

    def measure(self, name: str) -> Measure | None:
        return next((m for m in self.measures if m.name == name), None)


@dataclass
class GraphMatch(Record):
    """A graph of side a and its counterpart (None on the side where it has none)."""

    a: int | None  # graph index in Diff.a
    b: int | None
    how: str
    confidence: float
    measures: list[Measure] = field(default_factory=list)
    summary: str = ""  # what changed, in words ("11 launches added after launch 21, repeating launches 11-21")


@dataclass
class Headline(Record):
    """What changed overall: totals on both sides, the biggest wins and losses, fusions and splits."""

    measures: list[Measure] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)  # group indices, most time saved first
    losses: list[int] = field(default_factory=list)  # group indices, most time lost first
    counts: dict[str, int] = field(default_factory=dict)  # relation -> groups
    notes: list[str] = field(default_factory=list)
    summary: str = ""  # what changed, in one sentence (the graph pairs' summaries)


@dataclass
class Diff(Document):
    """Capture ``a`` (before) against capture ``b`` (after)."""

    a: Capture
    b: Capture
    labels: list[str] = field(default_factory=lambda: ["a", "b"])
    graphs: list[GraphMatch] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    headline: Headline = field(default_factory=Headline)
    format: str = FORMAT
    diff_version: int = DIFF_VERSION

    def graph_pair(self, group: Group):
        """The two graphs (or None) a group's launch indices refer to."""
        gm = self.graphs[group.graph]
        return (self.a.graphs[gm.a] if gm.a is not None else None,
                self.b.graphs[gm.b] if gm.b is not None else None)

    def wait_stages(self) -> Diff:
        """This diff, once both captures hold what they still read in the background (see :class:`Capture`)."""
        self.a.wait_stages()
        self.b.wait_stages()
        return self

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> Diff:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CaptureError(f"not a kernelviz diff: expected a JSON object with \"format\": \"{FORMAT}\" "
                               "(as Diff.to_json writes)")
        if data.get("diff_version") != DIFF_VERSION:
            raise CaptureError(f"kernelviz diff version {data.get('diff_version')!r} is not supported "
                               f"(this kernelviz reads {DIFF_VERSION})")
        if not isinstance(data.get("a"), dict) or not isinstance(data.get("b"), dict):
            raise CaptureError("a kernelviz diff without its two captures (\"a\" and \"b\")")
        return build(cls, {**data, "a": Capture.from_dict(data["a"]), "b": Capture.from_dict(data["b"])})

    @classmethod
    def from_json(cls, text: str) -> Diff:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise CaptureError(f"not JSON ({exc}); expected a kernelviz diff") from None
        return cls.from_dict(data)

    # Views ------------------------------------------------------------------------------------------
    def to_html(self) -> str:
        """A self-contained HTML page of the diff (see :mod:`kernelviz.views.diff_html`)."""
        from ..views.diff_html import page

        return page(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from ..notebook.diff_display import mimebundle

        return mimebundle(self)

    def __str__(self) -> str:
        """What changed, as text at the terminal's width (see :mod:`kernelviz.views.diff_text`)."""
        from ..views.diff_text import summary

        return summary(self)

    def __repr__(self) -> str:
        """The headline's first lines; ``str()`` is the whole diff."""
        from ..views.diff_text import head

        return head(self)


def is_number(x: Any) -> bool:
    """An int or a float (a bool is neither)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)
