"""Find the kernels an output-code module defines with ``NAME = async_compile.KIND(...)``."""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from ..model import Kernel
from .comments import parse_origin
from .literals import parse_call_kwargs

# "NAME = async_compile.KIND(...": found by its literal part (a regex anchored at ^ tries every position,
# ~15x slower); the name is the rest of the line before it (see _definitions).
_DEFINE = re.compile(r" = async_compile\.(\w+)\((.*)$", re.M)
_NAME = re.compile(r"\w+")
_TRIPLE = re.compile(r"""[rR]?('''|\"\"\")""")
_DECORATOR = re.compile(r"@triton_heuristics\.(\w+)\(")  # at a line's start: see _at_line_start

KINDS = {"triton": "triton", "cpp_pybinding": "cpp", "cpp": "cpp"}
KNOWN = {"triton", "cpp_pybinding", "cpp", "cuda", "rocm", "halide", "metal", "mps", "pallas",
         "multi_kernel", "size_hint_multi_kernel", "cutedsl", "nv_universal_gemm"}


@dataclass
class Definition:
    """Where a kernel definition sits in the output code (0-based line numbers, end exclusive)."""

    kernel: Kernel
    first_line: int
    end_line: int


def find_kernels(text: str, lines: list[str], line_starts: list[int], warnings: list[str]) -> list[Definition]:
    """Every kernel definition in module order, each once, with its comment metadata."""
    found: list[Definition] = []
    seen: set[str] = set()
    for m in _DEFINE.finditer(text):
        first = line_of(line_starts, m.start())
        name, method, rest = text[line_starts[first] : m.start()], m.group(1), m.group(2)
        if not _NAME.fullmatch(name):
            continue
        if found and first < found[-1].end_line:
            continue  # inside the previous kernel's source
        source, end = name, first + 1
        q = _TRIPLE.search(rest)
        if q:
            open_at = m.start(2) + q.end()
            close_at = text.find(q.group(1), open_at)
            if close_at < 0:
                warnings.append(f"kernel {name}: unterminated source string; kept the line as raw text")
                source = lines[first]
            else:
                source = text[open_at:close_at].lstrip("\n")
                end = line_of(line_starts, close_at) + 1
        else:
            source = lines[first]
        if name in seen:
            continue
        seen.add(name)
        if method not in KNOWN:
            warnings.append(f"kernel {name}: unknown kernel kind async_compile.{method}; kept as raw text")
        kernel = Kernel(name=name, kind=KINDS.get(method, method), source=source)
        _read_comments(kernel, lines, first)
        try:
            if method == "triton":
                read_triton(kernel)
            elif kernel.kind == "cpp" and q:
                kernel.arg_types = ast.literal_eval(rest[: q.start()].rstrip().rstrip(","))
        except (SyntaxError, ValueError, AssertionError, TypeError, MemoryError, RecursionError) as exc:
            warnings.append(f"kernel {name}: could not read its metadata ({type(exc).__name__}); kept as raw text")
        warnings += _unexpected_metadata(kernel)
        found.append(Definition(kernel, first, end))
    return found


def _unexpected_metadata(kernel: Kernel) -> list[str]:
    """Metadata of a shape Inductor never writes is left out (a line says so): what a capture keeps must mean what
    its fields say and load back from its JSON."""
    said = []
    for field in ("triton_meta", "inductor_meta"):
        value = getattr(kernel, field)
        if value is not None and not isinstance(value, dict):
            setattr(kernel, field, None)
            said.append(f"kernel {kernel.name}: its {field} is not a dict ({type(value).__name__}); left out")
    types = kernel.arg_types
    if types is not None and not (isinstance(types, list) and all(isinstance(t, str) for t in types)):
        kernel.arg_types = None
        said.append(f"kernel {kernel.name}: its argument types are not a list of strings; left out")
    return said


def line_of(line_starts: list[int], offset: int) -> int:
    """The 0-based line of a character offset, given each line's first offset."""
    return bisect.bisect_right(line_starts, offset) - 1


def _read_comments(kernel: Kernel, lines: list[str], def_line: int) -> None:
    start = def_line
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    origin = parse_origin(lines[start:def_line])
    kernel.path = origin.path
    if origin.found:
        kernel.metadata_from = "comment"
        kernel.source_nodes, kernel.original_aten = origin.source_nodes, origin.original_aten
        kernel.node_mapping, kernel.fragment = origin.node_mapping, origin.fragment


def _at_line_start(text: str, literal: str, start: int = 0) -> int:
    """Where ``literal`` first starts a line of ``text`` at or after ``start``, or -1 (``str.find``: a regex
    anchored at ``^`` tries every position, ~10x slower)."""
    at = text.find(literal, start)
    while at > 0 and text[at - 1] != "\n":
        at = text.find(literal, at + 1)
    return at


def read_triton(kernel: Kernel) -> None:
    """A Triton kernel's kind and metadata, from its ``@triton_heuristics`` decorator."""
    deco, at = None, _at_line_start(kernel.source, "@triton_heuristics.")
    while at >= 0 and not (deco := _DECORATOR.match(kernel.source, at)):
        at = _at_line_start(kernel.source, "@triton_heuristics.", at + 1)
    if not deco:
        return
    kernel.kernel_type = deco.group(1)
    if kernel.kernel_type == "template":
        kernel.kind = "triton_template"
    end = _at_line_start(kernel.source, ")\n@triton.jit", deco.end())
    if end < 0:
        raise ValueError("decorator end")
    meta = parse_call_kwargs(kernel.source[deco.end() - 1 : end + 1])
    kernel.triton_meta = meta.get("triton_meta")
    kernel.inductor_meta = meta.get("inductor_meta")
    if "size_hints" in meta and isinstance(kernel.inductor_meta, dict):
        kernel.inductor_meta.setdefault("size_hints", meta["size_hints"])
