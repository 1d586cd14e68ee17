"""What Triton compiled each kernel to: TTIR, TTGIR, LLVM IR, PTX and SASS of the launcher that ran, each
line linked to the kernel source lines it comes from, with registers, spills, shared memory and occupancy.

When a capture is built, ``stage_jobs(graph, compiled)`` takes what it needs from the live kernel objects
and ``read_in_background`` reads the stages in a thread (the capture ends at once; what shows or saves it
waits, and a capture's reading begins only then); what it finds is kept in ``Kernel.ir``, so a saved capture shows
it without a GPU or CUDA's tools.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from ..live import module_globals
from ..model import Graph, Kernel, KernelIR
from .cpu import cpu_jobs
from .lines import guess_file, links, stage_positions, unlinked_note
from .occupancy import DeviceLimits, device_limits, occupancy
from .stages import (
    FILE_STAGES,
    OPTION_KEYS,
    StageError,
    batches,
    binary_folder,
    cache_roots,
    disassemble,
    disassemble_batch,
    disassemble_bytes,
    folder_key,
    keep,
    read_stage,
)

__all__ = ["StageJob", "StageReading", "read_stages", "stage_jobs", "read_in_background", "kernel_ir", "kernel_facts"]
_WORKERS = min(16, os.cpu_count() or 4)  # groups of cubins, a disassembler process each
_LINKERS = 4  # threads reading and linking stages: Python holds the GIL there, more would only queue for it


class StageJob(NamedTuple):
    """One kernel whose binary facts are read (``ir``, already its ``Kernel.ir``) and whose stages' texts are left
    to read: ``texts()`` gives those of Triton's files, the tool each came from, and notes on what is missing;
    ``sass()`` the disassembler's command and SASS (or raises :class:`StageError` saying why there is none)."""

    kernel: Kernel
    ir: KernelIR
    texts: Callable[[], tuple[dict[str, str], dict[str, str], list[str]]]
    cubin: bytes | Path | None = None  # its binary, disassembled with others first (``stages.batches``)
    sass: Callable[[], tuple[str, str]] | None = None


def read_stages(graph: Graph, compiled: Any = None) -> None:
    """Fill ``Kernel.ir`` for the Triton kernels of a CUDA graph from its live module. Never raises:
    what cannot be read is said in ``KernelIR.notes`` (or in a graph warning)."""
    read_jobs(stage_jobs(graph, compiled))


def stage_jobs(graph: Graph, compiled: Any = None) -> list[StageJob]:
    """Read the binary facts of a CUDA graph's Triton kernels from its live module into ``Kernel.ir`` now
    (registers, spills, shared memory, occupancy, compile options: what timing, repros and findings use; no tool
    runs), while it is loaded (and while this thread's ``TRITON_CACHE_DIR`` is the one it ran with); the jobs
    that read their stages' texts. Never raises (a graph warning or a kernel's notes say why not)."""
    if graph.device == "cpu":  # C++ kernels: their assembly (ir/cpu.py)
        return [StageJob(*job) for job in cpu_jobs(graph, compiled)]
    kernels = [k for k in graph.kernels if k.kind.startswith("triton")]
    if graph.device != "cuda" or not kernels or graph.package is not None:  # a package's: read from its cubins
        return []
    if graph.wrapper == "cpp":
        return _cubin_jobs(graph, kernels)
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
        try:
            kernel.ir, job = kernel_facts(kernel, obj, limits,
                                          cache_roots(device if isinstance(device, int) else 0, seen))
        except Exception as exc:  # noqa: BLE001 - one kernel's failure must not lose the others
            kernel.ir, job = KernelIR(notes=[f"stages not read: {type(exc).__name__}: {exc}"]), None
        if job is not None:
            jobs.append(job)
    return jobs


_LOAD = re.compile(r'(\w+) = loadKernel\("([^"]+)", "(\w+)", (\d+)')  # the C++ wrapper loads a Triton binary


def _cubin_jobs(graph: Graph, kernels: list[Kernel]) -> list[StageJob]:
    """Under cpp_wrapper no Triton launcher is in the module: each kernel's SASS (and PTX, where it lies beside it)
    from the cubin the C++ wrapper loads, its shared memory from the load."""
    loads = {m.group(1): (Path(m.group(2)), int(m.group(4))) for m in _LOAD.finditer(graph.code)}
    jobs = []
    for kernel in kernels:
        if kernel.name not in loads:
            kernel.ir = KernelIR(notes=["under cpp_wrapper: no loadKernel of this kernel's binary in the C++ wrapper"])
            continue
        cubin, shared = loads[kernel.name]
        kernel.ir = KernelIR(shared_bytes=shared, notes=[
            f"under cpp_wrapper: the stages of the cubin the C++ wrapper loads ({cubin.name}); no Triton launcher "
            "is in the module, so registers, spills and the stages before PTX are not read"])

        def texts(cubin: Path = cubin) -> tuple[dict[str, str], dict[str, str], list[str]]:
            ptx = cubin.with_suffix(".ptx")
            found = {"ptx": ptx.read_text(errors="replace")} if ptx.is_file() else {}
            return found, {stage: str(ptx) for stage in found}, []

        jobs.append(StageJob(kernel, kernel.ir, texts, cubin, lambda cubin=cubin: disassemble(cubin)))
    return jobs


