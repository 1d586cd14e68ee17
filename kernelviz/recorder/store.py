"""Per-kernel metadata kept on disk beside Inductor's caches, so that a cache hit in a new process
still has it.

A graph compiled while kernelviz's hooks are in has its ``define_kernel`` metadata, Inductor's fusion decisions and
what was autotuned while lowering it written to ``<Inductor cache dir>/kernelviz/v3/<aa>/<key>.json``, keyed by the
hash of the module's code (the code an FX-graph-cache hit loads is byte-identical to the code its miss generated);
a later hit adds the nodes of the dynamo graph it came from (:func:`save_dynamo_nodes`, see :mod:`.traces`).
Inductor's own entries are never touched, so a cache shared with processes that do not use kernelviz stays valid.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..codec import build, dumps, write_atomically
from ..model import CaptureError, FusionDecision, Tuning

FORMAT = "v3"  # v3: the nodes of each stack trace per dynamo graph (entries of other formats are passed over)
MAX_DYNAMO_GRAPHS = 16  # the dynamo graphs a record keeps nodes of (the latest stored)


@dataclass
class KernelRecord:
    """Inductor's own metadata for one ``define_kernel`` call."""

    name: str
    metadata: str  # get_kernel_metadata's first string (the "Source Nodes" line)
    detail: str  # its second string (mapping and graph fragment)
    stack_traces: list[str] = field(default_factory=list)
    # per stack trace: a node that carried it in the graph Inductor was given (see .traces)
    trace_nodes: list[str | None] = field(default_factory=list)
    # per dynamo graph the module was reached from (by .traces.graph_key): per stack trace, a node that carried it
    dynamo_nodes: dict[str, list[str | None]] = field(default_factory=dict)
    ops: list[str] = field(default_factory=list)  # the scheduler nodes it holds ("op3"), to place fusion decisions
    source: str = ""  # a Triton kernel's source under cpp_wrapper, where the module holds only its compiled binary


@dataclass
class FxGraph:
    """The FX graph Inductor was given for one module, as code (:mod:`.fxgraph`), and its static inputs (the
    module's parameters and buffers)."""

    code: str  # "" where it could not be written
    static: list[int] = field(default_factory=list)


def folder() -> str:
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return os.path.join(cache_dir(), "kernelviz", FORMAT)


def _path(key: str) -> str:
    return os.path.join(folder(), key[:2], key + ".json")


def save(key: str, records: list[KernelRecord], fusions: list[FusionDecision] = (), tunings: list[Tuning] = (),
         graph: str | None = None) -> None:
    """Write the records of one module, what was tuned while lowering it and AOTAutograd's name of its graph
    (atomically: a reader sees the old file or the new one)."""
    path = Path(_path(key))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, dumps({"kernels": [dataclasses.asdict(r) for r in records], "fusions": list(fusions),
                                  "tunings": list(tunings), "graph": graph}))


def save_dynamo_nodes(key: str, records: list[KernelRecord]) -> None:
    """Add the records' nodes of dynamo graphs to the module's stored records (those stored meanwhile by another
    process kept, up to :data:`MAX_DYNAMO_GRAPHS` per record, the latest)."""
    data = _read(key)
    if data is None or len(data.get("kernels", ())) != len(records):
        return
    for stored, record in zip(data["kernels"], records):
        merged = {**stored.get("dynamo_nodes", {}), **record.dynamo_nodes}
        stored["dynamo_nodes"] = dict(list(merged.items())[-MAX_DYNAMO_GRAPHS:])
    write_atomically(Path(_path(key)), dumps(data))


def _read(key: str) -> dict[str, Any] | None:
    try:
        with open(_path(key), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, ImportError):
        return None
    return data if isinstance(data, dict) else None


def load(key: str) -> list[KernelRecord] | None:
    """The stored records of one module, or None where there are none (or they do not read)."""
    try:
        return [KernelRecord(str(r["name"]), str(r["metadata"]), str(r["detail"]),
                             [str(t) for t in r["stack_traces"]],
                             _names(r["trace_nodes"]),
                             {str(graph): _names(names) for graph, names in r["dynamo_nodes"].items()},
                             [str(o) for o in r.get("ops", [])], str(r.get("source", "")))
                for r in _read(key)["kernels"]]
    except (TypeError, KeyError, AttributeError):
        return None


def _names(names: list[Any]) -> list[str | None]:
    return [None if n is None else str(n) for n in names]


def load_graph_name(key: str) -> str | None:
    """AOTAutograd's name of the module's graph ("0_forward"), where it was stored."""
    name = (_read(key) or {}).get("graph")
    return name if isinstance(name, str) else None


def _load_list(key: str, name: str, kind: type) -> list | None:
    try:
        return build(list[kind], _read(key)[name])
    except (TypeError, KeyError, CaptureError):
        return None


def load_fusions(key: str) -> list[FusionDecision] | None:
    """The stored fusion decisions of one module, or None where none were stored (or they do not read)."""
    return _load_list(key, "fusions", FusionDecision)


def load_tunings(key: str) -> list[Tuning] | None:
    """What was stored as autotuned while lowering one module, or None where nothing was stored."""
    return _load_list(key, "tunings", Tuning)


def _fx_path(key: str) -> str:
    return os.path.join(folder(), key[:2], key + ".fx.json")


def save_fx(key: str, graph: FxGraph) -> None:
    """Write the FX graph of one module (atomically)."""
    path = Path(_fx_path(key))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, dumps(dataclasses.asdict(graph)))


def load_fx(key: str) -> FxGraph | None:
    """The stored FX graph of one module, or None where none was stored (or it does not read)."""
    try:
        with open(_fx_path(key), encoding="utf-8") as f:
            data = json.load(f)
        return FxGraph(str(data["code"]), [int(i) for i in data["static"]])
    except (OSError, ValueError, TypeError, KeyError):
        return None
