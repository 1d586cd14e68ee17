"""The repro records whose expected outputs are still computed in the background, in the process that records them:
live state beside the model (a :class:`~kernelviz.model.ReproRecord` is plain data), held here for as long as the
computing lasts."""

from __future__ import annotations

from typing import Protocol

from ..model import ReproRecord


class Waitable(Protocol):
    def wait(self) -> None: ...


# the records under way, each list with what computes it
_UNDER_WAY: list[tuple[list[ReproRecord], Waitable]] = []


def begin(records: list[ReproRecord], landing: Waitable) -> None:
    """``records`` are computed by ``landing`` until :func:`end` (given the same list)."""
    _UNDER_WAY.append((records, landing))


def end(records: list[ReproRecord]) -> None:
    _UNDER_WAY[:] = [held for held in _UNDER_WAY if held[0] is not records]


def landed(rec: ReproRecord) -> ReproRecord:
    """``rec`` once its expected outputs are in it: after the landing that computes them, where one still does
    (``LiveCapture.wait_repros`` waits for a whole capture's)."""
    for records, landing in list(_UNDER_WAY):
        if any(held is rec for held in records):
            landing.wait()
    return rec