def read_jobs(jobs: list[StageJob], go: threading.Event | None = None) -> None:
    """Read the stages' texts of :func:`stage_jobs`' kernels, each once ``go`` is set where one is given: their
    cubins disassembled a group at a time (a process per group, all at once) while Triton's files are read and
    linked, each kernel's SASS linked as soon as its group's is kept."""
    def batch(parts: list) -> None:
        if go is not None:
            go.wait()
        disassemble_batch(parts)

    def one(job: StageJob, before: Future | None) -> None:
        if go is not None:
            go.wait()
        notes = _add_file_stages(job)
        if before is not None:
            before.exception()  # its group disassembled (or failed: its own run follows)
        if go is not None:
            go.wait()
        if notes is not None:
            _add_sass(job, notes)

    waits: list[Future | None] = [None] * len(jobs)
    try:
        groups = batches([job.cubin for job in jobs], _WORKERS)
    except Exception:  # noqa: BLE001 - merging only saves time: each kernel is then disassembled alone
        groups = []
    with ThreadPoolExecutor(max(1, len(groups))) as disassembling, ThreadPoolExecutor(_LINKERS) as linking:
        for group in groups:
            future = disassembling.submit(batch, [part for _, part in group])
            for position, _ in group:
                waits[position] = future
        list(linking.map(one, jobs, waits))


