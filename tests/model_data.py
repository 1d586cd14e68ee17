"""JSON data of the model generated from its type annotations (every class, every field), for the codec's tests:
nothing hand-listed, so a class or field added to the model is covered at once."""

import dataclasses
import types
import typing

from kernelviz import codec
from kernelviz.model import SCHEMA_VERSION

SCALARS = (str, int, float, bool)


def classes_in(tp) -> list[type]:
    """The model classes an annotation holds (``list[Kernel]``, ``Occupancy | None``...)."""
    if dataclasses.is_dataclass(tp):
        return [tp]
    return [c for arg in typing.get_args(tp) for c in classes_in(arg)]


def reachable(cls: type) -> set[type]:
    """Every model class whose objects a ``cls`` written as JSON may hold, ``cls`` included."""
    found, todo = set(), [cls]
    while todo:
        c = todo.pop()
        if c not in found:
            found.add(c)
            todo += [d for hint in codec.field_types(c).values() for d in classes_in(hint)]
    return found


def sample(tp, seen: set[type], extra=lambda cls: {}):
    """JSON data of annotation ``tp`` with every field present (one item in each list and dict), ``extra(cls)``
    added to the object of each class (the classes met are added to ``seen``)."""
    if dataclasses.is_dataclass(tp):
        seen.add(tp)
        data = {name: 0 if name == "index" else sample(hint, seen, extra)  # a launch's index: its place
                for name, hint in codec.field_types(tp).items()}
        return {**data, **extra(tp)}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return args[-1]
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)), seen, extra)
    if origin is list:
        return [sample(args[0], seen, extra)]
    if origin is dict:
        return {"key": sample(args[1], seen, extra)}
    return {str: "text", int: 1, float: 1.5, bool: True}.get(tp, {"any": [1, "x"]})


def full(cls: type, seen: set[type], extra=lambda cls: {}) -> dict:
    """:func:`sample` of a document class, each capture in it of this kernelviz's schema."""
    data = sample(cls, seen, extra)
    for capture in [data, data.get("reference") or {}, *data.get("captures", []), data.get("a", {}), data.get("b", {})]:
        capture["schema_version"] = SCHEMA_VERSION
        for finding in capture.get("findings", []):  # a finding names launches of its graph, which has one
            finding["launches"] = [0] * len(finding["launches"])
    return data


def scalar_paths(tp, data, path=()) -> list[tuple[tuple, object]]:
    """(path, annotation) of every number, string and bool of JSON data ``data`` of annotation ``tp`` that the model
    types: fields, list items and dict values of scalar types, optional or in unions (``Any`` data left out)."""
    if is_scalar(tp):
        return [(path, tp)]
    inner = _inner(tp)
    if len(inner) == 1 and dataclasses.is_dataclass(inner[0]) and isinstance(data, dict):
        return [p for name, hint in codec.field_types(inner[0]).items() if name in data
                for p in scalar_paths(hint, data[name], (*path, name))]
    if len(inner) == 1 and typing.get_origin(inner[0]) is list and isinstance(data, list):
        return [p for i, item in enumerate(data) for p in scalar_paths(typing.get_args(inner[0])[0], item, (*path, i))]
    if len(inner) == 1 and typing.get_origin(inner[0]) is dict and isinstance(data, dict):
        return [p for k, v in data.items() for p in scalar_paths(typing.get_args(inner[0])[1], v, (*path, k))]
    return []


def _inner(tp) -> list:
    """The types a union allows but null (``tp`` alone where not a union)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(tp) if a is not type(None)]
    return [tp]


def is_scalar(tp) -> bool:
    """Whether annotation ``tp`` is a number, a string or a bool (optional, or a union of them)."""
    return all(a in SCALARS for a in _inner(tp))
