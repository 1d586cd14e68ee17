"""Parse Inductor output code (the wrapper module it writes) into the kernelviz model."""

from __future__ import annotations

import re
from pathlib import Path

from ..model import Capture, CaptureError, Graph, Ranks
from .kernels import find_kernels
from .logs import unwrap
from .wrapper import read_call

_AOT_ID = re.compile(r"^# AOT ID: \['([^']*)'\]", re.M)
EXPECTED = ("expected Inductor output code: a Python module that defines kernels with "
            "async_compile.<backend>(...) and a call(args) wrapper (as saved by TORCH_COMPILE_DEBUG, "
            "TORCH_LOGS=output_code or tlparse)")


class ParseError(CaptureError):
    """The input is not Inductor output code."""


def parse_graph(text: str, graph_id: str | None = None) -> Graph:
    """Parse one output-code module. Unknown parts are kept as raw text with a warning."""
    if "\x00" in text:
        raise ParseError(f"binary data, not text; {EXPECTED}")
    lines = text.splitlines()
    starts, pos = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(pos)
        pos += len(line)
    warnings: list[str] = []
    definitions = find_kernels(text, lines, starts, warnings)
    skip = {i for d in definitions for i in range(d.first_line, d.end_line)}
    kernels = {d.kernel.name: d.kernel for d in definitions}
    body = read_call(lines, kernels, skip, warnings)
    if not definitions and body.span is None:
        raise ParseError(f"found no kernels and no call(args); {EXPECTED}")
    if body.span is None:
        warnings.append("no call(args) wrapper found: launches are unknown")
    aot = _AOT_ID.search(text)
    gid = graph_id or (aot.group(1) if aot else "graph")
    kind = next((k for k in ("forward", "backward", "inference") if aot and aot.group(1).endswith(k)), "unknown")
    return Graph(id=gid, kind=kind, device=_device(text, body.device, kernels), code=text,
                 kernels=list(kernels.values()), launches=body.launches, memory=body.memory,
                 inputs=body.inputs, outputs=body.outputs, call_span=body.span, warnings=warnings)


def _device(text: str, alloc_device: str | None, kernels: dict) -> str:
    if m := re.search(r"device_str='(\w+)'", text):
        return m.group(1)
    if alloc_device:
        return alloc_device
    if any(k.kind == "cpp" for k in kernels.values()):
        return "cpu"
    return "cuda" if "empty_strided_cuda(" in text else "cpu"


def split_modules(text: str) -> list[str]:
    """Split text holding several modules (a TORCH_LOGS=output_code log) at each ``# AOT ID`` line."""
    marks = [m.start() for m in _AOT_ID.finditer(text)]
    if len(marks) <= 1:
        return [text]
    return [text[a:b] for a, b in zip(marks, marks[1:] + [len(text)])]


def load(source: str | Path) -> Capture | Ranks:
    """A :class:`Capture` from a capture's JSON file, or from saved output code: a file, a directory of
    them, or the code text itself; a :class:`Ranks` from the files ``source.rank<N>.json`` of a job's ranks."""
    if isinstance(source, Path) or ("\n" not in source and len(source) < 4096):
        path = Path(source)
        if not path.exists():
            from ..ranks import load_ranks, rank_files

            if rank_files(path):
                return load_ranks(path)
        if path.suffix == ".json" and path.is_file():
            return Capture.from_json(_read(path))
        if path.is_dir():
            files = sorted(p for p in path.rglob("*.py") if "async_compile" in _read(p))
            if not files:
                raise ParseError(f"{path}: no Inductor output code in this directory; {EXPECTED}")
            return Capture(graphs=[g for p in files for g in _graphs(_read(p), p.stem)])
        if not path.is_file():
            raise ParseError(f"{path}: no such file; {EXPECTED}")
        return Capture(graphs=_graphs(_read(path), path.stem))
    return Capture(graphs=_graphs(source, None))


def _graphs(text: str, name: str | None) -> list[Graph]:
    modules = split_modules(unwrap(text) or text)
    return [parse_graph(m, name if len(modules) == 1 and not _AOT_ID.search(m) else None) for m in modules]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ParseError(f"{path}: not UTF-8 text; {EXPECTED}") from None