class StageReading:
    """The stages' texts of a capture's kernels being read in a thread of its own, so that the capture ends at
    once: :meth:`result` waits for them (what shows or saves the capture does: ``LiveCapture.wait_stages``),
    :meth:`paused` holds the reading back meanwhile (the timing does: its CPU figures stay the capture's own)."""

    def __init__(self, jobs: list[StageJob], held: bool = False) -> None:
        self._go = threading.Event()  # ``held``: none begins before :meth:`result`
        if not held:
            self._go.set()
        self._done = threading.Event()
        self._error: BaseException | None = None
        threading.Thread(target=self._read, args=(jobs,), name="kernelviz-stages", daemon=True).start()

    def _read(self, jobs: list[StageJob]) -> None:
        """The reading, once let go: until then only this daemon thread waits, which never holds the interpreter's
        exit (a process that ends without showing or saving its capture never reads its stages)."""
        try:
            self._go.wait()
            read_jobs(jobs, self._go)
        except BaseException as exc:  # noqa: BLE001 - raised in whoever waits
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> None:
        self._go.set()
        self._done.wait()
        if self._error is not None:
            raise self._error

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No kernel's texts begin to be read inside the block (those begun finish); a reading not yet begun stays
        so."""
        begun = self._go.is_set()
        self._go.clear()
        try:
            yield
        finally:
            if begun:
                self._go.set()


def read_in_background(jobs: list[StageJob], held: bool = False) -> StageReading | None:
    """:class:`StageReading` of ``jobs``; None where there is nothing to read."""
    return StageReading(jobs, held) if jobs else None


def _add_texts(job: StageJob) -> None:
    """The stages of one kernel, with their links to its source lines, into its ``KernelIR``."""
    notes = _add_file_stages(job)
    if notes is not None:
        _add_sass(job, notes)


def _add_file_stages(job: StageJob) -> list[str] | None:
    """The stages of Triton's files of one kernel, linked, into its ``KernelIR``; the notes on what is missing
    (None where its texts could not be read at all, which its notes say)."""
    try:
        texts, tools, notes = job.texts()
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not lose the others
        job.ir.notes.append(f"stages not read: {type(exc).__name__}: {exc}")
        return None
    job.ir.file = job.ir.file or guess_file(texts.get("ttir", ""))
    for stage, text in texts.items():
        _add_stage(job, stage, text, tools[stage])
    return notes


def _add_sass(job: StageJob, notes: list[str]) -> None:
    """The kernel's SASS, linked (or a note on why there is none), then ``notes`` first in its ``KernelIR.notes``
    and a note on SASS lines that link nowhere, where many do."""
    if job.sass is not None:
        try:
            tool, text = job.sass()
            _add_stage(job, "sass", text, tool)
        except StageError as exc:
            notes.append(str(exc))
    job.ir.notes[:0] = notes
    if note := unlinked_note(job.ir.stages):
        job.ir.notes.insert(len(notes), note)


def _add_stage(job: StageJob, stage: str, text: str, tool: str) -> None:
    ir = job.ir
    lines, helpers = links(stage_positions(stage, text), ir.file, ir.line_offset, len(job.kernel.source.splitlines()))
    ir.stages.append(keep(stage, text, lines, tool=tool, helpers=helpers))


def kernel_ir(kernel: Kernel, obj: Any, limits: DeviceLimits | None, roots: list[str] | None = None) -> KernelIR:
    """The stages and binary facts of ``obj``, the live kernel object (a CachingAutotuner) of ``kernel``
    (:func:`kernel_facts`, then the stages' texts)."""
    ir, job = kernel_facts(kernel, obj, limits, roots)
    if job is not None:
        _add_texts(job)
    return ir


def kernel_facts(kernel: Kernel, obj: Any, limits: DeviceLimits | None,
                 roots: list[str] | None = None) -> tuple[KernelIR, StageJob | None]:
    """The binary facts of ``obj``, the live kernel object (a CachingAutotuner) of ``kernel``, and the job that reads
    its stages' texts (None where there are none to read): from the binary in memory where the launcher holds it
    (Triton's own launcher), else from Triton's cache folder in ``roots`` (Inductor's static launcher keeps none).
    Registers, spills, shared memory and occupancy come from the launcher whether or not the stages are found."""
    ir = KernelIR()
    launchers = getattr(obj, "launchers", None) or []
    if len(launchers) != 1:
        ir.notes.append(f"{len(launchers)} launchers: the kernel has not run (autotuning picks one when it does): "
                        "run the compiled code inside the capture to see what it compiled to")
        return ir, None
    launcher = launchers[0]
    ir.num_regs, ir.num_spills, ir.shared_bytes = (_int(getattr(launcher, a, None)) for a in ("n_regs", "n_spills",
                                                                                              "shared"))
    ir.cache_hash = getattr(launcher, "cache_hash", None)
    ir.file = getattr(obj, "filename", None)
    ir.line_offset = _line_offset(ir.file, kernel.source)
    meta, job = _source(kernel, _binary(obj, launcher, ir.cache_hash), ir, roots)
    ir.options = {k: meta[k] for k in OPTION_KEYS if k in meta}
    warps = meta.get("num_warps") or getattr(getattr(launcher, "config", None), "num_warps", None)
    if limits is not None and isinstance(warps, int) and warps > 0 and ir.num_regs is not None:
        shared = ir.shared_bytes if ir.shared_bytes is not None else _int(meta.get("shared")) or 0
        ir.occupancy = occupancy(limits, num_warps=warps, regs=ir.num_regs, shared=shared)
    elif limits is None:
        ir.notes.append("occupancy unknown: the device's limits could not be read")
    return ir, job


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


def _source(kernel: Kernel, binary: Any, ir: KernelIR, roots: list[str] | None) -> tuple[dict, StageJob | None]:
    """Triton's metadata of the launcher's binary and the job that reads its stages' texts (None where they cannot
    be found, said in ``ir.notes``)."""
    name, asm = kernel.name, getattr(binary, "asm", None)
    if asm is not None and isinstance(asm.get("ttir"), str):  # Triton's launcher: the binary in memory
        def in_memory() -> tuple[dict[str, str], dict[str, str], list[str]]:
            texts = {stage: asm[stage] for stage in FILE_STAGES if isinstance(asm.get(stage), str)}
            notes = [f"no {stage} in Triton's compiled kernel" for stage in FILE_STAGES if stage not in texts]
            return texts, {stage: "Triton's compiled kernel" for stage in texts}, notes

        def sass() -> tuple[str, str]:
            if not isinstance(cubin, bytes):
                raise StageError("no SASS: Triton's compiled kernel holds no cubin")
            return disassemble_bytes(cubin, name)

        cubin = asm.get("cubin")
        return _as_dict(getattr(binary, "metadata", None)), StageJob(
            kernel, ir, in_memory, cubin if isinstance(cubin, bytes) else None, sass)
    if not ir.cache_hash:
        ir.notes.append("this torch's launcher does not say which Triton binary it runs (no cache_hash)")
        return {}, None
    try:
        folder, meta = binary_folder(ir.cache_hash, name, roots)
    except StageError as exc:
        ir.notes.append(str(exc))
        return {}, None

    def in_cache() -> tuple[dict[str, str], dict[str, str], list[str]]:
        texts, notes = {}, []
        for stage in FILE_STAGES:
            try:
                texts[stage] = read_stage(folder, name, stage)
            except StageError as exc:
                notes.append(str(exc))
        return texts, {stage: "Triton's cache" for stage in texts}, notes

    cubin = folder / f"{name}.cubin"
    return meta, StageJob(kernel, ir, in_cache, cubin, lambda: disassemble(cubin))


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
