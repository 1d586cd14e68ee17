"""What a launch computes, as far as a capture tells: the evidence the matcher compares.

Names carry counters (``triton_poi_fused_add_3`` in one compile is ``_5`` in the next), so a launch is
described by what survives a recompile: the FX source nodes and original ATen ops it came from, the
shapes and dtypes of its graph fragment or of the buffers it reads and writes, the ops its name lists,
and its source text with its own name taken out (and, more loosely, every number too).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..model import Graph, Launch
from ..names import aten_op

_NUMBER = re.compile(r"\d+")
_NUMBERED = re.compile(r"\b\w*\d\w*\b")  # identifiers and literals with digits: buffers, counters, sizes
_NAMED = re.compile(r"\b[A-Za-z_]\w*\d\w*\b")  # identifiers with digits: buffers and inputs
_NAME_STOP = {"", "triton", "poi", "red", "per", "tem", "for", "fused", "cpp", "kernel", "extern", "kernels",
              "torch", "ops", "aten", "prims", "default", "run"}
_JIT = "@triton.jit"
_CPP_NAME = re.compile(r'(extern "C"[^(]*?)\w+\(')
_WORD = re.compile(r"\w")
_SEPARATOR = re.compile(r"[_.]")


@dataclass(frozen=True)
class Work:
    """One launch of ``call()`` as the matcher sees it."""

    index: int
    name: str
    kind: str  # the kernel's kind, or "extern"
    nodes: frozenset[str]  # FX source nodes
    aten: frozenset[str]  # original ATen ops
    words: frozenset[str]  # the ops named by the kernel's (or extern op's) name and by its ATen ops
    fragment: Counter  # (dtype, shape) of the fragment's nodes (empty without metadata)
    buffers: Counter  # ("r" or "w", dtype, shape) of the buffers read and written
    body: str | None  # the kernel's source from @triton.jit on, its own name replaced
    skeleton: str  # body (or an extern call's text) with every number and numbered name replaced
    position: float  # index / (launches - 1)
    returns: bool = False  # writes a buffer that call() returns
    call: str = ""  # an extern call's text with its buffers' names replaced (its sizes and strides kept)


@lru_cache(maxsize=1 << 14)
def words(name: str) -> frozenset[str]:
    """``triton_per_fused__log_softmax_nll_loss_2`` -> {log, softmax, nll, loss}; ``aten.addmm`` -> {addmm}."""
    return frozenset(w for w in _SEPARATOR.split(name) if w not in _NAME_STOP and not w.isdigit())


def describe(graph: Graph, skeletons: dict[str, str] | None = None) -> list[Work]:
    """The :class:`Work` of every launch of ``graph``, in call() order (what a kernel's source says is read
    once per kernel, however often it is launched); ``skeletons`` (body -> skeleton), shared by the graphs
    of one diff, reads a body that both sides hold once."""
    skeletons = {} if skeletons is None else skeletons
    kernels = {k.name: k for k in graph.kernels}
    specs = buffer_specs(graph)
    last = max(1, len(graph.launches) - 1)
    outputs = set(graph.outputs)
    sources: dict[str, tuple] = {}
    word_sets: dict[tuple, frozenset] = {}
    out = []
    for launch in graph.launches:
        kernel = kernels.get(launch.kernel_name or "")
        call = ""
        if kernel is not None:
            if kernel.name not in sources:
                sources[kernel.name] = _source(kernel, skeletons)
            body, skeleton, fragment = sources[kernel.name]
        else:
            text = launch.text.split(" = ", 1)[-1]
            body, skeleton, call, fragment = None, _NUMBERED.sub("#", text), _NAMED.sub("#", text), Counter()
        buffers = Counter([("r", *specs[n]) for n in launch.reads if n in specs]
                          + [("w", *specs[n]) for n in launch.writes if n in specs])
        aten = frozenset(launch.original_aten)
        named = (_bare(launch), aten)
        if named not in word_sets:
            word_sets[named] = frozenset(words(named[0]).union(*(words(op) for op in aten)))
        out.append(Work(
            index=launch.index, name=launch.name, kind=kernel.kind if kernel else "extern",
            nodes=frozenset(launch.source_nodes), aten=aten, words=word_sets[named],
            fragment=fragment, buffers=buffers, body=body, skeleton=skeleton, position=launch.index / last,
            returns=bool(outputs.intersection(launch.writes)), call=call))
    return out


def _source(kernel, skeletons: dict[str, str]) -> tuple[str, str, Counter]:
    """A kernel's body from ``@triton.jit`` on (its own name replaced), that body with every number
    replaced (from ``skeletons`` where it was read before), and the (dtype, shape) of its fragment's nodes."""
    body = kernel.source[_jit(kernel.source):].replace(kernel.name, "KERNEL")
    if kernel.kind == "cpp":  # the Python wrapper's C++ kernel is named "kernel", the C++ wrapper's by its own name
        body = _CPP_NAME.sub(r"\1KERNEL(", body, count=1)
    if body not in skeletons:
        skeletons[body] = _NUMBER.sub("#", body)
    fragment = Counter((n.dtype or "", tuple(n.shape)) for n in kernel.fragment_nodes()
                       if n.op != "output" and n.shape is not None)
    return body, skeletons[body], fragment


def _jit(source: str) -> int:
    """Where the first line that starts with the word ``@triton.jit`` starts (0 where none does)."""
    at = source.find(_JIT)
    while at != -1:
        end = at + len(_JIT)
        if (at == 0 or source[at - 1] == "\n") and not (end < len(source) and _WORD.match(source, end)):
            return at
        at = source.find(_JIT, end)
    return 0


def _bare(launch: Launch) -> str:
    """A generated kernel's name, or an extern call's op (a C++ wrapper's ``aoti_torch_cpu_addmm_out``: ``addmm``,
    as the Python wrapper's ``extern_kernels.addmm``)."""
    op = launch.op or ""
    return launch.kernel_name or (aten_op(op) if op.startswith("aoti_torch_") else op.rsplit(".", 1)[-1])


def buffer_specs(graph: Graph) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Buffer, input and package constant name -> (dtype, shape), following reuses to the allocation they take
    over."""
    specs = {s.name: (s.dtype or "", tuple(s.shape)) for s in graph.inputs if s.shape is not None}
    for c in graph.package.constants if graph.package is not None else []:  # a package's weights: not inputs
        if c.shape is not None:
            specs.setdefault(c.name, (c.dtype or "", tuple(map(str, c.shape))))
    for event in graph.memory:
        if event.kind == "alloc" and event.shape is not None:
            specs.setdefault(event.buffer, (event.dtype or "", tuple(event.shape)))
        elif event.kind == "reuse" and event.source in specs:
            specs.setdefault(event.buffer, specs[event.source])
    return specs


def jaccard(x, y) -> float | None:
    """Overlap of two sets, or of two multisets (Counters); None where either is empty."""
    if not x or not y:
        return None
    if isinstance(x, (set, frozenset)):
        return len(x & y) / len(x | y)
    common = sum(min(n, y[k]) for k, n in x.items() if k in y)
    return common / (sum(x.values()) + sum(y.values()) - common)


def within(x, y) -> float | None:
    """The part of set ``x`` that ``y`` holds too; None where either is empty."""
    if not x or not y:
        return None
    return len(x & y) / len(x)
