"""One-line refusals of an argument of the wrong kind, at the door of a public function: what was given and what to
pass (never a traceback from deep inside)."""

from __future__ import annotations

import os
from typing import Any


def what_it_is(x: Any) -> str:
    """``None``, ``an int (3)``, ``a dict``: what was passed, in a few words."""
    if x is None:
        return "None"
    name = type(x).__name__
    text = repr(x) if isinstance(x, (int, float, complex)) and len(repr(x)) <= 20 else ""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}" + (f" ({text})" if text else "")


def _refuse(function: str, name: str, value: Any, expected: str) -> TypeError:
    return TypeError(f"{function}: {name} is {what_it_is(value)}; pass {expected}")


def path(function: str, name: str, value: Any) -> str | os.PathLike:
    """A file system path (str or os.PathLike); bytes are told to decode."""
    if isinstance(value, bytes):
        raise _refuse(function, name, value, "a str or pathlib.Path (os.fsdecode(path) for a bytes path)")
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise _refuse(function, name, value, "a path: a non-empty str or a pathlib.Path")
    return value


def flag(function: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _refuse(function, name, value, "True or False")
    return value


def seconds(function: str, name: str, value: Any) -> float:
    """A positive, finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise _refuse(function, name, value, "a positive number of seconds")
    return float(value)


def count(function: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _refuse(function, name, value, "a whole number from 1 up")
    return value


def instance(function: str, name: str, value: Any, kind: type, *, optional: bool = True) -> Any:
    if (value is None and optional) or isinstance(value, kind):
        return value
    raise _refuse(function, name, value, f"a {kind.__name__}" + (" or None" if optional else ""))


def progress(function: str, value: Any) -> Any:
    if isinstance(value, bool) or callable(value):
        return value
    raise _refuse(function, "progress", value, "True, False or a function report(done, total, label)")
