"""The model as JSON text and files: writing it (orjson where installed), reading it back into typed objects
with every value checked (one line naming the field where one is wrong), the schema versions this kernelviz
reads, and atomic saves. The model (:mod:`kernelviz.model`) holds the types; this module is their codec.

Fields a newer kernelviz wrote that this one does not know are kept where they were read (``Record._other``) and
written back: a document that holds any (``Document._holds_other``, set as it is read) is written by a slower way
that adds them; any other is written as before, by orjson alone."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gc
import json
import math
import os
import re
import sys
import tempfile
import types
import typing
from pathlib import Path
from typing import Any

from .model import RANKS_FORMAT, READABLE_SCHEMAS, SCHEMA_VERSION, CaptureError, Document, FragmentNode

try:
    import orjson
except ImportError:  # the GPU machine runs kernelviz from a checkout, without its dependencies
    orjson = None

_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to a temporary file beside ``path``, then rename it over ``path``: a reader, or a
    save at the same time, sees the old file or a whole new one, never a part."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes)
              else os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace")) as f:  # a lone surrogate: \ud800
            f.write(text)
        os.chmod(temporary, 0o666 & ~_UMASK)  # as open() would have made it (mkstemp makes it private)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _capture_json(text: str | bytes, expected: str) -> Any:
    """JSON data of a capture's text; a one-line :class:`CaptureError` where it is not JSON, ending with what
    was ``expected``."""
    try:
        return loads(text)
    except UnicodeDecodeError:
        raise CaptureError(f"binary data, not JSON text; expected {expected} (.json)") from None
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):  # it ran out of text
            end = json.JSONDecodeError("", exc.doc, len(exc.doc))
            raise CaptureError(f"the JSON ends early at line {end.lineno} column {end.colno} (a truncated "
                               f"file?); expected {expected}") from None
        raise CaptureError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                           f"expected {expected}") from None
    except ValueError as exc:
        raise CaptureError(f"not valid JSON ({exc}); expected {expected}") from None


def save_html(document: Any, path: str | Path) -> None:
    """:meth:`Document.save_html <kernelviz.model.Document.save_html>`: the page written atomically to ``path``."""
    from .arguments import path as checked

    write_atomically(Path(checked(f"{type(document).__name__}.save_html", "path", path)), document.to_html())


def read_text(cls: type, text: str | bytes, expected: str) -> Any:
    """``cls`` (a :class:`~kernelviz.model.Capture` or :class:`~kernelviz.model.Ranks`) from JSON text; a
    one-line :class:`CaptureError` for anything else, ending with what was ``expected``."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"{cls.__name__}.from_json: text is {type(text).__name__}; pass the JSON as str or bytes "
                        f"(kernelviz.load(path) for a file)")
    with without_gc():  # the JSON data and the model built from it: one pause of the collector
        return cls.from_dict(_capture_json(text, expected))


# What the notebook payload adds at a capture's top (kernelviz.views.payload): not the capture's own fields
PAYLOAD_KEYS = ("view", "ranks")


def read(cls: type, data: Any) -> Any:
    """``cls`` built from its JSON data, if this kernelviz reads the data's schema version (one line
    naming the field that is wrong otherwise). Fields it does not know are kept (see :func:`build`), but for
    the keys the notebook payload adds (``PAYLOAD_KEYS``), which are left out."""
    _check_capture(data)
    annex = [key for key in PAYLOAD_KEYS if key in data and key not in field_types(cls)]  # Ranks.ranks is its own
    if annex:
        data = {key: value for key, value in data.items() if key not in annex}
    if data["schema_version"] < 3:
        data = _upgraded(data)
    with without_gc():
        built = build(cls, data)
    built.schema_version = SCHEMA_VERSION
    check_order(built)
    return built


