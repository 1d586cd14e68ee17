"""The candidate changes a what-if measures, chosen from the capture: each only for the graphs where it can apply,
with the exact patch a user applies, in the order of what it is expected to save (the time budget runs them in
that order). What they change when compiled is plain data (a config patch, a setting, a layout), carried to the
timing process as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args

from ..model import Capture, Graph, WhatIfKind

_GEMM_OPS = ("mm", "addmm", "bmm", "baddbmm", "convolution", "_convolution")
_MATMUL_OPS = ("mm", "addmm", "bmm", "baddbmm", "matmul", "linear")
EXTERN_SHARE = 0.1  # max-autotune: where extern GEMMs and convolutions hold at least this share of a graph's time


@dataclass
class Candidate:
    """One change: its kind, what it is and the line(s) that apply it; what the timing process compiles under it
    (``config``: ``torch._inductor.config`` values; ``tf32``: fp32 matmuls in TF32; ``channels_last``: 4-D inputs
    in channels-last; ``freeze``: the graph's parameters made constants, under ``config["freezing"]``);
    ``transform``: ``"module:function"``, a function given the ``torch.fx.GraphModule`` that rewrites it before the
    compile (a change of the graph itself)."""

    kind: WhatIfKind
    change: str
    patch: str
    config: dict[str, Any] = field(default_factory=dict)
    tf32: bool = False
    channels_last: bool = False
    freeze: bool = False
    transform: str | None = None
    graphs: list[int] = field(default_factory=list)  # where it applies (indices in Capture.graphs)
    reason: str | None = None  # why it cannot run anywhere (one line)


def _ops(graph: Graph) -> list[str]:
    """The ATen op of each extern call (``extern_kernels.addmm`` -> ``addmm``)."""
    return [launch.op.rsplit(".", 1)[-1] for launch in graph.launches if launch.op]


def _share(graph: Graph, ops: tuple[str, ...]) -> float | None:
    """The share of the graph's in-graph time in extern calls of ``ops`` (None: not timed)."""
    times = [(launch, launch.timing.in_graph_ms) for launch in graph.launches
             if launch.timing is not None and launch.timing.in_graph_ms is not None]
    total = sum(ms for _, ms in times)
    if not times or total <= 0:
        return None
    return sum(ms for launch, ms in times if launch.op and launch.op.rsplit(".", 1)[-1] in ops) / total


def _in_cudagraphs(graph: Graph) -> bool:
    return graph.cudagraph_replays > 0 or any(e.kind != "skip" for e in graph.cudagraphs)


def _fp32(graph: Graph) -> bool:
    return any(spec.dtype == "float32" for spec in graph.inputs)


# kind -> (what it is, patch, config, where it applies: graph -> None, or why not)
def _cudagraphs(graph: Graph) -> str | None:
    if graph.device != "cuda":
        return "CUDA graphs run on a GPU"
    return "already runs as CUDA graphs" if _in_cudagraphs(graph) else None


def _cpp_wrapper(graph: Graph) -> str | None:
    return "already has a C++ wrapper" if graph.wrapper == "cpp" else None


def _tf32(graph: Graph) -> str | None:
    if graph.device != "cuda":
        return "TF32 is a GPU's"
    if not _fp32(graph):
        return "no float32 inputs"
    return None if any(op in _MATMUL_OPS for op in _ops(graph)) else "no fp32 matmul in the graph"


def _max_autotune(graph: Graph) -> str | None:
    if graph.device != "cuda":
        return "on the CPU: see cpp_gemm_template"
    if not any(op in _GEMM_OPS for op in _ops(graph)):
        return "no extern GEMM or convolution"
    share = _share(graph, _GEMM_OPS)
    if share is not None and share < EXTERN_SHARE:
        return f"extern GEMMs and convolutions hold {share:.0%} of its time (under {EXTERN_SHARE:.0%})"
    return None


def _coordinate_descent(graph: Graph) -> str | None:
    if graph.device != "cuda":
        return "tunes Triton kernels (a GPU's)"
    return None if any(launch.kernel_name for launch in graph.launches) else "no Triton kernel"


def _channels_last(graph: Graph) -> str | None:
    if not any(op in ("convolution", "_convolution") for op in _ops(graph)):
        return "no convolution"
    if not any(spec.shape is not None and len(spec.shape) == 4 for spec in graph.inputs):
        return "no 4-D input"
    return None


def _freezing(graph: Graph) -> str | None:
    if graph.device != "cpu":
        return "measured on the CPU only"
    if graph.kind != "inference":
        return "freezing is for inference graphs (run under torch.no_grad())"
    return None if graph.fx_static else "no parameters among its inputs"


def _cpp_gemm(graph: Graph) -> str | None:
    if graph.device != "cpu":
        return "C++ GEMM templates are the CPU's"
    return None if any(op in ("mm", "addmm", "bmm") for op in _ops(graph)) else "no extern GEMM"


_KINDS: dict[str, tuple[str, str, dict[str, Any], Any]] = {
    "cudagraphs": ("run it as CUDA graphs (reduce-overhead)", 'torch.compile(model, mode="reduce-overhead")',
                   {"triton.cudagraphs": True}, _cudagraphs),
    "cpp_wrapper": ("a C++ wrapper instead of Python's (cpp_wrapper)", "torch._inductor.config.cpp_wrapper = True",
                    {"cpp_wrapper": True}, _cpp_wrapper),
    "tf32": ("fp32 matmuls in TF32", 'torch.set_float32_matmul_precision("high")', {}, _tf32),
    "max_autotune": ("max-autotune for its GEMMs and convolutions",
                     "torch._inductor.config.max_autotune = True", {"max_autotune": True}, _max_autotune),
    "coordinate_descent": ("coordinate-descent tuning of its Triton kernels",
                           "torch._inductor.config.coordinate_descent_tuning = True",
                           {"coordinate_descent_tuning": True}, _coordinate_descent),
    "channels_last": ("channels-last layout for its 4-D tensors",
                      "model = model.to(memory_format=torch.channels_last); "
                      "x = x.to(memory_format=torch.channels_last)", {}, _channels_last),
    "freezing": ("freezing: weights made constants (inference)",
                 "torch._inductor.config.freezing = True  # and run under torch.no_grad()", {"freezing": True},
                 _freezing),
    "cpp_gemm_template": ("max-autotune's C++ GEMM templates",
                          'torch._inductor.config.max_autotune = True; '
                          'torch._inductor.config.max_autotune_gemm_backends = "CPP,ATEN"',
                          {"max_autotune": True, "max_autotune_gemm_backends": "CPP,ATEN"}, _cpp_gemm),
}
# the order a budget runs them in: the largest savings seen first, the costliest compiles last
ORDER: tuple[str, ...] = ("cudagraphs", "tf32", "channels_last", "freezing", "cpp_wrapper", "cpp_gemm_template",
                          "max_autotune", "coordinate_descent")
NOT_MEASURED = {"launch_config": "a sweep of launch configurations (block sizes, warps, stages) is not measured by "
                                 "this kernelviz: try coordinate_descent, which tunes them for every Triton kernel"}


def make(kind: str) -> Candidate:
    """The candidate of ``kind`` for no graph yet."""
    change, patch, config, _ = _KINDS[kind]
    return Candidate(kind, change, patch, dict(config), tf32=kind == "tf32", channels_last=kind == "channels_last",
                     freeze=kind == "freezing")


def choose(capture: Capture, which: list[Any] | None = None) -> list[Candidate]:
    """The candidates for ``capture`` (``which``: kinds or :class:`Candidate` objects, default every kind), in
    :data:`ORDER`, each with the graphs where it applies, or why it applies to none (one line)."""
    if which is None:  # on a GPU the sweep of launch configurations too, which says why it is not measured
        which = [*ORDER, *(NOT_MEASURED if any(graph.device == "cuda" for graph in capture.graphs) else ())]
    out = []
    for item in which:
        candidate = item if isinstance(item, Candidate) else None
        kind = candidate.kind if candidate is not None else item
        if kind not in _KINDS and kind not in NOT_MEASURED:
            raise ValueError(f"whatif(): {kind!r} is not a candidate kind (one of {', '.join(get_args(WhatIfKind))})")
        if kind in NOT_MEASURED:
            out.append(Candidate(kind, "a sweep of launch configurations", "", reason=NOT_MEASURED[kind]))
            continue
        if candidate is None:
            candidate = make(kind)
        applies = _KINDS[kind][3]
        why: dict[str, list[str]] = {}
        candidate.graphs = []
        for i, graph in enumerate(capture.graphs):
            reason = _cannot(graph) or applies(graph)
            if reason is None:
                candidate.graphs.append(i)
            else:
                why.setdefault(reason, []).append(graph.id)
        if not candidate.graphs:
            candidate.reason = "; ".join(f"{', '.join(ids)}: {reason}" for reason, ids in why.items()) or "no graph"
        out.append(candidate)
    return out


def _cannot(graph: Graph) -> str | None:
    """Why no change can be compiled for this graph (one line), None where one can."""
    if graph.package is not None:
        return "an AOTInductor package (its FX graph is not in it)"
    if graph.fx is None:
        return ("its FX graph was not kept: compiled before kernelviz was imported beside torch, loaded from a cache "
                "kernelviz did not fill (capture the compile, with fresh_compile=True), or holding sub-graphs that "
                "cannot be written as code")
    return None
