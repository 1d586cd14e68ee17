"""A capture's compressed file form, what :meth:`Capture.save <kernelviz.model.Capture.save>` writes (``.kvz``):
xz holding the capture's JSON (:meth:`~kernelviz.model.Capture.to_json`'s) on its first line, then (in a second xz
stream, which xz reads as the rest of the same data) the raw bytes of the values that JSON holds in base64 (recorded
inputs, the repro records' arguments and expected outputs), each distinct value once and named in the JSON as
``{"bytes": [start, end]}`` of that tail. Raw bytes compress where base64 does not, and a value recorded twice (a
graph's input and its repro's argument) is kept once: a training step with repros takes about a sixth of its JSON.
Lossless: reading it back gives the capture ``to_json()`` wrote, value for value (``xz -dc step.kvz | head -1``
shows that JSON with the byte spans). Files of one stream (kernelviz before) read the same way."""

from __future__ import annotations

import base64
import binascii
import lzma
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .codec import dumps, loads, read, read_text, without_gc, write_atomically
from .model import CaptureError

SUFFIX = ".kvz"
MAGIC = b"\xfd7zXZ\x00"  # an xz stream's first bytes
# The JSON: xz's preset 1 (~15 MB/s here) with a dictionary wide enough that a kernel's source meets its copy in the
# graph's code, and a stage its like in the next kernel, MBs away (85% of preset 0's size on a GPU capture with stages)
FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 1, "dict_size": 16 << 20}]
# The recorded values after it, a stream of their own: numbers of 4 or 8 bytes, whose bytes are coded by their place
# in a number rather than by the byte before (lc/lp/pb) at preset 5 (~1 MB/s on random floats): 85% of what preset 0
# takes of a CPU training step's values
VALUES = [{"id": lzma.FILTER_LZMA2, "preset": 5, "dict_size": 16 << 20, "lc": 1, "lp": 2, "pb": 2}]
_SPAN = "bytes"


def save(capture: Any, path: str | Path) -> Path:
    """:meth:`Capture.save <kernelviz.model.Capture.save>`: the capture's compressed form at ``path``.kvz, or its
    JSON text where ``path`` ends in ``.json``; ``path``.rank<N>.kvz (.json) on a rank of a torch.distributed job.
    The path written."""
    from .arguments import path as checked

    base = Path(checked("Capture.save", "path", path))
    suffix = ".json" if base.suffix == ".json" else SUFFIX
    if base.suffix in (".json", SUFFIX):
        base = base.with_suffix("")
    target = base.parent / f"{base.name}{'' if capture.rank is None else f'.rank{capture.rank}'}{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = capture.to_json()  # what load() reads back: refused here, in one line, where it would not be
    write_atomically(target, text if suffix == ".json" else compress(loads(text)))
    return target


def from_bytes(cls: type, data: str | bytes, expected: str) -> Any:
    """``cls`` from its compressed form or its JSON text (:func:`kernelviz.codec.read_text`)."""
    if not isinstance(data, (bytes, bytearray)) or not is_compressed(data):
        return read_text(cls, data, expected)
    with without_gc():
        return read(cls, decompress(data))


