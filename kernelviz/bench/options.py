"""How a timing is made: the options of :func:`kernelviz.bench.bench`, checked once and passed down as one object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import DevicePeaks


@dataclass(frozen=True)
class BenchOptions:
    """``isolated``: also time each launch alone. ``progress``: True for a text progress bar, False for none, or
    ``report(done, total, label)``. ``peaks`` (e.g. ``kernelviz.calibrate()``) replaces the datasheet peaks the %
    figures are taken of. ``limit_s``: a step of the timing process that makes no progress for this long is stopped
    (a hang); in a job's lockstep, how long a rank waits for the others. ``repros``: also record what
    ``kernel.to_repro()`` / ``graph.to_repro()`` need."""

    isolated: bool = True
    progress: Any = True
    peaks: DevicePeaks | None = None
    limit_s: float = 60.0
    repros: bool = False

    @classmethod
    def checked(cls, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
                limit_s: float = 60.0, repros: bool = False) -> BenchOptions:
        """The options, each checked as a user gave it (a wrong one is a one-line ``TypeError``/``ValueError``)."""
        from .. import arguments

        arguments.instance("bench", "peaks", peaks, DevicePeaks)
        return cls(arguments.flag("bench", "isolated", isolated), arguments.progress("bench", progress), peaks,
                   arguments.seconds("bench", "limit_s", limit_s), arguments.flag("bench", "repros", repros))
