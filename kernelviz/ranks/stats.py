"""Per-launch figures over ranks: percentiles, the spread, outlier ranks and the straggler."""

from __future__ import annotations

import statistics

PERCENTILES = (0, 50, 90, 99, 100)
STRAGGLER_SPREAD = 0.10  # a straggler is named only where the ranks' times spread by more than this
OUTLIER_Z = 3.5  # modified z-score (Iglewicz and Hoaglin) above which a rank is an outlier
OUTLIER_MIN = 0.05  # ... and only if it is this far (relative) from the median: noise is not an outlier
MAX_OUTLIERS = 8


def percentile(ordered: list[float], q: float) -> float:
    """The ``q``-th percentile of sorted values, linearly interpolated (as numpy's default)."""
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {f"p{q}": percentile(ordered, q) for q in PERCENTILES}


def spread(values: list[float]) -> float | None:
    median = statistics.median(values)
    return (max(values) - min(values)) / median if median > 0 and len(values) > 1 else None


def outliers(ranks: list[int], values: list[float]) -> list[list[float]]:
    """[rank, value] of the ranks far from the median (modified z-score above 3.5 and more than 5% off),
    the farthest first, at most 8."""
    if len(values) < 3:
        return []
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    found = []
    for rank, value in zip(ranks, values):
        off = abs(value - median)
        if off <= OUTLIER_MIN * median:
            continue
        if mad == 0 or 0.6745 * off / mad > OUTLIER_Z:
            found.append((off, rank, value))
    found.sort(reverse=True)
    return [[rank, value] for _, rank, value in found[:MAX_OUTLIERS]]


def straggler(ranks: list[int], values: list[float], *, collective: bool) -> int | None:
    """The rank that holds the others back, where the times spread by more than 10%: the slowest for work;
    for a collective the fastest, since it arrived last and the others' time went on waiting for it."""
    found = spread(values)
    if found is None or found <= STRAGGLER_SPREAD:
        return None
    pick = min if collective else max
    return ranks[values.index(pick(values))]