def load_file(cls: type, path: Path) -> Any:
    """``cls`` from a ``.kvz`` file; a one-line :class:`CaptureError` naming the file otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CaptureError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return from_bytes(cls, data, "a kernelviz capture")
    except CaptureError as exc:
        raise CaptureError(f"{path}: {exc}") from None


def is_compressed(data: bytes) -> bool:
    """Whether ``data`` is this form (else it is JSON text)."""
    return data[: len(MAGIC)] == MAGIC


class Tail:
    """The raw bytes of base64 values, each distinct value once (what follows the JSON line)."""

    def __init__(self) -> None:
        self.data, self._at = bytearray(), {}

    def span(self, text: str) -> list[int] | None:
        """``[start, end]`` of the bytes ``text`` encodes, added where new; None for text that is not base64 as
        :func:`base64.b64encode` writes it (kept as text, so nothing changes)."""
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
        if base64.b64encode(raw).decode() != text:
            return None
        if raw not in self._at:
            self._at[raw] = [len(self.data), len(self.data) + len(raw)]
            self.data += raw
        return self._at[raw]


def compress(data: dict[str, Any], *, filters: list[dict[str, Any]] = FILTERS,
             values: list[dict[str, Any]] = VALUES, tail: Tail | None = None) -> bytes:
    """The compressed form of a capture's JSON data (:meth:`~kernelviz.model.Capture.to_dict`'s), which this
    changes: its base64 values become spans of the tail (``tail``: one that holds more already). Two xz streams, one
    after the other (which every xz reader reads as one): the JSON line with ``filters``, the tail with ``values``."""
    tail = Tail() if tail is None else tail
    for holder, key in base64_values(data):
        span = tail.span(holder[key])
        if span is not None:
            holder[key] = {_SPAN: span}
    return xz(dumps(data).encode() + b"\n", filters) + (xz(bytes(tail.data), values) if tail.data else b"")


# Data past this many bytes is compressed in parts of this size, at once on the machine's cores (lzma lets other
# threads run): xz streams one after the other, which every xz reader reads as one (a part's dictionary does not
# reach into the part before, which costs a few % of the size of a capture whose stages take tens of MB)
PART_BYTES = 8 << 20


def xz(data: bytes, filters: list[dict[str, Any]] = FILTERS) -> bytes:
    """``data`` as xz with a CRC32 check (which every xz reader knows; the panel's reads no CRC64): one stream, or
    one a part where it is longer than ``PART_BYTES`` (the same bytes wherever it is compressed)."""
    parts = [data[at : at + PART_BYTES] for at in range(0, len(data), PART_BYTES)] or [data]
    if len(parts) == 1:
        return _stream(data, filters)
    with ThreadPoolExecutor(min(len(parts), os.cpu_count() or 1)) as pool:
        return b"".join(pool.map(lambda part: _stream(part, filters), parts))


def _stream(data: bytes, filters: list[dict[str, Any]]) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=filters)


def decompress(data: bytes) -> dict[str, Any]:
    """The capture's JSON data from its compressed form; a one-line :class:`CaptureError` where it is not one."""
    return restored(*split(data))


def restored(out: Any, tail: bytes) -> Any:
    """``out``, the JSON line of this form (:func:`split`), with its byte spans base64 of the ``tail`` again."""
    for holder, key in base64_values(out):
        span = holder[key]
        if isinstance(span, dict):
            start, end = _span(span, len(tail))
            holder[key] = base64.b64encode(tail[start:end]).decode()
    return out


def split(data: bytes) -> tuple[Any, bytes]:
    """The JSON line of an xz stream of this form, read, and the tail after it; one-line :class:`CaptureError`s."""
    try:
        whole = lzma.decompress(data, format=lzma.FORMAT_XZ)
    except (lzma.LZMAError, EOFError) as exc:
        raise CaptureError(f"a damaged or truncated compressed capture ({exc})") from None
    line, _, tail = whole.partition(b"\n")
    try:
        return loads(line), tail
    except ValueError as exc:
        raise CaptureError(f"a compressed capture whose JSON is not valid ({exc})") from None


def _span(value: dict[str, Any], size: int) -> tuple[int, int]:
    span = value.get(_SPAN)
    if (len(value) != 1 or not isinstance(span, list) or len(span) != 2 or not all(type(i) is int for i in span)
            or not 0 <= span[0] <= span[1] <= size):
        raise CaptureError(f"a compressed capture with a bad byte span ({str(value)[:60]})")
    return span[0], span[1]


def base64_values(data: Any) -> Iterator[tuple[dict[str, Any], str]]:
    """``(holder, key)`` of each base64 value a capture's JSON data holds: ``TensorSpec.values``, and in repro
    records ``ArgSpec.values`` and ``OutputCheck.data`` and ``sample``. Anything not shaped so is passed over
    (the model's reader names what is wrong)."""
    for graph in _dicts(data.get("graphs") if isinstance(data, dict) else None):
        yield from _keys(_dicts(graph.get("inputs")), ("values",))
        for record in [graph.get("repro"), *(k.get("repro") for k in _dicts(graph.get("kernels")))]:
            if isinstance(record, dict):
                yield from _keys(_dicts(record.get("args")), ("values",))
                yield from _keys(_dicts(record.get("expected")), ("data", "sample"))


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _keys(holders: list[dict[str, Any]], keys: tuple[str, ...]) -> Iterator[tuple[dict[str, Any], str]]:
    for holder in holders:
        for key in keys:
            if isinstance(holder.get(key), (str, dict)):
                yield holder, key