def check_order(capture: Any) -> None:
    """A launch's ``index`` is its place in its graph's ``call()`` (views and diffs look launches up by it), and a
    finding names launches of its graph: checked where a capture is read and where it is written (what is written
    is read back)."""
    for g, graph in enumerate(getattr(capture, "graphs", [])):
        for i, launch in enumerate(getattr(graph, "launches", [])):
            if launch.index != i:
                raise CaptureError(f"graphs[{g}].launches[{i}].index: expected {i} (its place in call()), "
                                   f"got {_describe(launch.index)}")
    sizes = {graph.id: len(getattr(graph, "launches", [])) for graph in getattr(capture, "graphs", [])}
    for f, finding in enumerate(getattr(capture, "findings", [])):
        for i, index in enumerate(finding.launches):
            if finding.graph in sizes and not 0 <= index < sizes[finding.graph]:
                raise CaptureError(f"findings[{f}].launches[{i}]: expected a launch of graph {finding.graph!r} "
                                   f"(0 to {sizes[finding.graph] - 1}), got {_describe(index)}")


def _upgraded(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 and 2 data as schema 3 reads it: each kernel's fragment nodes as the lines they were read from
    (a copy where anything changes; the nodes are checked as schema 2 read them, naming a bad field)."""
    def capture(cap: Any, path: list[str | int]) -> Any:
        if type(cap) is not dict or type(cap.get("graphs")) is not list:
            return cap
        graphs = [graph_(g, [i, "graphs", *path]) for i, g in enumerate(cap["graphs"])]
        return {**cap, "graphs": graphs, "schema_version": SCHEMA_VERSION}  # a rank's capture, saved alone

    def graph_(graph: Any, path: list[str | int]) -> Any:
        if type(graph) is not dict or type(graph.get("kernels")) is not list:
            return graph
        return {**graph, "kernels": [kernel(k, [i, "kernels", *path]) for i, k in enumerate(graph["kernels"])]}

    def kernel(k: Any, path: list[str | int]) -> Any:
        if type(k) is not dict or "fragment" not in k:
            return k
        try:
            return {**k, "fragment": [node.line() for node in nodes(k["fragment"])]}
        except _Invalid as error:
            if not error.path:
                error.expected = "a list"
            error.path += ["fragment", *path]
            raise CaptureError(error.message()) from None

    nodes = _converter(list[FragmentNode])
    if data.get("format") == RANKS_FORMAT:
        data = {**data}
        if "reference" in data:
            data["reference"] = capture(data["reference"], ["reference"])
        if type(data.get("captures")) is list:
            data["captures"] = [capture(c, [i, "captures"]) for i, c in enumerate(data["captures"])]
        return data
    return capture(data, [])


def document_json(document: Any, indent: int | None = None) -> str:
    """:meth:`Document.to_json <kernelviz.model.Document.to_json>`: the JSON text :func:`read` reads back; a
    capture it would refuse (:func:`check_order`) is refused here, in the same one line."""
    check_order(document)
    return dumps(document, indent, limited=True)


def dumps(value: Any, indent: int | None = None, *, limited: bool = False) -> str:
    """JSON text of model objects and JSON data: by orjson (which writes dataclasses itself, ~5x faster) where it is
    installed, else by the standard library. Both write the same: a float that is not finite (NaN, ±inf: a figure
    that makes no sense) as null, which :func:`build` reads back as None where the field may be None, else as NaN.
    ``limited``: an integer no reader takes (beyond a double, |n| >= 2**1024) is refused with a one-line
    :class:`CaptureError` (what a file holds), else written (what the views read)."""
    if orjson is not None and indent is None:
        try:
            return _orjson(value).decode()
        except TypeError:  # orjson.JSONEncodeError, e.g. an integer over 64 bits: the standard library writes it
            pass
    return json.dumps(_plain(value, limited), indent=indent, allow_nan=False)


def _plain(value: Any, limited: bool) -> Any:
    """JSON data of model objects and JSON data as orjson writes it (see :func:`dumps`)."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int and limited and not -_INT_LIMIT < value < _INT_LIMIT:
        raise CaptureError(f"an integer of {value.bit_length()} bits cannot be written: a capture's JSON holds "
                           "integers a double can hold (|n| < 2**1024)")
    if kind in (str, int, bool, type(None)):
        return value
    if isinstance(value, str):  # a subclass (torch.__version__ is a TorchVersion): its text, as orjson writes it
        return str(value)
    if kind is dict or kind in (list, tuple):  # a loop, not a comprehension: one frame a level of nesting
        out: Any = {} if kind is dict else []
        for key, item in (value.items() if kind is dict else enumerate(value)):
            if kind is dict:
                out[key] = _plain(item, limited)
            else:
                out.append(_plain(item, limited))
        return out
    return _plain(_fields(value), limited)


def _orjson(value: Any) -> bytes:
    """orjson's JSON of ``value``: dataclasses written by orjson itself (their ``__dict__``, leaving out names that
    start with ``_``), or, in a document that keeps fields it did not know, each by :func:`_fields`."""
    if _holds_other(value):
        return orjson.dumps(value, default=_fields, option=orjson.OPT_PASSTHROUGH_DATACLASS)
    return orjson.dumps(value)


def _holds_other(value: Any) -> bool:
    """Whether ``value`` is a document that keeps fields it did not know, or holds one that does (a job's ranks
    hold their captures, a diff its two)."""
    if not isinstance(value, Document):
        return False
    return value._holds_other or any(_holds_other(part) for name in _document_fields(type(value))
                                     for part in _as_list(getattr(value, name)))


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


_DOCUMENT_FIELDS: dict[type, list[str]] = {}


def _document_fields(cls: type) -> list[str]:
    """The fields of a document class that hold documents (``Capture``, ``list[Capture]``, ``Capture | None``)."""
    if cls not in _DOCUMENT_FIELDS:
        def documents(tp: Any) -> bool:
            return (isinstance(tp, type) and issubclass(tp, Document)) or any(map(documents, typing.get_args(tp)))
        _DOCUMENT_FIELDS[cls] = [name for name, tp in field_types(cls).items() if documents(tp)]
    return _DOCUMENT_FIELDS[cls]


def json_data(value: Any) -> Any:
    """Model objects as JSON data (``loads(dumps(value))``). What orjson wrote it reads back as it is, integers
    included (it writes none beyond 64 bits), so its text is neither decoded nor scanned for long digits."""
    with without_gc():
        if orjson is not None:
            try:
                return orjson.loads(_orjson(value))
            except TypeError:  # e.g. an integer over 64 bits: the standard library's way
                pass
        return json.loads(dumps(value))  # what a capture made here holds (a file's limits are for reading files)


def loads(text: str | bytes) -> Any:
    """JSON data of JSON text (orjson where installed). NaN, Infinity and numbers too large for a double
    are refused (``ValueError``), as orjson does: they could not be written back."""
    if orjson is not None and not _long_digits(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:  # the standard library says where
            if "ecursion limit" in str(exc) or "depth limit" in str(exc):  # orjson before 3.11 / since
                raise _too_deep() from None
    if _depth(text) > MAX_DEPTH:  # refused by depth, not by the interpreter's recursion limit (Inductor raises it)
        raise _too_deep()
    try:
        return json.loads(text, parse_constant=_not_a_number, parse_float=_finite, parse_int=_within_a_double)
    except RecursionError:
        raise _too_deep() from None


MAX_DEPTH = 1024  # orjson's limit
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = bytes(1 if c in b"[{" else 255 if c in b"]}" else 0 for c in range(256))  # +1, -1 (mod 256), nothing


def _depth(text: str | bytes) -> int:
    """How deep the brackets of JSON text nest, outside its strings."""
    data = _STRING.sub(b"", text.encode() if isinstance(text, str) else text)
    depth = deepest = 0
    for step in data.translate(_BRACKETS).replace(b"\0", b""):
        depth += 1 if step == 1 else -1
        deepest = max(deepest, depth)
    return deepest


def _too_deep() -> ValueError:
    return ValueError("nested too deep for a JSON reader: over about 1,000 levels, where a capture has about 10")


_DIGITS = bytes(48 if 48 <= i < 58 else 32 for i in range(256))  # digits to "0", all else to " "


def _long_digits(text: str | bytes) -> bool:
    """Whether 19 digits stand in a row: maybe an integer beyond 64 bits, which orjson reads as a float and the
    standard library exactly (a translate and a find: about 4 ms per MB, a regex takes 20-30)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return b"0" * 19 in data.translate(_DIGITS)


def _not_a_number(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _within_a_double(text: str) -> int:
    """An integer a double can hold (|n| < 2**1024): no figure of a capture comes near; a larger one would break
    every view's arithmetic, so it is refused here (one place, one line)."""
    value = int(text)
    if abs(value) >= 2**1024:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits, beyond any figure a capture holds")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _not_a_number(text)
    return value


def _fields(value: Any) -> dict[str, Any]:
    """``json.dumps`` (and orjson) hook: a model object as the dict of its fields, then the fields it kept from its
    JSON that this kernelviz does not know (the encoder walks the rest)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {name: getattr(value, name) for name in field_types(type(value))}
        other = getattr(value, "_other", None)
        return {**fields, **other} if other else fields
    raise TypeError(f"{type(value).__name__} is not part of the kernelviz model and cannot be written as JSON")


@contextlib.contextmanager
def without_gc():
    """Pause the cyclic garbage collector while a large tree of new objects is built: it would scan
    them again and again (a 20 MB capture builds millions), and they hold no cycles. On the way out the
    young objects go straight to the oldest generation (``gc.freeze`` then ``gc.unfreeze``, both O(1))
    instead of being scanned by the first young collection; where the process froze objects of its own,
    nothing is moved and they stay frozen."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


# Reading JSON back: one converter per annotated type, made once, that checks each value's JSON type
# and names the path of the first bad one.
class _Invalid(Exception):
    def __init__(self, expected: str, value: Any):
        super().__init__(expected)
        self.expected, self.value, self.path = expected, value, []  # path built innermost first

    def message(self) -> str:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" if p.isidentifier() else f"[{p!r}]"
                        for p in reversed(self.path)).lstrip(".")
        return f"{where or 'capture'}: expected {self.expected}, got {_describe(self.value)}"


def _describe(value: Any) -> str:
    if value is _MISSING:
        return "nothing (the field is missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 256:  # its digits could be thousands (or too many for repr)
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict) and not value:
        return "an empty object"
    if isinstance(value, dict):
        return f"an object with keys {', '.join(repr(k)[:40] for k in list(value)[:6])}" + (
            ", ..." if len(value) > 6 else "")
    return type(value).__name__


