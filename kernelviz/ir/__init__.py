"""What Triton compiled each kernel to: TTIR, TTGIR, LLVM IR, PTX and SASS of the launcher that ran, each
line linked to the kernel source lines it comes from, with registers, spills, shared memory and occupancy.

When a capture is built, ``stage_jobs(graph, compiled)`` takes what it needs from the live kernel objects
and ``read_in_background`` reads the stages in a thread (the capture ends at once; what shows or saves it
waits); what it finds is kept in ``Kernel.ir``, so a saved capture shows it without a GPU or CUDA's tools.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

from ..live import module_globals
from ..model import Graph, Kernel, KernelIR
from .lines import guess_file, helper_lines, stage_lines, stage_positions, to_source, unlinked_note
from .occupancy import DeviceLimits, device_limits, occupancy
from .stages import (
    FILE_STAGES,
    OPTION_KEYS,
    StageError,
    binary_folder,
    cache_roots,
    disassemble,
    disassemble_bytes,
    folder_key,
    keep,
    read_stage,
)

__all__ = ["StageJob", "read_stages", "stage_jobs", "read_in_background", "kernel_ir"]
_WORKERS = min(16, os.cpu_count() or 4)  # the SASS disassembler runs as a process per kernel


class StageJob(NamedTuple):
    """What reading one kernel's stages needs, taken while its compiled module is loaded."""

    kernel: Kernel
    obj: Any  # the live kernel object (a CachingAutotuner)
    limits: DeviceLimits | None
    roots: list[str]  # Triton cache folders to look in, first the likeliest (stages.cache_roots)


def read_stages(graph: Graph, compiled: Any = None) -> None:
    """Fill ``Kernel.ir`` for the Triton kernels of a CUDA graph from its live module. Never raises:
    what cannot be read is said in ``KernelIR.notes`` (or in a graph warning)."""
    read_jobs(stage_jobs(graph, compiled))


def stage_jobs(graph: Graph, compiled: Any = None) -> list[StageJob]:
    """What reading the stages of a CUDA graph's Triton kernels needs from its live module, taken while it
    is loaded (and while this thread's ``TRITON_CACHE_DIR`` is the one it ran with). Never raises (a graph
    warning says why not)."""
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
    seen = os.environ.get("TRITON_CACHE_DIR")
    jobs = []
    for kernel in kernels:
        obj = namespace.get(kernel.name)
        meta = getattr(obj, "triton_meta", None)
        device = meta.get("device", 0) if isinstance(meta, dict) else 0
        jobs.append(StageJob(kernel, obj, limits, cache_roots(device if isinstance(device, int) else 0, seen)))
    return jobs


def read_jobs(jobs: list[StageJob]) -> None:
    """Read the stages of :func:`stage_jobs`' kernels (the SASS disassembler runs as a process per kernel)."""
    with ThreadPoolExecutor(_WORKERS) as pool:
        for job, ir in zip(jobs, pool.map(_safely, jobs)):
            job.kernel.ir = ir


def read_in_background(jobs: list[StageJob]) -> Future | None:
    """:func:`read_jobs` in a thread of its own, so that a capture ends at once; None where there is nothing
    to read. What shows or saves the capture waits for it (``Capture.wait_stages``)."""
    if not jobs:
        return None
    runner = ThreadPoolExecutor(1, thread_name_prefix="kernelviz-stages")
    try:
        return runner.submit(read_jobs, jobs)
    finally:
        runner.shutdown(wait=False)


def _safely(job: StageJob) -> KernelIR:
    try:
        return kernel_ir(job.kernel, job.obj, job.limits, job.roots)
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not lose the others
        return KernelIR(notes=[f"stages not read: {type(exc).__name__}: {exc}"])


