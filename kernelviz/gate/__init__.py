"""A performance gate for CI: does a current capture regress against its baseline? (``kernelviz check``,
``kernelviz ab``, the pytest plugin :mod:`kernelviz.pytest_plugin`)

:func:`check` diffs the two sides (:func:`kernelviz.diff`; a side given as several captures of separate processes
is merged by :func:`.repeat.merged`) and fails the current one, a reason per line, where the step's or a graph's
time grew beyond the threshold and the noise between processes (:mod:`.noise`), a launch's grew by a real part of
the step, launches were added, a fusion was lost, a graph break or recompile appeared, or a kernel began to spill
(:mod:`.rules`). :mod:`.reports` writes the verdict as Markdown (a GitHub Actions job summary) and JUnit XML;
:func:`.repeat.timed_capture` captures a step with timing several times in one process; :mod:`.ab` runs the
baseline's code and the current code alternately, each run its own process, and checks one against the other.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

from ..compare import diff
from ..model import Capture
from ..parse import load
from .noise import parse_slower
from .repeat import merged
from .rules import reasons
from .verdict import CHECKS, Reason, Verdict

__all__ = ["check", "parse_slower", "Verdict", "Reason", "CHECKS"]

Side = Capture | str | Path


def check(baseline: Side | Sequence[Side], current: Side | Sequence[Side], *, slower: float | str = 0.05,
          labels: tuple[str, str] | None = None) -> Verdict:
    """The verdict of ``current`` against ``baseline``: each a capture, a path :func:`kernelviz.load` reads, or a
    list of them (captures of separate processes, merged); ``slower``: how much a time may grow, a fraction or a
    percentage (``"5%"``)."""
    threshold = parse_slower(slower)
    d = diff(side(baseline), side(current), labels=labels)
    found, notes = reasons(d, threshold)
    return Verdict(d, threshold, found, notes)


def side(given: Side | Sequence[Side]) -> Capture:
    """One capture of a side: the capture given, or those given merged as captures of separate processes."""
    many = [given] if isinstance(given, (Capture, str, Path)) else list(given)
    if not many:
        raise ValueError("a side of kernelviz check without a capture")
    captures = [c if isinstance(c, Capture) else load(c) for c in many]
    if len(captures) == 1:
        return captures[0]
    return merged([copy.deepcopy(captures[0]), *captures[1:]])  # merged() writes into its first
