"""What Triton compiled each kernel to: TTIR, TTGIR, LLVM IR, PTX and SASS of the launcher that ran, each
line linked to the kernel source lines it comes from, with registers, spills, shared memory and occupancy.

When a capture is built, ``stage_jobs(graph, compiled)`` takes what it needs from the live kernel objects
and ``read_in_background`` reads the stages in a thread (the capture ends at once; what shows or saves it
waits); what it finds is kept in ``Kernel.ir``, so a saved capture shows it without a GPU or CUDA's tools.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..live import module_globals
from ..model import Graph, Kernel, KernelIR
from .lines import guess_file, stage_lines, to_source
from .occupancy import DeviceLimits, device_limits, occupancy
from .stages import FILE_STAGES, OPTION_KEYS, StageError, binary_folder, disassemble, keep, read_stage

__all__ = ["read_stages", "stage_jobs", "read_in_background", "kernel_ir"]
_WORKERS = min(16, os.cpu_count() or 4)  # the SASS disassembler runs as a process per kernel


def read_stages(graph: Graph, compiled: Any = None) -> None:
    """Fill ``Kernel.ir`` for the Triton kernels of a CUDA graph from its live module. Never raises:
    what cannot be read is said in ``KernelIR.notes`` (or in a graph warning)."""
    read_jobs(stage_jobs(graph, compiled))


def stage_jobs(graph: Graph, compiled: Any = None) -> list[tuple[Kernel, Any, DeviceLimits | None]]:
    """What reading the stages of a CUDA graph's Triton kernels needs from its live module, taken while it
    is loaded: ``(kernel, kernel object, device limits)``. Never raises (a graph warning says why not)."""
    kernels = [k for k in graph.kernels if k.kind.startswith("triton")]
    if graph.device != "cuda" or not kernels:
        return []
    try:
        namespace = module_globals(graph, compiled)
        limits = device_limits(0)
    except Exception as exc:  # noqa: BLE001 - stages are extra: the capture must still be built
        graph.warnings.append(f"compiled stages not read: {type(exc).__name__}: {exc}")
        return []
    if namespace is None:
        graph.warnings.append("compiled stages not read: the graph's compiled module is not loaded in this process")
        return []
    return [(k, namespace.get(k.name), limits) for k in kernels]


def read_jobs(jobs: list[tuple[Kernel, Any, DeviceLimits | None]]) -> None:
    """Read the stages of :func:`stage_jobs`' kernels (the SASS disassembler runs as a process per kernel)."""
    with ThreadPoolExecutor(_WORKERS) as pool:
        for (kernel, _, _), ir in zip(jobs, pool.map(lambda job: _safely(*job), jobs)):
            kernel.ir = ir


def read_in_background(jobs: list[tuple[Kernel, Any, DeviceLimits | None]]) -> Future | None:
    """:func:`read_jobs` in a thread of its own, so that a capture ends at once; None where there is nothing
    to read. What shows or saves the capture waits for it (``Capture.wait_stages``)."""
    if not jobs:
        return None
    runner = ThreadPoolExecutor(1, thread_name_prefix="kernelviz-stages")
    try:
        return runner.submit(read_jobs, jobs)
    finally:
        runner.shutdown(wait=False)


def _safely(kernel: Kernel, obj: Any, limits: DeviceLimits | None) -> KernelIR:
    try:
        return kernel_ir(kernel, obj, limits)
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not lose the others
        return KernelIR(notes=[f"stages not read: {type(exc).__name__}: {exc}"])


def kernel_ir(kernel: Kernel, obj: Any, limits: DeviceLimits | None) -> KernelIR:
    """The stages and binary facts of ``obj``, the live kernel object (a CachingAutotuner) of ``kernel``."""
    ir = KernelIR()
    launchers = getattr(obj, "launchers", None) or []
    if len(launchers) != 1:
        ir.notes.append(f"{len(launchers)} launchers: the kernel has not run (autotuning picks one when it does): "
                        "run the compiled code inside the capture to see what it compiled to")
        return ir
    launcher = launchers[0]
    ir.num_regs, ir.num_spills, ir.shared_bytes = (_int(getattr(launcher, a, None)) for a in ("n_regs", "n_spills",
                                                                                              "shared"))
    ir.cache_hash = getattr(launcher, "cache_hash", None)
    ir.file = getattr(obj, "filename", None)
    ir.line_offset = _line_offset(ir.file, kernel.source)
    if not ir.cache_hash:
        ir.notes.append("this torch's launcher does not say which Triton binary it runs (no cache_hash)")
        return ir
    try:
        folder, meta = binary_folder(ir.cache_hash, kernel.name)
    except StageError as exc:
        ir.notes.append(str(exc))
        return ir
    ir.options = {k: meta[k] for k in OPTION_KEYS if k in meta}
    texts: dict[str, str] = {}
    for stage in FILE_STAGES:
        try:
            texts[stage] = read_stage(folder, kernel.name, stage)
        except StageError as exc:
            ir.notes.append(str(exc))
    tools = {stage: "Triton's cache" for stage in texts}
    try:
        tools["sass"], texts["sass"] = disassemble(folder / f"{kernel.name}.cubin")
    except StageError as exc:
        ir.notes.append(str(exc))
    ir.file = ir.file or guess_file(texts.get("ttir", ""))
    count = len(kernel.source.splitlines())
    for stage, text in texts.items():
        lines = to_source(stage_lines(stage, text, ir.file), ir.line_offset, count) if ir.file else []
        ir.stages.append(keep(stage, text, lines or [[] for _ in text.splitlines()], tool=tools[stage]))
    warps = meta.get("num_warps") or getattr(getattr(launcher, "config", None), "num_warps", None)
    if limits is not None and warps and ir.num_regs is not None:
        ir.occupancy = occupancy(limits, num_warps=int(warps), regs=ir.num_regs,
                                 shared=ir.shared_bytes if ir.shared_bytes is not None else int(meta.get("shared", 0)))
    elif limits is None:
        ir.notes.append("occupancy unknown: the device's limits could not be read")
    return ir


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


def _line_offset(path: str | None, source: str) -> int:
    """Lines of the kernel's module before the source kernelviz shows (Inductor writes one blank line)."""
    try:
        with open(path or "", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return 1
    at = text.find(source)
    return text.count("\n", 0, at) if at >= 0 else 1