_MISSING = object()
_CONVERTERS: dict[Any, Any] = {}


def _converter(tp: Any):
    """A function JSON value -> model value for annotation ``tp``; raises :class:`_Invalid`."""
    if tp not in _CONVERTERS:
        _CONVERTERS[tp] = _make_converter(tp)
    return _CONVERTERS[tp]


_EXPECTED = {str: "a string", int: "an integer", bool: "true or false", float: "a number"}


def _expected(tp: Any) -> str:
    """What a value of annotation ``tp`` looks like in JSON, in words."""
    if tp in _EXPECTED:
        return _EXPECTED[tp]
    if dataclasses.is_dataclass(tp):
        return f"an object ({tp.__name__})"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(map(json.dumps, args))
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _expected(a) for a in args)
    return {list: "a list", dict: "an object"}.get(origin, "a value")


def _exact(tp: type):
    def convert(value):
        if type(value) is tp:
            return value
        raise _Invalid(_EXPECTED[tp], value)
    return convert


_INT_LIMIT = 2**1024  # a double's range: no figure of a capture comes near, and the views' arithmetic needs it


def _integer(value):
    if type(value) is int and -_INT_LIMIT < value < _INT_LIMIT:
        return value
    raise _Invalid("an integer a double can hold (|n| < 2**1024)" if type(value) is int else "an integer", value)


