"""When a time grew: beyond the threshold the user set, and beyond the noise both sides measured.

A side's noise is its interquartile range (``spread`` x its time: the middle half of its runs). A time grew
beyond the noise where it grew by more than the two sides' interquartile ranges halved and added: the middle
halves of the two sides' runs, laid around their medians, do not overlap. A whole graph's time (``whole``) must
grow by more than both ranges added: it moves between captures with what the launches' CPU side and the machine
do (seen on an H200: +11.3% between two captures of an unchanged step whose ranges were 5.9% halved and added).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .. import units


@dataclass
class Timed:
    """A time and its interquartile range in the same unit (``iqr`` None where the runs' spread is unknown)."""

    ms: float
    iqr: float | None

    @classmethod
    def of(cls, parts: Iterable[tuple[float, float | None]]) -> Timed:
        """The sum of (time, spread) parts, e.g. the launches of a group (their ranges added up)."""
        parts = list(parts)
        iqrs = [ms * spread for ms, spread in parts if spread is not None]
        return cls(sum(ms for ms, _ in parts), sum(iqrs) if len(iqrs) == len(parts) else None)


def parse_slower(text: str | float) -> float:
    """The threshold as a fraction: ``"5%"``, ``"5"`` (percent) or ``0.05`` (a fraction, from Python).
    ValueError (one line) for anything else, or a threshold not above 0."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        try:
            value = float(str(text).strip().removesuffix("%")) / 100
        except ValueError:
            raise ValueError(f"--slower {text!r}: expected a percentage such as 5%") from None
    if not 0 < value < 100:
        raise ValueError(f"--slower {text!r}: expected a percentage above 0 (such as 5%)")
    return value


@dataclass
class Growth:
    """How a time changed from a to b, and whether it crossed both bars."""

    a: Timed
    b: Timed
    slower: float
    whole: bool = False  # a whole graph's time: both ranges added, not halved

    @property
    def noise_ms(self) -> float | None:
        if self.a.iqr is None or self.b.iqr is None:
            return None
        return (self.a.iqr + self.b.iqr) / (1 if self.whole else 2)

    @property
    def grew(self) -> bool:
        """Beyond the threshold."""
        return self.b.ms - self.a.ms > self.slower * self.a.ms

    @property
    def regressed(self) -> bool:
        """Beyond the threshold and beyond the noise (where the noise is known)."""
        return self.grew and (self.noise_ms is None or self.b.ms - self.a.ms > self.noise_ms)

    def text(self) -> str:
        """``0.512 → 0.618 ms (+20.7%; threshold 5%, noise ±3.1%)``."""
        pct = 100 * (self.b.ms - self.a.ms) / self.a.ms if self.a.ms else float("inf")
        noise = "noise unknown" if self.noise_ms is None else \
            f"noise ±{units.relative(self.noise_ms / self.a.ms)}" if self.a.ms else \
            f"noise ±{units.ms_sig(self.noise_ms)} ms"
        return (f"{units.ms_sig(self.a.ms)} → {units.ms_sig(self.b.ms)} ms ({units.change(pct)}; "
                f"threshold {100 * self.slower:g}%, {noise})")
