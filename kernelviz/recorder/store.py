"""Per-kernel metadata kept on disk beside Inductor's caches, so that a cache hit in a new process
still has it.

A graph compiled under a capture has its ``define_kernel`` metadata written to
``<Inductor cache dir>/kernelviz/v1/<aa>/<key>.json``, keyed by the hash of the module's code (the
code an FX-graph-cache hit loads is byte-identical to the code its miss generated). Inductor's own
entries are never touched, so a cache shared with processes that do not use kernelviz stays valid.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field

FORMAT = "v2"  # v2: the node names of each stack trace (v1 entries are passed over: regenerated once)


@dataclass
class KernelRecord:
    """Inductor's own metadata for one ``define_kernel`` call."""

    name: str
    metadata: str  # get_kernel_metadata's first string (the "Source Nodes" line)
    detail: str  # its second string (mapping and graph fragment)
    stack_traces: list[str] = field(default_factory=list)
    # per stack trace: a node that carried it in the graph Inductor was given and in dynamo's (see .traces)
    trace_nodes: list[list[str | None]] = field(default_factory=list)


def folder() -> str:
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return os.path.join(cache_dir(), "kernelviz", FORMAT)


def _path(key: str) -> str:
    return os.path.join(folder(), key[:2], key + ".json")


def save(key: str, records: list[KernelRecord]) -> None:
    """Write the records of one module (atomically: a reader sees the old file or the new one)."""
    path = _path(key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump([dataclasses.asdict(r) for r in records], f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def load(key: str) -> list[KernelRecord] | None:
    """The stored records of one module, or None where there are none (or they do not read)."""
    try:
        with open(_path(key), encoding="utf-8") as f:
            data = json.load(f)
        return [KernelRecord(str(r["name"]), str(r["metadata"]), str(r["detail"]),
                             [str(t) for t in r["stack_traces"]],
                             [[None if n is None else str(n) for n in names] for names in r["trace_nodes"]])
                for r in data]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, ImportError):
        return None