def _number(value):
    """A finite float; null is NaN (JSON has no NaN or Infinity: the writers write a float that is not finite as
    null, see :func:`dumps`)."""
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is int and abs(value) <= _LARGEST_FLOAT:
        return float(value)
    if value is None:
        return math.nan
    raise _Invalid("a number", value)


_LARGEST_FLOAT = int(sys.float_info.max)


def _scalars(types_: tuple[type, ...]):
    """The converter of a union of scalar types (``int | float | bool | None``): a value of one of them, as it is
    (a bool where an integer may be, as Python's types say; a float only where finite)."""
    allowed = set(types_) | ({bool} if int in types_ else set())
    expected = " or ".join("null" if t is type(None) else _EXPECTED[t] for t in types_)

    nan = float in types_ and type(None) not in types_  # null is NaN where the union allows no null (see _number)

    def convert(value):
        if type(value) in allowed and (type(value) is not float or math.isfinite(value)):
            return value
        if value is None and nan:
            return math.nan
        raise _Invalid(expected, value)
    return convert


def _one_of(allowed: tuple[str, ...], expected: str):
    """The converter of a vocabulary (``Literal["gpu", "cpu"]``): one of its strings."""
    values = frozenset(allowed)

    def convert(value):
        if type(value) is str and value in values:
            return value
        raise _Invalid(expected, value)
    return convert


