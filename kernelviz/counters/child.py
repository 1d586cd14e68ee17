"""The process Nsight Compute profiles: ``ncu ... python -m kernelviz.counters.child JOB``.

JOB is a JSON file ``{"capture": ..., "launches": [[launch index, ...] per graph]}``. Each graph's code is
loaded and its ``call()`` run once on inputs made as the repro scripts make them (``Graph.repro``'s specs
where recorded, else the timing's recreated inputs): that run compiles and autotunes, unprofiled. A second
run profiles only the chosen launches: each runs inside an NVTX range ``kv<graph>:<launch>`` between
``cudaProfilerStart``/``Stop`` (ncu runs with ``--profile-from-start off``), so every kernel it launches,
a cuBLAS call's too, is tagged with its launch. Before each it prints ``kernelviz-counters enter G I``
(progress), and ``kernelviz-counters skip G reason`` for a graph it cannot run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from pathlib import Path

MARK = "kernelviz-counters"


def say(*words: object) -> None:
    print(MARK, *(str(w).replace("\n", " ") for w in words), flush=True)


def _inputs(graph):
    from ..bench.inputs import recreate
    from ..repro.harness import make_args

    rec = graph.repro
    if rec is not None and rec.error is None and rec.args:
        return make_args([dataclasses.asdict(a) for a in rec.args])
    return recreate(graph)[0]


@contextlib.contextmanager
def _profiled(g: int, index: int):
    """Launch ``index`` of graph ``g`` profiled, inside its NVTX range."""
    import torch

    say("enter", g, index)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(f"kv{g}:{index}")
    torch.cuda.profiler.start()
    try:
        yield
    finally:
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        torch.cuda.nvtx.range_pop()


def main(path: str) -> int:
    import torch

    from ..bench.errors import one_line
    from ..bench.measure import load_instrumented, namespace
    from ..model import Capture

    job = json.loads(Path(path).read_text())
    capture = Capture.from_dict(job["capture"])
    say("ready")
    for g, (graph, wanted) in enumerate(zip(capture.graphs, job["launches"])):
        wanted = set(wanted)
        try:
            inst = load_instrumented(graph, namespace(graph, None))
            with torch.no_grad():
                inst.call(list(_inputs(graph)))  # compiles and autotunes, unprofiled
                torch.cuda.synchronize()
                inst.set_range(lambda index, g=g, wanted=wanted:
                               _profiled(g, index) if index in wanted else contextlib.nullcontext())
                inst.call(list(_inputs(graph)))
                torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - this graph's launches say why; the next graph goes on
            say("skip", g, one_line(exc))
            if "CUDA error" in str(exc):
                return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
