"""Launch names for people: what a launch computes in the room a view has (the panel's twin is
``static/src/names.js``; both must give the same labels, ``tests/test_names_browser.py`` checks).

Inductor names a generated kernel ``triton_poi_fused__native_batch_norm_legit_no_training_add_relu_3``: a
prefix, the ATen ops its nodes came from (sorted, joined by ``_``) and a counter that tells the kernels of a
module apart. The ops are split with the launch's own ``original_aten`` (and a few multi-word names), shown
joined by `` · `` and, while they do not fit, abbreviated, rid of view-like ops, joined by ``·`` alone, then
cut with ``…``; the counter always stays. An extern call shows its op
(``extern_kernels.convolution`` → ``convolution``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

SEP = " · "
_PREFIX = re.compile(r"^(?:triton|cpp)_(?:[a-z]{3}_)?fused_")
_COUNTER = re.compile(r"_\d+$")
# What both twins read (static/src/names.json): ops of more than one word that may be in a name without being in
# the launch's original_aten; ops that only view or move data (the first left out when a name does not fit); and
# the abbreviations, in order (regex, replacement).
_TABLES = json.loads((Path(__file__).parents[1] / "static" / "src" / "names.json").read_text())
_KNOWN = tuple(_TABLES["known"])
LAYOUT_OPS = frozenset(_TABLES["layout"])
_ABBREV = tuple((re.compile(pattern), repl) for pattern, repl in _TABLES["abbrev"])


def aten_op(qualified: str) -> str:
    """``aten._log_softmax.default`` → ``_log_softmax``; ``extern_kernels.mm`` → ``mm``."""
    parts = qualified.split(".")
    if len(parts) >= 3 and (parts[-1] in ("default", "out") or parts[-1][:1].isupper()):
        parts = parts[:-1]
    return parts[-1]


def split_name(name: str, aten: Iterable[str] = (), *, generated: bool | None = None) -> tuple[list[str], str]:
    """The ops a launch's name lists and its counter suffix (``_3``, or ``""``). ``generated``: whether it is a
    generated kernel's (not an extern call's); by default, whether the name has no dot."""
    if generated is None:
        generated = "." not in name
    if not generated:
        return [aten_op(name)], ""
    m = _COUNTER.search(name)
    tail = m.group(0) if m else ""
    body = name[: len(name) - len(tail)]
    p = _PREFIX.match(body)
    if not p or len(body) == p.end():
        return [body], tail
    stem = body[p.end():]
    vocab = sorted({aten_op(a) for a in aten} | set(_KNOWN), key=len, reverse=True)
    ops, i = [], 0
    while i < len(stem):
        op = next((v for v in vocab if stem.startswith(v, i) and (i + len(v) == len(stem) or stem[i + len(v)] == "_")),
                  None)
        if op is None:
            end = stem.find("_", i + 1 if stem[i] == "_" else i)
            op = stem[i:] if end < 0 else stem[i:end]
        ops.append(op)
        i += len(op) + 1
    return ops, tail


def _abbrev(op: str) -> str:
    for pattern, repl in _ABBREV:
        op = pattern.sub(repl, op)
    return op


def _dedupe(ops: list[str]) -> list[str]:
    return list(dict.fromkeys(ops))


def _forms(name: str, aten: Iterable[str], budget: int,
           generated: bool | None) -> tuple[tuple[str, ...], str, int, tuple[str, ...]]:
    """The four forms of a name, fullest first (ops; abbreviated; without view-like ops; joined by ``·``), its
    tail, the room for its head, and the ops the last form keeps."""
    return _forms_of(name, tuple(aten), budget, generated)


@lru_cache(maxsize=1 << 16)  # a display labels each launch in its text, HTML report and panel payload
def _forms_of(name: str, aten: tuple[str, ...], budget: int,
              generated: bool | None) -> tuple[tuple[str, ...], str, int, tuple[str, ...]]:
    ops, tail = split_name(name, aten, generated=generated)
    room = max(1, budget - (len(tail) + 1 if tail else 0))  # the tail and the space before it
    short = _dedupe([_abbrev(op) or op for op in ops])
    computing = _dedupe([_abbrev(op) or op for op in ops if op not in LAYOUT_OPS]) or short
    return (SEP.join(ops), SEP.join(short), SEP.join(computing), "·".join(computing)), tail, room, tuple(computing)


def name_level(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None) -> int:
    """The first of a name's forms that fits ``budget`` (0 to 3; 4: none, it is cut)."""
    forms, _, room, _ = _forms(name, aten, budget, generated)
    return next((i for i, form in enumerate(forms) if len(form) <= room), 4)


def short_name(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None,
               level: int = 0) -> tuple[str, str]:
    """(head, tail): the label of a launch in ``budget`` characters (the tail, the counter, is kept whole),
    in the fullest of its forms from ``level`` on that fits (a column gives all its names one level)."""
    forms, tail, room, computing = _forms(name, aten, budget, generated)
    for form in forms[min(level, 3):]:
        if len(form) <= room:
            return form, tail
    kept = []
    for op in computing:
        if len("·".join(kept + [op])) + 1 > room:
            break
        kept.append(op)
    if kept:
        return "·".join(kept) + "…", tail
    return computing[0][: max(0, room - 1)] + "…", tail


def label(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None,
          level: int = 0) -> str:
    """``short_name`` as one string: ``batch_norm · add · relu _3``."""
    head, tail = short_name(name, aten, budget, generated=generated, level=level)
    return f"{head} {tail}" if tail else head


def column_level(names: Iterable[tuple[str, Iterable[str], bool | None]], budget: int) -> int:
    """The level of a column of (name, aten, generated): the fullest form that every name fits (names that fit
    none are cut), so that one op reads the same in every row."""
    return min(3, max((name_level(n, a, budget, generated=g) for n, a, g in names), default=0))


def column_labels(names: Iterable[tuple[str, Iterable[str], bool | None]], budget: int) -> list[str]:
    """Labels of (name, aten, generated) for one column, all at its ``column_level``."""
    names = list(names)
    level = column_level(names, budget)
    return [label(n, a, budget, generated=g, level=level) for n, a, g in names]


def short_path(path: str, budget: int = 40) -> str:
    """A path shortened from the left to ``budget`` characters, its end (file name, line) kept: ``…/pkg/mod.py:3``."""
    if len(path) <= budget:
        return path
    cut = path[len(path) - budget + 1:]
    slash = cut.find("/")
    return "…" + (cut[slash:] if 0 <= slash < len(cut) - 8 else cut)