def _anything(value: Any) -> Any:
    if value is _MISSING:
        raise _Invalid("a value", value)
    return value


def _make_converter(tp: Any):
    if tp is Any:
        return _anything
    if tp is str:
        return _exact(str)
    if tp is int:
        return _integer
    if tp is bool:
        return _exact(bool)
    if tp is float:
        return _number
    if dataclasses.is_dataclass(tp):
        return _dataclass_converter(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return _one_of(args, _expected(tp))
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _converter(inner[0])  # null passes the dataclass converter's fast path
        if all(a in _EXPECTED or a is type(None) for a in args):
            return _scalars(args)
        return _anything
    if origin is list:
        return _list_converter(args[0])
    if origin is dict:
        return _dict_converter(args[1])
    return _anything  # a type this reader does not check


_PLAIN_ITEMS = {str: ("a list of strings", "a string"), int: ("a list of integers", "an integer")}


def _list_converter(item_type: Any):
    if item_type in _PLAIN_ITEMS:  # the common case, checked without a call per item
        expected, expected_item = _PLAIN_ITEMS[item_type]

        def plain_list(value):
            if type(value) is not list:
                raise _Invalid(expected, value)
            for i, item in enumerate(value):
                if type(item) is not item_type or (item_type is int and not -_INT_LIMIT < item < _INT_LIMIT):
                    error = _Invalid(expected_item, item)
                    error.path.append(i)
                    raise error
            return value[:]  # the capture's own list, never the caller's data
        return plain_list
    item = _item_converter(item_type)

    def any_list(value):
        if type(value) is not list:
            raise _Invalid("a list", value)
        return [_at(i, item, v) for i, v in enumerate(value)]
    return any_list


def _dict_converter(value_type: Any):
    item = _item_converter(value_type)
    check = value_type is not Any

    def convert(value):
        if type(value) is not dict:
            raise _Invalid("an object", value)
        return {k: _at(k, item, v) for k, v in value.items()} if check else dict(value)
    return convert


def _item_converter(tp: Any):
    """The converter of a list's items or a dict's values: as a field's, and null where ``tp`` allows it
    (a field's null is let through by its dataclass's converter; an item's by this)."""
    convert = _converter(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in typing.get_args(tp):
        return lambda value: None if value is None else convert(value)
    return convert


def _at(key: str | int, convert, value: Any) -> Any:
    """``convert(value)``, where ``value`` sits at ``key`` of its container (put on the path of an error)."""
    try:
        return convert(value)
    except _Invalid as error:
        error.path.append(key)
        raise


# Counts the objects that kept fields they did not know while build() reads (a list per build, per thread)
_KEPT: contextvars.ContextVar[list[None]] = contextvars.ContextVar("kept")


def _dataclass_converter(cls: type):
    """Check every field of ``cls`` and build the object without calling ``__init__`` (no dataclass in
    the model has a ``__post_init__``): values of an exact expected type are taken as they are. Keys it does not
    know are kept in the object's ``_other``, counted in ``_KEPT``; a document in which any were kept is marked
    (``_holds_other``). An object of ``cls`` itself (built before, e.g. a diff's captures) is taken as it is."""
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: the JSON reader builds model objects without __init__")
    fields, hints = [], field_types(cls)
    for f in dataclasses.fields(cls):
        if f.name in hints:
            tp = hints[f.name]
            default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory
            factory = f.default_factory is not dataclasses.MISSING
            fields.append((f.name, _as_is(tp), _converter(tp), default, factory))
    expected = f"an object ({cls.__name__})"
    new, count = object.__new__, len(fields)

    def convert(value):
        if type(value) is not dict:
            if type(value) is cls:
                return value
            raise _Invalid(expected, value)
        out = {}
        missing = 0
        for name, as_is, conv, default, factory in fields:
            v = value.get(name, _MISSING)
            if type(v) in as_is:
                out[name] = v
            elif v is _MISSING and default is not dataclasses.MISSING:
                out[name] = default() if factory else default
                missing += 1
            else:  # a value to check, or a required field that is missing (every converter refuses _MISSING)
                try:
                    out[name] = conv(v)
                except _Invalid as error:
                    if not error.path:  # the field's own value: say all it may be (e.g. "or null")
                        error.expected = _expected(hints[name])
                    error.path.append(name)
                    raise
        if len(value) + missing != count:  # keys it does not know: kept
            out["_other"] = {k: v for k, v in value.items() if k not in hints}
            _KEPT.get([]).append(None)
        obj = new(cls)
        obj.__dict__ = out
        return obj

    if not issubclass(cls, Document):
        return convert

    def document(value):
        kept = _KEPT.get([])
        before = len(kept)
        obj = convert(value)
        if len(kept) > before:
            obj._holds_other = True
        return obj
    return document


def _as_is(tp: Any) -> tuple[type, ...]:
    """JSON types that need no check or conversion for annotation ``tp`` (the fast path; a float is checked: it
    may be NaN or infinite)."""
    if tp in (str, bool):  # an integer is checked too: it may be beyond a double
        return (tp,)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = next(a for a in args if a is not type(None))
        return (type(None), inner) if inner in (str, bool) else (type(None),)
    return ()


def _check_capture(data: Any) -> None:
    """The top level of a capture: an object of a readable schema; raise a CaptureError otherwise."""
    what = "expected a JSON object with schema_version and graphs"
    if not isinstance(data, dict):
        raise CaptureError(f"not a kernelviz capture: {what}, got {_describe(data)}")
    if "nbformat" in data and "cells" in data:
        raise CaptureError("a Jupyter notebook, not a kernelviz capture (read a kernelviz output of a notebook, "
                           "out['data']['application/vnd.kernelviz.v1+json'], with "
                           "kernelviz.views.payload.capture_from_bundle)")
    if "encoding" in data:
        raise CaptureError(f"the compact form a notebook saves ({data['encoding']!r:.40}), not a capture's JSON: "
                           "read it with kernelviz.views.payload.capture_from_bundle")
    version = data.get("schema_version", _MISSING)
    if version is _MISSING:
        raise CaptureError(f"not a kernelviz capture (no schema_version): {what}, got {_describe(data)}")
    if version not in READABLE_SCHEMAS or type(version) is not int:
        readable = f"schemas {READABLE_SCHEMAS[0]} to {READABLE_SCHEMAS[-1]}"
        if type(version) is int and version > SCHEMA_VERSION:
            why = f"written by a newer kernelviz (this one reads {readable}): upgrade kernelviz to read it"
        elif type(version) is int:
            why = f"written by an older kernelviz than this one reads ({readable})"
        else:
            why = f"expected an integer (this kernelviz reads {readable})"
        raise CaptureError(f"kernelviz capture schema {version!r} is not supported: {why}")


def build(cls: type, data: Any) -> Any:
    """A model object of ``cls`` from JSON data; a :class:`CaptureError` names the bad field. Keys it does not know
    are kept (``Record._other``) and a document that holds any is marked to write them back."""
    token = _KEPT.set([])
    try:
        return _converter(cls)(data)
    except _Invalid as error:
        raise CaptureError(error.message()) from None
    finally:
        _KEPT.reset(token)


_HINTS: dict[type, dict[str, Any]] = {}


def field_types(tp: type) -> dict[str, Any]:
    """The annotated types of a model class's fields that JSON holds (a field named with a leading ``_`` is live
    state, never written: orjson leaves such attributes out too)."""
    if tp not in _HINTS:
        names = {f.name for f in dataclasses.fields(tp) if not f.name.startswith("_")}
        _HINTS[tp] = {k: v for k, v in typing.get_type_hints(tp).items() if k in names}
    return _HINTS[tp]
