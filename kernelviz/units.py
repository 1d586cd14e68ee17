"""Units as kernelviz writes them, in every view; the panel shows these strings from its payload.

- Bytes: binary multiples, labelled ``B``, ``KB``, ``MB``, ``GB`` (1 KB = 1024 B, 1 MB = 1024 KB, 1 GB = 1024 MB).
- Times: held in ms; written in ms with fixed decimals in tables (:func:`ms`), or in the unit that reads best,
  µs, ms or s (:func:`ms_text`); a line of figures in one unit (:func:`ms_texts`), with their noise
  (:func:`ms_noises`: ``1.2 ± 0.05 ms``).
- Rates: decimal, as devices state them: GB/s is 10**9 B/s, TFLOP/s 10**12 FLOP/s (:func:`rate`).
- Percentages: a share of a whole is never written above 100% (:func:`share`, :func:`percent`); a figure
  relative to another may be (:func:`relative`), and a change is signed (:func:`change`).

A figure that makes no sense is written as what it is (:func:`kernelviz.figures.shown`: ``invalid: -3 GB/s``)."""

from __future__ import annotations

from .figures import shown, valid

KIB = 1024


def size(nbytes: int | float | None) -> str:
    """Bytes for people: ``512 B``, ``33.8 KB``, ``1.5 GB``; "" for None."""
    if nbytes is None:
        return ""
    if not valid(nbytes):
        return shown(nbytes, "B")
    value, unit = float(nbytes), "B"
    for unit in ("B", "KB", "MB", "GB"):
        if value < KIB or unit == "GB":
            break
        value /= KIB
    return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"


def signed_size(delta: int | float) -> str:
    """A change in bytes: ``+1.5 KB``, ``-512 B``."""
    return ("+" if delta >= 0 else "-") + size(abs(delta))


def ms(value: float | None, digits: int = 4) -> str:
    """A time in ms with ``digits`` decimals, without its unit (a table's ms column): ``0.0314``; "" for None."""
    if value is None:
        return ""
    return f"{value:.{digits}f}" if valid(value) else shown(value, "ms")


def ms_sig(value: float, digits: int = 4) -> str:
    """A time in ms with ``digits`` significant digits, without its unit: ``0.5123``, ``1234``."""
    return f"{value:.{digits}g}" if valid(value) else shown(value, "ms")


def ms_text(value: float) -> str:
    """A time with the unit that reads best: ``12.5 µs``, ``3.14 ms``, ``250 ms``, ``1.2 s``."""
    if not valid(value):
        return shown(value, "ms")
    if value >= 1000:
        return f"{value / 1e3:.3g} s"
    return f"{value * 1e3:.1f} µs" if value < 0.1 else f"{value:.3g} ms" if value < 100 else f"{value:.0f} ms"


def ms_texts(*values: float | None) -> list[str | None]:
    """``values`` in one unit, the one :func:`ms_text` gives the largest (a line of figures reads in one unit);
    None stays None."""
    top = max((v for v in values if v is not None and valid(v)), default=None)
    if top is None:
        return [None if v is None else ms_text(v) for v in values]
    unit, scale = ("s", 1e-3) if top >= 1000 else ("µs", 1e3) if top < 0.1 else ("ms", 1.0)
    return [None if v is None else shown(v, "ms") if not valid(v) else f"{v * scale:.3g} {unit}"
            if v * scale >= 0.01 or v == 0 else f"<0.01 {unit}" for v in values]


def ms_noises(*pairs: tuple[float, float | None]) -> list[str]:
    """(time, noise) pairs in one unit (:func:`ms_texts`'): ``1.2 ± 0.05 ms``; a time alone where its noise is
    None."""
    texts = ms_texts(*(v for pair in pairs for v in pair))
    out = []
    for (value, _), text, noise_text in zip(pairs, texts[::2], texts[1::2]):
        out.append(f"{text.rsplit(' ', 1)[0]} ± {noise_text}" if noise_text is not None and valid(value) else text)
    return out


def share(fraction: float | None, digits: int = 1) -> str:
    """A share of a whole as a percentage, never above 100: ``42.0%``; "" for None."""
    if fraction is None:
        return ""
    return f"{min(100.0, 100 * fraction):.{digits}f}%" if valid(fraction) else shown(fraction)


def percent(value: float | None, digits: int = 1) -> str:
    """A percentage of a whole given in percent, never above 100: ``87.5%``; "" for None."""
    if value is None:
        return ""
    return f"{min(100.0, value):.{digits}f}%" if valid(value) else shown(value, "%")


def relative(fraction: float | None, digits: int = 1) -> str:
    """A figure relative to another (a spread over the median, a margin), as a percentage that may pass 100:
    ``250%``; "" for None."""
    return "" if fraction is None else f"{100 * fraction:.{digits}f}%"


def change(pct: float, digits: int = 1) -> str:
    """A relative change, signed: ``+20.7%``, ``-3.0%`` (above 100% where it grew more than twofold)."""
    return f"{pct:+.{digits}f}%"


def rate(value: float | None, unit: str) -> str:
    """A rate with its unit (``GB/s``, ``TFLOP/s``): ``1.23e+03 GB/s`` as ``%.3g`` writes it; "" for None."""
    return shown(value, unit)
