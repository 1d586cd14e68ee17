"""A performance gate for CI: does a current capture regress against its baseline? (``kernelviz check``, the
pytest plugin :mod:`kernelviz.pytest_plugin`)

:func:`check` diffs the two captures (:func:`kernelviz.diff`) and fails the current one, a reason per line, where
a graph's or a launch's time grew beyond the threshold and the noise (:mod:`.noise`), launches were added, a fusion
was lost, a graph break or recompile appeared, or a kernel began to spill (:mod:`.rules`). :mod:`.reports` writes
the verdict as Markdown (a GitHub Actions job summary) and JUnit XML; :func:`.repeat.timed_capture` captures a step
with timing enough times to know its noise.
"""

from __future__ import annotations

from pathlib import Path

from ..compare import diff
from ..model import Capture
from .noise import parse_slower
from .rules import reasons
from .verdict import CHECKS, Reason, Verdict

__all__ = ["check", "parse_slower", "Verdict", "Reason", "CHECKS"]


def check(baseline: Capture | str | Path, current: Capture | str | Path, *, slower: float | str = 0.05,
          labels: tuple[str, str] | None = None) -> Verdict:
    """The verdict of ``current`` against ``baseline`` (captures, or paths :func:`kernelviz.load` reads);
    ``slower``: how much a time may grow, a fraction or a percentage (``"5%"``)."""
    threshold = parse_slower(slower)
    d = diff(baseline, current, labels=labels)
    found, notes = reasons(d, threshold)
    return Verdict(d, threshold, found, notes)