def kernel_ir(kernel: Kernel, obj: Any, limits: DeviceLimits | None, roots: list[str] | None = None) -> KernelIR:
    """The stages and binary facts of ``obj``, the live kernel object (a CachingAutotuner) of ``kernel``: the
    stages from the binary in memory where the launcher holds it (Triton's own launcher), else from Triton's
    cache folder in ``roots`` (Inductor's static launcher keeps none). Registers, spills, shared memory and
    occupancy come from the launcher whether or not the stages are found."""
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
    texts, tools, meta = _texts(kernel.name, _binary(obj, launcher, ir.cache_hash), ir, roots)
    ir.options = {k: meta[k] for k in OPTION_KEYS if k in meta}
    ir.file = ir.file or guess_file(texts.get("ttir", ""))
    count = len(kernel.source.splitlines())
    for stage, text in texts.items():
        positions = stage_positions(stage, text)
        lines = to_source(stage_lines(stage, text, ir.file, positions), ir.line_offset, count) if ir.file else []
        ir.stages.append(keep(stage, text, lines or [[] for _ in text.splitlines()], tool=tools[stage],
                              helpers=helper_lines(positions, ir.file)))
    if note := unlinked_note(ir.stages):
        ir.notes.append(note)
    warps = meta.get("num_warps") or getattr(getattr(launcher, "config", None), "num_warps", None)
    if limits is not None and isinstance(warps, int) and warps > 0 and ir.num_regs is not None:
        shared = ir.shared_bytes if ir.shared_bytes is not None else _int(meta.get("shared")) or 0
        ir.occupancy = occupancy(limits, num_warps=warps, regs=ir.num_regs, shared=shared)
    elif limits is None:
        ir.notes.append("occupancy unknown: the device's limits could not be read")
    return ir


def _binary(obj: Any, launcher: Any, cache_hash: str | None) -> Any:
    """Triton's compiled kernel (with its stages in ``asm``) behind the launcher, where this process holds it:
    the launcher's own (``store_cubin``), else the autotuner's compile result of the same binary; None for
    Inductor's static launcher, which keeps no stages."""
    if getattr(getattr(launcher, "bin", None), "asm", None) is not None:
        return launcher.bin
    for result in getattr(obj, "compile_results", None) or []:
        binary = getattr(result, "kernel", None)
        if getattr(binary, "asm", None) is not None and cache_hash is not None and (
                cache_hash in (getattr(binary, "hash", None), folder_key(getattr(binary, "hash", None)))):
            return binary
    return None


def _texts(name: str, binary: Any, ir: KernelIR, roots: list[str] | None) -> tuple[dict, dict, dict]:
    """The stages' texts, where each came from, and Triton's metadata of the launcher's binary; what is
    missing is said in ``ir.notes``."""
    asm = getattr(binary, "asm", None)
    texts: dict[str, str] = {}
    if asm is not None and isinstance(asm.get("ttir"), str):  # Triton's launcher: the binary in memory
        meta = _as_dict(getattr(binary, "metadata", None))
        texts = {stage: asm[stage] for stage in FILE_STAGES if isinstance(asm.get(stage), str)}
        tools = {stage: "Triton's compiled kernel" for stage in texts}
        ir.notes += [f"no {stage} in Triton's compiled kernel" for stage in FILE_STAGES if stage not in texts]
        cubin = asm.get("cubin")
        sass = (lambda: disassemble_bytes(cubin, name)) if isinstance(cubin, bytes) else None
    elif not ir.cache_hash:
        ir.notes.append("this torch's launcher does not say which Triton binary it runs (no cache_hash)")
        return {}, {}, {}
    else:
        try:
            folder, meta = binary_folder(ir.cache_hash, name, roots)
        except StageError as exc:
            ir.notes.append(str(exc))
            return {}, {}, {}
        for stage in FILE_STAGES:
            try:
                texts[stage] = read_stage(folder, name, stage)
            except StageError as exc:
                ir.notes.append(str(exc))
        tools = {stage: "Triton's cache" for stage in texts}
        sass = lambda: disassemble(folder / f"{name}.cubin")  # noqa: E731
    if sass is None:
        ir.notes.append("no SASS: Triton's compiled kernel holds no cubin")
    else:
        try:
            tools["sass"], texts["sass"] = sass()
        except StageError as exc:
            ir.notes.append(str(exc))
    return texts, tools, meta


def _as_dict(metadata: Any) -> dict:
    """Triton's metadata of a compiled kernel (a namedtuple, or a dict once pickled) as a dict."""
    if isinstance(metadata, dict):
        return metadata
    as_dict = getattr(metadata, "_asdict", None)
    return dict(as_dict()) if callable(as_dict) else {}


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
