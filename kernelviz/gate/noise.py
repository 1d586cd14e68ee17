"""When a time grew: beyond the threshold the user set, and beyond the noise between processes.

A time is a median over a side's captures; what moves it between runs of a CI job is the process (where its
memory and threads landed, what else the machine did), so its noise is ``sigma``, the standard deviation of one
process's time, estimated from the spread across a side's processes (the range of n values is about ``d_n``
sigma, an interquartile range 1.349 sigma), pooled over both sides where both have several. A time grew beyond
the noise where b - a exceeds ``Z`` sigma sqrt(1/n_a + 1/n_b) (n: processes). A sigma estimated from a few
processes can be small by chance: it is never taken below ``MIN_SIGMA`` of the time. Where neither side has
several processes, sigma is not known and is taken as ``ONE_PROCESS_SIGMA`` of the time, measured between
processes on each kind of device (docs/perf-gate.md): the smallest change such a check can see, which it says.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .. import units

Z = 3.0  # standard deviations of the difference a change must exceed
D_RANGE = {2: 1.128, 3: 1.693, 4: 2.059, 5: 2.326, 6: 2.534, 7: 2.704}  # expected range of n normal values / sigma
D_IQR = 1.349  # the interquartile range of normal values / sigma (spreads of 8 values or more)
MIN_SIGMA = {"cpu": 0.045, "gpu": 0.01}  # a sigma from a few processes, at least this share of the time
ONE_PROCESS_SIGMA = {"cpu": 0.08, "gpu": 0.03}  # sigma between processes where no side measured it


@dataclass
class Timed:
    """A time (the median over ``n`` processes), the standard deviation of one process's time in the same unit
    (None where fewer than 2 processes measured it), and its clock (``cpu`` or ``gpu``)."""

    ms: float
    sigma: float | None
    n: int
    unit: str

    @classmethod
    def of(cls, ms: float, spread: float | None, n: int, unit: str) -> Timed:
        """From a merged capture's figure: ``spread`` across its ``n`` processes (a fraction of ``ms``)."""
        if n < 2 or spread is None:
            return cls(ms, None, n, unit)
        return cls(ms, ms * spread / D_RANGE.get(n, D_IQR), n, unit)

    @classmethod
    def total(cls, parts: Iterable[Timed]) -> Timed:
        """The sum of parts timed in the same processes (their sigmas added: the process moves them together)."""
        parts = list(parts)
        sigmas = [p.sigma for p in parts]
        return cls(sum(p.ms for p in parts), sum(sigmas) if None not in sigmas else None, parts[0].n, parts[0].unit)

    def scaled(self, factor: float) -> Timed:
        """The same time on a machine ``factor`` times as fast (its sigma with it)."""
        return Timed(self.ms * factor, None if self.sigma is None else self.sigma * factor, self.n, self.unit)


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

    @property
    def measured(self) -> bool:
        """Whether sigma was measured (some side has several processes), not taken as ``ONE_PROCESS_SIGMA``."""
        return self.a.sigma is not None or self.b.sigma is not None

    @property
    def sigma(self) -> float:
        """Pooled over the sides that measured it, at least ``MIN_SIGMA``; else ``ONE_PROCESS_SIGMA``."""
        known = [(t.sigma, t.n - 1) for t in (self.a, self.b) if t.sigma is not None]
        if not known:
            return ONE_PROCESS_SIGMA[self.a.unit] * self.a.ms
        pooled = math.sqrt(sum(s * s * df for s, df in known) / sum(df for _, df in known))
        return max(pooled, MIN_SIGMA[self.a.unit] * self.a.ms)

    @property
    def noise_ms(self) -> float:
        """The change the noise alone stays below: ``Z`` sigma of the difference of the two medians."""
        return Z * self.sigma * math.sqrt(1 / self.a.n + 1 / self.b.n)

    @property
    def delta(self) -> float:
        return self.b.ms - self.a.ms

    @property
    def grew(self) -> bool:
        """Beyond the threshold."""
        return self.delta > self.slower * self.a.ms

    @property
    def regressed(self) -> bool:
        """Beyond the threshold and beyond the noise."""
        return self.grew and self.delta > self.noise_ms

    def smallest(self) -> float:
        """The smallest growth (ms) this comparison can see: the threshold or the noise, the larger."""
        return max(self.slower * self.a.ms, self.noise_ms)

    def text(self) -> str:
        """``0.512 → 0.618 ms (+20.7%; threshold 5%, noise ±3.1% over 3 + 1 processes)``."""
        pct = 100 * self.delta / self.a.ms if self.a.ms else float("inf")
        noise = f"±{units.relative(self.noise_ms / self.a.ms)}" if self.a.ms else f"±{units.ms_sig(self.noise_ms)} ms"
        over = f"over {self.a.n} + {self.b.n} processes" if self.measured else "one process a side: assumed"
        bars = f"threshold {100 * self.slower:g}%, noise {noise} {over}"
        return f"{units.ms_sig(self.a.ms)} → {units.ms_sig(self.b.ms)} ms ({units.change(pct)}; {bars})"
