"""The repro records whose expected outputs are still computed in the background, in the process that records them:
live state beside the model (a :class:`~kernelviz.model.ReproRecord` is plain data), held here for as long as the
computing lasts."""

from __future__ import annotations

from typing import Protocol

from ..model import ReproRecord


class Waitable(Protocol):
    def wait(self) -> None: ...


# id of a record under way -> the record (its id stays its own while it is held here) and what computes it
_UNDER_WAY: dict[int, tuple[ReproRecord, Waitable]] = {}


def begin(records: list[ReproRecord], landing: Waitable) -> None:
    """``records`` are computed by ``landing`` until :func:`end`."""
    _UNDER_WAY.update({id(rec): (rec, landing) for rec in records})


def end(records: list[ReproRecord]) -> None:
    for rec in records:
        _UNDER_WAY.pop(id(rec), None)


def landed(rec: ReproRecord) -> ReproRecord:
    """``rec`` once its expected outputs are in it: after the landing that computes them, where one still does
    (``LiveCapture.wait_repros`` waits for a whole capture's)."""
    held = _UNDER_WAY.get(id(rec))
    if held is not None and held[0] is rec:
        held[1].wait()
    return rec
