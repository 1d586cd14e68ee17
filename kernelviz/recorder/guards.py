"""What changed when dynamo recompiled, in plain words, from the guard that failed and the frame's new values:
``x.size(0): 8 -> 16``, ``n: int 2 -> float 3.5``, ``x.dtype: float32 -> float64``, and the kind of guard
("size", "number", "type", "dtype", "other") that picks the remedy (:mod:`kernelviz.advice.dynamo`)."""

from __future__ import annotations

import re
from typing import Any

_SOURCE = r"(?:L\[')?(?P<name>[A-Za-z_][\w.]*)(?:'\])?"
_TENSOR = re.compile(r"tensor '(?:L\[')?(?P<name>[^']+?)(?:'\])?' (?P<what>size|stride) mismatch at index "
                     r"(?P<index>\d+)\. expected (?P<old>\S+), actual (?P<new>\S+)")
_RANK = re.compile(r"tensor '(?:L\[')?(?P<name>[^']+?)(?:'\])?' rank mismatch\. expected (?P<old>\d+), "
                   r"actual (?P<new>\d+)")
_DTYPE = re.compile(r"tensor '(?:L\[')?(?P<name>[^']+?)(?:'\])?' dtype mismatch\. expected (?P<old>\w+), "
                    r"actual (?P<new>\w+)")
_EQUALS = re.compile(rf"^{_SOURCE} == (?P<old>-?[\w.+\-]+)\s*(?:#|$)")
_TYPE_ID = re.compile(rf"___check_type_id\({_SOURCE}, (?P<id>\d+)\)")
_SYMBOLIC = re.compile(r"\bs\d+\b|size\(\)|\.size\(")
# torch's ScalarType names (as a dtype guard prints them) -> the dtype's name in Python
_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
           "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
           "ComplexFloat": "complex64", "ComplexDouble": "complex128"}
_TYPES = (int, float, bool, str, type(None), list, tuple, dict)


def _value(f_locals: dict[str, Any], name: str) -> tuple[bool, Any]:
    """The frame's value of a plain name or an attribute path (``self.k``), without running any code of theirs."""
    head, *rest = name.split(".")
    if head not in f_locals:
        return False, None
    value = f_locals[head]
    for part in rest:
        try:
            value = object.__getattribute__(value, part)
        except Exception:  # noqa: BLE001 - a property or a missing attribute: unknown
            return False, None
    return True, value


def _typed(value: Any) -> str:
    return f"{type(value).__name__} {value!r}" if isinstance(value, (int, float, bool, str)) else type(value).__name__


def change(reason: str, f_locals: dict[str, Any]) -> tuple[str, str]:
    """(kind of guard, what changed in plain words) of one guard failure ``reason`` (``0/1: n == 2 ...``) given the
    frame's values; ("other", "") where the guard says nothing this reads."""
    text = re.sub(r"^\d+/\d+: ", "", reason.strip()).split("\n")[0].strip()
    if m := _TENSOR.search(text):
        return "size", f"{m['name']}.{m['what']}({m['index']}): {m['old']} -> {m['new']}"
    if m := _RANK.search(text):
        return "size", f"{m['name']}.dim(): {m['old']} -> {m['new']}"
    if m := _DTYPE.search(text):
        return "dtype", f"{m['name']}.dtype: {_DTYPES.get(m['old'], m['old'])} -> {_DTYPES.get(m['new'], m['new'])}"
    if m := _EQUALS.match(text):
        known, value = _value(f_locals, m["name"])
        old = m["old"]
        kind = "int" if old.lstrip("-").isdigit() else "float" if re.fullmatch(r"-?[\d.]+(e-?\d+)?", old) else ""
        if kind or known and isinstance(value, (int, float)):
            return "number", f"{m['name']}: {f'{kind} ' if kind else ''}{old} -> " + (_typed(value) if known else "?")
    if m := _TYPE_ID.search(text):
        known, value = _value(f_locals, m["name"])
        before = next((t.__name__ for t in (*_TYPES, type(value)) if id(t) == int(m["id"])), "another type")
        return "type", f"{m['name']}: {before} -> " + (_typed(value) if known else "another type")
    if _SYMBOLIC.search(text):
        return "size", ""
    return "other", ""
