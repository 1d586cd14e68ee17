"""The capture model: plain, typed, JSON-serialisable data that every front end reads.

A :class:`Capture` holds the graphs Inductor compiled; each :class:`Graph` holds its
kernels (each generated kernel once) and the launches of its wrapper's ``call()`` in order.
The methods a user calls are declared on these classes, each a short door into the module that does the work,
imported when called: this module imports nothing else of kernelviz's at import time. Reading and writing JSON
is :mod:`kernelviz.codec`'s.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

# The vocabularies of the model's fields: the values each may hold (the JSON reader refuses any other)
Clock = Literal["gpu", "cpu"]  # where a time was taken: device time (CUDA events), or the CPU's wall clock
Bound = Literal["memory", "compute", "latency", "communication"]  # what bounds a launch ("communication": a collective)
ArgKind = Literal["tensor", "int", "float", "bool", "none", "other"]
Fill = Literal["random", "zeros", "values"]  # how a repro fills a tensor argument ("values": the recorded bytes)
MetadataFrom = Literal["inductor", "comment", "none"]  # where a kernel's metadata came from: live hooks, output code
BufferKind = Literal["alloc", "reuse", "free"]
DynamoKind = Literal["graph_break", "recompile", "skip"]
GuardKind = Literal["", "size", "number", "type", "dtype", "other"]
TuningKind = Literal["template", "configs", "coordinate-descent", "user"]
CudaGraphKind = Literal["record", "re-record", "skip"]
Rule = Literal["launch-bound", "wrapper-overhead", "refused-fusion", "spills", "occupancy", "memory-bound",
               "latency-bound", "stall", "graph-break", "recompile", "skip", "cudagraph-skip"]
GraphKind = Literal["forward", "backward", "inference", "unknown", "jiterator"]
Wrapper = Literal["python", "cpp"]
Cache = Literal["compiled", "fx_cache_hit", "reused"]
WhatIfKind = Literal["cudagraphs", "cpp_wrapper", "tf32", "max_autotune", "coordinate_descent", "channels_last",
                     "launch_config", "freezing", "cpp_gemm_template"]
Verdict = Literal["same", "differs", "unchecked"]  # the outputs against the captured ones, within the dtype's tolerance

SCHEMA_VERSION = 4
# older files load with the fields added since left at their defaults (4 added Launch.counters,
# IRStage.helper_lines, fusion decisions, the graph as it runs, findings, SourceLocation.cell, DynamoEvent.cell
# and Kernel.locations_unknown); versions 1 and 2 held a kernel's graph fragment as parsed nodes, which load as
# the lines they were parsed from (see _upgraded)
READABLE_SCHEMAS = (1, 2, 3, 4)
MIME_TYPE = "application/vnd.kernelviz.v1+json"
_CPP_PARAMS = re.compile(r'extern "C"[^(]*\(([^)]*)\)', re.S)
# %name : Tensor "dtype[shape][stride]device"[num_users=N] = op[target=...](args): one regex for it all
_FRAGMENT = re.compile(r'^%(\w+) : (?:Tensor "(\w+)\[([^\]]*)\]\[([^\]]*)\]([^"]*)")?(.*?) = (\w+)\[target=(.*?)\]'
                       r"(?:\((.*)\))?$")
_USERS = re.compile(r"\[num_users=([0-9]+)\]")  # ASCII digits (\d would take any script's)


class CaptureError(ValueError):
    """Input that is not a kernelviz capture (or not one this version reads); the message is one line
    (line breaks in it, e.g. from a quoted value, are written as ``\\n``)."""

    def __init__(self, message: str):
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))


class Record:
    """What every class of the model written as JSON shares: the fields of its JSON that this kernelviz does not
    know (a newer one wrote them), kept by :mod:`kernelviz.codec` where it read them and written back with the
    others. Declared here, not as a dataclass field: it is never compared, shown, passed to ``__init__`` or
    given by ``dataclasses.asdict``; None (the class's value) where the JSON held no such field."""

    _other: dict[str, Any] | None = None


@dataclass
class SourceLocation(Record):
    """A line of the user's program that a kernel's nodes came from (FX stack trace)."""

    file: str
    line: int  # in a notebook cell: the line as the cell shows it
    function: str = ""
    code: str = ""
    cell: int | None = None  # the notebook cell's execution count (In [3]) where ``file`` is a cell

    def where(self) -> str:
        """``cell [3], line 6`` for a notebook cell, else ``file:line``."""
        return where(self.file, self.line, self.cell)


def where(file: str | None, line: int | None, cell: int | None) -> str:
    """A place in the user's code as they see it: ``cell [3], line 6`` in a notebook cell, else ``file:line``."""
    shown = "?" if line is None else line
    return f"cell [{cell}], line {shown}" if cell is not None else f"{file}:{shown}"


def split_list(text: str) -> list[str]:
    """The items of a comma-separated list as Inductor prints one ("a, b, c"), stripped, empty ones left out."""
    names, rest = text.split(", "), text.replace(", ", "")
    if names[-1] == "" and len(names) > 1:  # "64, ": a tuple of one
        names.pop()
    if "," in rest or rest.split() != [rest] or "" in names:  # not plainly "a, b, c": the general way
        return [n for n in map(str.strip, text.split(",")) if n]
    return names


@dataclass
class FragmentNode(Record):
    """One node of a kernel's graph fragment: a line of it (``Kernel.fragment``) read into its parts."""

    name: str
    op: str  # "placeholder", "call_function", "output", ...
    target: str = ""
    dtype: str | None = None
    shape: list[str] | None = None
    stride: list[str] | None = None
    device: str | None = None
    users: int | None = None
    args: str = ""
    text: str = ""  # the raw line, kept only where it could not be parsed

    @classmethod
    def from_line(cls, line: str) -> FragmentNode:
        """One ``%name : Tensor "f32[8, 64][64, 1]cpu"[num_users=2] = op[target=...](args = ...)`` line."""
        m = _FRAGMENT.match(line)
        if not m:
            if line.startswith("return "):
                return cls(name="output", op="output", args=line[len("return "):])
            return cls(name="?", op="unknown", text=line)
        name, dtype, shape, stride, device, rest, op, target, args = m.groups()
        users = _USERS.search(rest) if "num_users" in rest else None
        tensor = dtype is not None
        return cls(name=name, op="placeholder" if op == "PlaceHolder" else op, target=target, dtype=dtype,
                   shape=split_list(shape) if tensor else None, stride=split_list(stride) if tensor else None,
                   device=device or None, users=int(users.group(1)) if users else None, args=args or "")

    def line(self) -> str:
        """The line :meth:`from_line` reads back into this node (how schemas 1 and 2, which kept nodes, load)."""
        if self.op == "output":
            return f"return {self.args}"
        if self.op == "unknown":
            return self.text
        tensor = (f'Tensor "{self.dtype}[{", ".join(self.shape or [])}][{", ".join(self.stride or [])}]'
                  f'{self.device or ""}"' if self.dtype is not None else "")
        users = f"[num_users={self.users}]" if self.users is not None else ""
        op = "PlaceHolder" if self.op == "placeholder" else self.op
        return f"%{self.name} : {tensor}{users} = {op}[target={self.target}]" + (f"({self.args})" if self.args else "")


@functools.lru_cache(maxsize=1 << 16)
def _fragment_node(line: str) -> FragmentNode:
    """One fragment line read, once: the report, the links and the diff each read a kernel's fragment."""
    return FragmentNode.from_line(line)


@dataclass
class KernelTiming(Record):
    """Isolated timing of one generated kernel and facts of its compiled binary."""

    isolated_ms: float | None = None
    unit: Clock = "gpu"
    config: dict[str, Any] | None = None
    num_regs: int | None = None
    num_spills: int | None = None
    shared_bytes: int | None = None
    error: str | None = None
    # timing you can trust
    spread: float | None = None  # (p75 - p25) / median of the isolated samples
    samples: int | None = None  # how many isolated runs the median is of


@dataclass
class LaunchTiming(Record):
    """In-graph timing of one launch of ``call()``, and where it sits on the device's roofline."""

    in_graph_ms: float | None = None
    unit: Clock = "gpu"
    share: float | None = None
    bytes: int | None = None  # the bytes the rates use: bytes_estimate where Inductor gave one, else bytes_args
    gb_per_s: float | None = None  # achieved in the graph (may exceed DRAM peak when inputs sit in L2)
    pct_peak_bw: float | None = None  # of the DRAM peak, from an L2-flushed time; never above 100
    flops: float | None = None
    tflop_per_s: float | None = None
    pct_peak_flops: float | None = None  # of the compute peak for ``dtype``, from an L2-flushed time; <= 100
    device_kernels: list[str] = field(default_factory=list)
    error: str | None = None
    # roofline
    bound: Bound | None = None  # None where unknown
    dtype: str | None = None  # the dtype whose compute peak pct_peak_flops is taken against
    bytes_estimate: int | None = None  # Inductor's own estimate (kernel_num_gb)
    bytes_args: int | None = None  # the sizes of the tensor arguments (in_out counted twice)
    flushed_ms: float | None = None  # the L2-flushed time the % figures come from
    cache_resident: bool = False  # the in-graph rate is above the DRAM peak: inputs were in cache
    # timing you can trust
    spread: float | None = None  # (p75 - p25) / median of the in-graph samples (CPU wall clock)
    grid: int | None = None  # thread blocks launched (generated Triton kernels), for "latency"
    note: str | None = None  # what a figure is when it is not what it seems (a capped %, made-up values)


# --- deep inspection: compiled stages, occupancy, repro data -------------------------------


@dataclass
class IRStage(Record):
    """One compiled stage of a kernel (TTIR, TTGIR, LLVM IR, PTX, SASS), as text kept in the capture."""

    name: str  # "ttir", "ttgir", "llir", "ptx", "sass"
    text: str  # ends with a "truncated" line where ``truncated_bytes`` were left out
    bytes: int = 0  # size of the whole stage
    truncated_bytes: int = 0
    source_lines: list[list[int]] = field(default_factory=list)  # per kept line: kernel source lines (1-based)
    # per kept line: positions in helper modules inlined there ("triton_helpers.py:75"; schema 4), else empty
    helper_lines: list[list[str]] = field(default_factory=list)
    tool: str = ""  # where the text comes from: "Triton's cache" or the disassembler's command


@dataclass
class Occupancy(Record):
    """Theoretical blocks per SM of a kernel's launch config, and which resource limits it."""

    blocks_per_sm: int
    limited_by: str  # "registers", "shared memory", "threads", "blocks", or several joined by ", " on a tie
    by_registers: int
    by_shared_memory: int
    by_threads: int
    by_blocks: int | None  # None where the device's block limit is not known
    threads_per_block: int
    warps_per_sm: int  # active warps at that many blocks
    max_warps_per_sm: int
    device: str = ""  # the limits it was computed from, e.g. "65536 regs, 233472 B shared, 2048 threads per SM"


@dataclass
class KernelIR(Record):
    """What Triton compiled a kernel to: the chosen launcher's stages and binary facts."""

    cache_hash: str | None = None  # Triton's cache folder of the binary that ran
    file: str | None = None  # the kernel's module as the line information names it
    line_offset: int = 1  # line N of ``file`` is line N - line_offset of Kernel.source
    stages: list[IRStage] = field(default_factory=list)
    num_regs: int | None = None
    num_spills: int | None = None
    shared_bytes: int | None = None
    options: dict[str, Any] = field(default_factory=dict)  # Triton's compile metadata (num_warps, debug, arch...)
    occupancy: Occupancy | None = None
    notes: list[str] = field(default_factory=list)  # why a stage or a figure is missing, one line each


@dataclass
class ArgSpec(Record):
    """One argument of a recorded launch, enough to make an equivalent one in a repro script."""

    name: str
    kind: ArgKind
    value: Any = None  # scalars: the value; "other": its repr
    dtype: str | None = None
    shape: list[int] | None = None
    stride: list[int] | None = None
    offset: int = 0  # storage offset, in elements
    storage: int = 0  # elements of the underlying storage
    device: str | None = None
    fill: Fill = "random"
    values: str | None = None  # base64 of the storage's raw bytes, when fill == "values" (kept from the run)


@dataclass
class OutputCheck(Record):
    """The expected content of one output, from the captured kernel (or call()) run on the same inputs."""

    name: str
    dtype: str
    numel: int
    data: str | None = None  # base64 of the contiguous values (small outputs)
    sample: str | None = None  # else: base64 of values at evenly spaced flat positions, of dtype ``sample_dtype``
    sample_dtype: str | None = None  # None: float64 (a record from before the sample kept the output's dtype)
    total: float | None = None  # else: float64 sum and sum of absolute values
    abs_total: float | None = None


NOT_RECORDED = "repro not recorded"  # how a record, or a graph's warning, says why it holds no repro


@dataclass
class ReproRecord(Record):
    """A launch (or a call()) as the repro script replays it: arguments, expected outputs."""

    launch: int | None = None  # index of the launch it was recorded from (kernels)
    args: list[ArgSpec] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)  # constexpr values: the config's and Inductor's
    options: dict[str, Any] = field(default_factory=dict)  # compile options of the launch (num_warps, ...)
    expected: list[OutputCheck] = field(default_factory=list)
    grid: list[int] | None = None  # Triton kernels: the launch's grid
    error: str | None = None  # why no repro could be recorded


@dataclass
class Kernel(Record):
    """A kernel Inductor generated (defined once in the output code)."""

    name: str
    kind: str  # "triton", "triton_template", "cpp", or the async_compile method met
    source: str
    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    node_mapping: dict[str, list[str]] = field(default_factory=dict)  # source node -> ATen nodes
    fragment: list[str] = field(default_factory=list)  # the graph fragment: a list of its lines, a node each
    locations: list[SourceLocation] = field(default_factory=list)
    locations_unknown: str = ""  # why this run's lines of the kernel are unknown (then ``locations`` is empty)
    metadata_from: MetadataFrom = "none"
    path: str | None = None  # Inductor's "kernel path" comment
    kernel_type: str | None = None  # pointwise, reduction, persistent_reduction, template, ...
    triton_meta: dict[str, Any] | None = None
    inductor_meta: dict[str, Any] | None = None
    arg_types: list[str] | None = None  # C++ kernels: the pybinding argument types
    timing: KernelTiming | None = None
    # deep inspection
    ir: KernelIR | None = None
    repro: ReproRecord | None = None

    def fragment_nodes(self) -> list[FragmentNode]:
        """The graph fragment's lines read into nodes (the lines are what is kept; a line read before is read
        from a cache, so its node is shared: read it, do not change it)."""
        return [_fragment_node(line) for line in self.fragment]

    def _meta(self, key: str) -> Any:
        return self.inductor_meta.get(key) if isinstance(self.inductor_meta, dict) else None

    @property
    def num_load(self) -> int | None:
        return self._meta("num_load")

    @property
    def num_store(self) -> int | None:
        return self._meta("num_store")

    @property
    def num_reduction(self) -> int | None:
        return self._meta("num_reduction")

    @property
    def num_gb(self) -> float | None:
        return self._meta("kernel_num_gb")

    def params(self) -> list[str]:
        """Parameter names in call order (pointers and scalars, no constexprs): ``in_ptr0``, ``out_ptr1``..."""
        if isinstance(self.triton_meta, dict) and isinstance(self.triton_meta.get("signature"), dict):
            return [k for k, v in self.triton_meta["signature"].items() if v != "constexpr"]
        if self.kind == "cpp" and (m := _CPP_PARAMS.search(self.source)):
            return [p.strip().split()[-1].lstrip("*&") for p in m.group(1).split(",") if p.strip()]
        return []

    def to_repro(self) -> str:
        """A standalone script that launches this kernel alone on inputs like the recorded ones, checks its
        outputs and prints its time (see :mod:`kernelviz.repro`)."""
        from .repro import kernel_script

        return kernel_script(self)


# ranks: a torch.distributed collective among call()'s launches
@dataclass
class Collective(Record):
    """A collective that ``call()`` runs (``torch.ops._c10d_functional.*``): what it moves, over which group,
    and, once timed, its bus bandwidth (the launch's own timing holds its device time)."""

    op: str  # "all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "wait_tensor", ... (no "_", "_out")
    group: str | None = None  # the process group's name as call() passes it ("0": the default group)
    group_ranks: list[int] | None = None  # the group's global ranks, where the capture could resolve its name
    reduce_op: str | None = None  # "sum", "avg", ...
    # message size as nccl-tests counts it: the buffer (all_reduce, broadcast, all_to_all), the gathered
    # output (all_gather), the input that is scattered (reduce_scatter); None where a size is symbolic
    bytes: int | None = None
    waits_on: int | None = None  # wait_tensor: the index of the launch whose result it waits for
    algo_gb_per_s: float | None = None  # bytes / in-graph device time
    bus_gb_per_s: float | None = None  # algo_gb_per_s x NCCL's bus factor (2(n-1)/n all_reduce, (n-1)/n gathers)
    alone_bus_gb_per_s: float | None = None  # from the collective's time alone, back to back (as nccl-tests)
    wait_ms: float | None = None  # wait_tensor: how long the stream (GPU) or the thread (CPU) stood waiting


# hardware counters: what Nsight Compute measured of a launch
@dataclass
class StallShare(Record):
    """A warp-stall reason and its share of the launch's stalls (0 to 1)."""

    reason: str  # as Nsight Compute names it: "long_scoreboard", "barrier", "math_pipe_throttle", ...
    share: float


@dataclass
class LineCounters(Record):
    """One line of a kernel's source (``line``, 1-based in ``Kernel.source``), or one SASS instruction
    (``line`` is its offset in the function, as ``/*0a30*/`` in the SASS stage): what ran there."""

    line: int
    instructions: int = 0  # warp-level instructions executed
    stall_samples: int = 0  # warp-state samples taken there (the heat)
    top_stall: str | None = None  # the reason most of those samples stood for


@dataclass
class LaunchCounters(Record):
    """Counters of one launch measured under Nsight Compute (``cap.counters()``); for an extern call the
    sums over its device kernels (rates and shares weighted by their durations)."""

    duration_ms: float | None = None  # under ncu (its clocks are locked to base: slower than in the graph)
    dram_read_bytes: int | None = None
    dram_write_bytes: int | None = None
    l1_hit_rate: float | None = None  # % of L1 sectors that hit
    l2_hit_rate: float | None = None
    sm_pct: float | None = None  # SM (compute) throughput, % of speed of light
    memory_pct: float | None = None  # memory throughput (the busiest of DRAM, L1, L2), % of speed of light
    dram_pct: float | None = None  # DRAM throughput, % of its peak
    achieved_occupancy: float | None = None  # % of the warps an SM can hold
    theoretical_occupancy: float | None = None
    flops: float | None = None  # floating-point operations of CUDA cores (FMA counted twice); not tensor cores
    stalls: list[StallShare] = field(default_factory=list)  # the top reasons, largest first
    findings: list[str] = field(default_factory=list)  # NVIDIA's rule results, one line each
    lines: list[LineCounters] = field(default_factory=list)  # per line of Kernel.source (generated kernels)
    sass: list[LineCounters] = field(default_factory=list)  # per SASS instruction (line = offset)
    kernels: list[str] = field(default_factory=list)  # the device kernels measured
    tool: str = ""  # e.g. "Nsight Compute 2025.3.1"
    error: str | None = None  # why this launch was not measured

    @property
    def dram_bytes(self) -> int | None:
        if self.dram_read_bytes is None and self.dram_write_bytes is None:
            return None
        return (self.dram_read_bytes or 0) + (self.dram_write_bytes or 0)


@dataclass
class Launch(Record):
    """One step of ``call()`` that runs work: a generated-kernel launch or an extern call."""

    index: int
    step: int  # position among all of call()'s steps (launches and buffer events)
    kernel_name: str | None = None  # set for generated kernels
    op: str | None = None  # set for extern calls: "extern_kernels.addmm", "aten.convolution", ...
    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    line: int = 0  # 1-based line in the graph's output code
    text: str = ""
    timing: LaunchTiming | None = None
    collective: Collective | None = None  # ranks: set where the launch is a collective
    grid: list[int] | None = None  # deep inspection: the launch's grid, recorded while timing
    counters: LaunchCounters | None = None  # hardware counters, from cap.counters()

    @property
    def name(self) -> str:
        return self.kernel_name or self.op or "?"


@dataclass
class BufferEvent(Record):
    """A buffer allocation, reuse, view or free in ``call()``."""

    step: int
    kind: BufferKind
    buffer: str
    source: str | None = None  # reuse: the buffer whose memory is taken over
    dtype: str | None = None
    shape: list[str] | None = None
    stride: list[str] | None = None
    device: str | None = None
    nbytes: int | None = None  # None when the size is symbolic
    line: int = 0


@dataclass
class TensorSpec(Record):
    """An input of ``call()``: its name and, where the code asserts it, size and stride."""

    name: str
    shape: list[str] | None = None
    stride: list[str] | None = None
    dtype: str | None = None
    device: str | None = None
    recorded: bool = False  # shape/stride/dtype/device read from the real tensor when the graph ran
    values: str | None = None  # base64 of the raw bytes of a small integer/bool tensor kept from the run
    scalar: int | float | bool | None = None  # a non-tensor input's value (a symbolic size), kept from the run
    symbols: list[str] | None = None  # why: the code's size where it is symbolic (["s0", "64"]), kept
    #                                   where the recorded shape took its place


@dataclass
class DevicePeaks(Record):
    """The ceilings a roofline is drawn against, and where each number comes from."""

    device: str
    dram_gb_per_s: float | None = None
    tflops: dict[str, float] = field(default_factory=dict)  # dtype name ("bfloat16", "tf32", ...) -> dense peak
    source: str = ""  # e.g. "datasheet: NVIDIA H100 SXM5 80GB", "measured by kernelviz.calibrate()", "given"
    device_type: str = "cuda"  # the device type they are of: "cuda" (a GPU's) or "cpu" (measured once per machine)


@dataclass
class DynamoEvent(Record):
    """Something dynamo did that shaped the graphs: a graph break, a recompile or a skipped frame."""

    kind: DynamoKind
    reason: str  # dynamo's own words
    file: str | None = None
    line: int | None = None
    function: str = ""
    code: str = ""  # the user's source line, where known
    cell: int | None = None  # the notebook cell's execution count where ``file`` is a cell (see SourceLocation)
    # why: a recompile's cost and what changed; a break in library code, the user's line that led there
    compile_s: float | None = None  # the frame's compile (dynamo and Inductor) that this recompile cost
    guard: GuardKind = ""  # the failed guard's kind ("" where none failed)
    change: str = ""  # what changed in plain words, e.g. "x.size(0): 8 -> 16", "n: int 2 -> float 3.5"
    caller: SourceLocation | None = None  # the user's frame that led into the library code at file:line

    def where(self) -> str:
        return where(self.file, self.line, self.cell)


# advice: Inductor's fusion decisions, the graph as it runs, findings
@dataclass
class FusionDecision(Record):
    """One decision of Inductor's scheduler while it compiled the graph: two scheduler nodes fused or not, and
    Inductor's own reason for a refusal (its ``fusion`` log)."""

    first: list[str]  # the FX nodes of the first scheduler node (its origins)
    second: list[str]
    fused: bool
    reason: str = ""  # Inductor's words, e.g. "intermediate nodes between node1 & node2"
    first_kernel: str | None = None  # the generated kernel each side ended in, where it ended in one
    second_kernel: str | None = None
    bytes: int | None = None  # of the buffers the first writes and the second reads (None where symbolic)


@dataclass
class TuneCandidate(Record):
    """One candidate an autotuning benchmarked (or could not)."""

    name: str  # "triton_mm_13", "mm" (the extern call), "cpp_CppMicroGemmFP32Vec_0", a config "XBLOCK=64, num_warps=4"
    backend: str = ""  # as Inductor names it ("extern", "triton", "cpp"...); "config": a Triton launch configuration
    ms: float | None = None  # its benchmarked time (None where it failed)
    error: str | None = None  # why it was not timed, in the tuner's words (e.g. out of shared memory)
    detail: str = ""  # its parameters where the name does not say them (BLOCK_M=64, num_stages=3, ...)


@dataclass
class Tuning(Record):
    """One autotuned choice: the candidates benchmarked for it and the one taken (the fastest)."""

    kind: TuningKind  # "template" (max-autotune: templates against the extern call), "configs" (a generated Triton
    #            kernel's configs), "coordinate-descent" (Inductor's steps from the best config), "user" (a
    #            user's @triton.autotune kernel)
    op: str  # what was tuned: "mm", "bmm", "convolution", a kernel's name
    shapes: str = ""  # the inputs' sizes, e.g. "4x64x128, 4x128x96"
    candidates: list[TuneCandidate] = field(default_factory=list)
    winner: str | None = None  # the candidate taken
    margin: float | None = None  # how much slower the runner-up is: runner-up ms / winner ms - 1
    tuned: bool = True  # benchmarked in this capture; False: the result of an earlier tuning (see ``source``)
    source: str = ""  # where an earlier result came from (Inductor's autotune cache, a compile earlier, ...)


@dataclass
class CudaGraphEvent(Record):
    """What reduce-overhead did with a graph: recorded it as a CUDA graph, recorded it again, or skipped it."""

    kind: CudaGraphKind
    reason: str = ""  # skip: Inductor's words ("mutated inputs (1 instances)"); re-record: its cause; record:
    #                   which partition of the graph ("partition 2"), where it has several
    location: SourceLocation | None = None  # skip: the user's line Inductor names
    shapes: str = ""  # record and re-record: the input sizes it was recorded for


@dataclass
class AsRun(Record):
    """A graph's ``call()`` as it runs without kernelviz's instruments: its plain time, the CPU time of
    launching it, and (on a GPU, for a graph not already in CUDA-graph mode) its time as a CUDA-graph replay."""

    unit: Clock
    plain_ms: float  # median of runs of the un-instrumented call(), each after an L2 flush on a GPU
    runs: int = 0
    spread: float | None = None  # (p75 - p25) / median of those runs
    launch_cpu_ms: float | None = None  # GPU: CPU time until call() returned (enqueueing every launch)
    kernels_ms: float | None = None  # the launches' in-graph times added up (the device busy in them)
    replay_ms: float | None = None  # call() captured once into a CUDA graph and replayed, median
    replays: int = 0  # how many replays that median is of (0: not said, in files older than this field)
    note: str | None = None  # why a figure is missing (one line)


@dataclass
class Advice(Record):
    """A finding: what a rule saw in the capture, the launches it concerns, the time at stake and how that
    time was computed, what was measured, and what to try."""

    rule: Rule
    graph: str | None  # the graph's id (None for dynamo's events, which belong to no graph)
    launches: list[int] = field(default_factory=list)  # indices in the graph's launches
    ms: float | None = None  # the time at stake (None where nothing measured gives one)
    evidence: str = ""  # what was seen
    suggestion: str = ""
    how: str = ""  # how ms was computed, from which measured figures


@dataclass
class WhatIf(Record):
    """A candidate change measured: the captured graphs compiled again under it and timed in the timing process
    beside the graphs as captured, their outputs compared with the captured ones. Times are milliseconds; a noise
    is the half-spread (p75 - p25) / 2 of the runs it is beside."""

    kind: WhatIfKind
    change: str  # what it is, in words
    patch: str  # the exact line(s) a user applies to their code
    graphs: list[int] = field(default_factory=list)  # indices in Capture.graphs it was compiled for
    reason: str | None = None  # one line: why it could not run (then no figure below is set)
    kernel: str | None = None  # launch_config: the kernel whose launch configuration changed
    before_ms: float | None = None  # the graphs as captured, timed beside after_ms
    before_noise_ms: float | None = None
    after_ms: float | None = None
    after_noise_ms: float | None = None
    step_ms: float | None = None  # the step (every graph of the capture) as captured
    compile_s: float | None = None  # what compiling under the change cost
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    tolerance: str = ""  # the tolerance the verdict used, in words ("atol 1e-05, rtol 1.3e-06 (float32)")
    verdict: Verdict = "unchecked"


# AOTInductor: what a .pt2 package holds beside its graph
@dataclass
class PackageConstant(Record):
    """A weight or buffer the package carries (its values are not kept: only what it is)."""

    name: str  # as the wrapper names it ("l1_weight")
    fqn: str = ""  # the module's name for it ("l1.weight")
    kind: str = ""  # "Parameter", "Buffer", "TensorConstant", "FoldedConstant"
    dtype: str | None = None
    shape: list[int] | None = None
    stride: list[int] | None = None
    bytes: int | None = None


@dataclass
class PackageFile(Record):
    """One entry of the package's zip."""

    name: str
    bytes: int


@dataclass
class Package(Record):
    """The AOTInductor package (``.pt2``) a graph was read from: where it is, what it holds, what it was built for."""

    path: str  # the file as it was loaded, made absolute (``cap.bench()`` runs it from there)
    model: str = "model"  # the model's name inside the package
    files: list[PackageFile] = field(default_factory=list)  # this model's entries
    metadata: dict[str, str] = field(default_factory=dict)  # the package's metadata JSON (AOTI_DEVICE_KEY, ...)
    constants: list[PackageConstant] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be read, one line each


@dataclass
class Graph(Record):
    """One compiled graph: its output code, kernels, and the launches of ``call()``."""

    id: str  # Inductor's AOT id, e.g. "0_forward", or a name given on load
    kind: GraphKind
    device: str  # "cuda", "cpu", ...
    code: str
    kernels: list[Kernel] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    memory: list[BufferEvent] = field(default_factory=list)
    inputs: list[TensorSpec] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    call_span: list[int] | None = None  # first and last line (1-based) of call() in the code (C++: the entry function)
    wrapper: Wrapper = "python"  # "cpp": cpp_wrapper, AOTInductor (a C++ wrapper in the code)
    calls: int = 0  # times call() ran during the capture
    compile_s: float | None = None
    cache: Cache | None = None  # "reused": compiled before the capture; None where unknown
    thread: str | None = None  # name of the thread that ran it, where the capture saw it
    gpu_busy_ms: float | None = None  # end-to-end CUDA-event time of call(), once timed
    gap_ms: float | None = None  # GPU busy time not covered by launches (idle between kernels, launch overhead)
    cudagraph_ms: float | None = None  # call() as a CUDA-graph replay, as reduce-overhead runs it
    timed_on: str | None = None  # "user tensors" or "recreated inputs", once timed
    # timing you can trust
    made_up_values: list[str] = field(default_factory=list)  # integer/bool inputs recreated without their values
    bench_s: float | None = None  # wall-clock seconds spent timing this graph
    # panel: the user's line that ran the graph (e.g. ``y = model(x)``), where no FX trace names one
    caller: SourceLocation | None = None
    warnings: list[str] = field(default_factory=list)
    repro: ReproRecord | None = None  # deep inspection: call()'s inputs and outputs, recorded while timing
    fusions: list[FusionDecision] = field(default_factory=list)  # advice: Inductor's fusion decisions
    tunings: list[Tuning] = field(default_factory=list)  # why: what was autotuned for this graph
    cudagraphs: list[CudaGraphEvent] = field(default_factory=list)  # why: reduce-overhead's records/skips
    cudagraph_replays: int = 0  # why: times it ran as a CUDA-graph replay in the capture
    # call()'s wall time in the captured block itself (the fastest of its warm calls): on a GPU, the CPU's time to
    # launch it as the user's step runs it (a loop of call() alone, as_run, runs warmer)
    in_step_ms: float | None = None
    as_run: AsRun | None = None  # advice: call() without instruments, once timed
    package: Package | None = None  # AOTInductor: the .pt2 package it was read from
    # whatif: the FX graph Inductor was given (after AOTAutograd), as a runnable module's code
    # (:mod:`kernelviz.recorder.fxgraph`), and its inputs that are the module's parameters and buffers
    fx: str | None = None
    fx_static: list[int] = field(default_factory=list)

    def kernel(self, name: str) -> Kernel:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def to_repro(self) -> str:
        """A standalone script that runs this graph's whole ``call()`` on inputs like the recorded ones, checks
        its outputs and prints its time (see :mod:`kernelviz.repro`)."""
        from .repro import graph_script

        return graph_script(self)


# ranks: how one rank spent the captured block
@dataclass
class StepCollective(Record):
    """The communication of a captured block, by operation (e.g. DDP's bucket all-reduces)."""

    op: str  # "all_reduce", "all_gather", "reduce_scatter", ... (from the NCCL kernel or c10d op name)
    calls: int
    ms: float  # device time (GPU) or wall time (CPU) of its kernels or ops
    kernels: list[str] = field(default_factory=list)


@dataclass
class StepSplit(Record):
    """Where the captured block's time went on this rank, from torch.profiler over the block. The four
    parts do not overlap and add up to ``window_ms``: on a GPU, the device from its first activity in the
    block to its last; on the CPU, the block's wall time over every thread."""

    unit: Clock
    window_ms: float
    compute_ms: float  # computing, no communication at the same time
    comm_ms: float  # communicating with nothing else to do: exposed communication
    overlap_ms: float  # computing while communicating
    idle_ms: float  # neither (launch overhead, Python, waiting on the host)
    collectives: list[StepCollective] = field(default_factory=list)
    note: str = ""  # e.g. that the block compiled graphs, so its idle time holds the compile


class Document(Record):
    """What a capture, a job's ranks and a diff share: JSON (:mod:`kernelviz.codec`) and views. Each kind declares
    its views (``to_html()``, the notebook's MIME bundle, ``str()``: the text summary) as doors into the modules
    that make them, imported when called (the model imports nothing of kernelviz's at import time)."""

    # Set where it was read: whether an object in it keeps fields this kernelviz does not know (``_other``), which
    # its JSON then writes back (a slower way, taken only then)
    _holds_other: bool = False

    def to_html(self) -> str:
        """A self-contained HTML page (no script, no network)."""
        raise NotImplementedError(f"{type(self).__name__} has no HTML view")

    def save_html(self, path: str) -> None:
        """Write :meth:`to_html` to ``path`` (atomically: a reader sees the old file or the whole new one)."""
        from .codec import save_html

        save_html(self, path)

    def to_dict(self) -> dict[str, Any]:
        """The document as JSON data (dicts, lists, strings, numbers)."""
        from .codec import json_data

        return json_data(self._settled())

    def to_json(self, indent: int | None = None) -> str:
        """The document as JSON text (what :meth:`from_json` reads back)."""
        from .codec import document_json

        return document_json(self._settled(), indent)

    def wait_stages(self) -> Document:
        """This document, once Triton's stages still read in the background are in it (see :class:`Capture`)."""
        return self

    def _settled(self) -> Document:
        """This document once everything still computed in the background is in it."""
        return self.wait_stages()


@dataclass
class Capture(Document):
    """Every graph Inductor compiled (or ran) in one capture."""

    graphs: list[Graph] = field(default_factory=list)
    torch_version: str | None = None
    triton_version: str | None = None
    device_name: str | None = None
    peaks: DevicePeaks | None = None
    warnings: list[str] = field(default_factory=list)
    dynamo: list[DynamoEvent] = field(default_factory=list)
    # ranks: where the capture sits in a torch.distributed job (all None outside one)
    rank: int | None = None
    world_size: int | None = None
    host: str | None = None
    device: str | None = None  # "cuda:1", "cpu"
    backend: str | None = None  # the default group's backend: "nccl", "gloo"
    step: StepSplit | None = None  # the captured block profiled (capture(profile=True))
    findings: list[Advice] = field(default_factory=list)  # advice: what advice() found last
    tunings: list[Tuning] = field(default_factory=list)  # why: tunings outside compiled graphs (user's)
    cudagraph_pool_bytes: int | None = None  # why: memory of reduce-overhead's CUDA-graph pool at the end
    whatifs: list[WhatIf] = field(default_factory=list)  # candidate changes measured (cap.whatif()), best first
    schema_version: int = SCHEMA_VERSION

    @property
    def kernels(self) -> list[Kernel]:
        return [k for g in self.graphs for k in g.kernels]

    @property
    def launches(self) -> list[Launch]:
        return [launch for g in self.graphs for launch in g.launches]

    def __eq__(self, other: object) -> bool:
        """Equal data: a capture made in this process (:class:`kernelviz.conductor.LiveCapture`) equals its copy."""
        if not isinstance(other, Capture):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Capture) if f.compare)

    __hash__ = None  # type: ignore[assignment]

    def wait_repros(self) -> Capture:
        """This capture once the repro scripts' expected outputs are in it (a capture made in this process may still
        compute them in the background: :class:`kernelviz.conductor.LiveCapture`)."""
        return self

    def held_bytes(self) -> int:
        """Bytes of memory this capture keeps alive so that :meth:`bench` can time its graphs on what they ran with
        (none: a capture made in this process keeps some, :class:`kernelviz.conductor.LiveCapture`)."""
        return 0

    def release(self) -> Capture:
        """Give back what :meth:`held_bytes` counts (nothing here)."""
        return self

    def busy(self) -> list[str]:
        """What is still worked out in the background for this capture, in words (none for data alone)."""
        return []

    # Actions: each a door into the layer that does the work --------------------------------------
    def bench(self, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
              limit_s: float = 60.0, repros: bool = False) -> Capture:
        """Time every graph in place, then work out the findings again: in the timing process, never this one (see
        :func:`kernelviz.bench.bench` for the options). A loaded capture's graphs are timed on inputs recreated from
        their specs, and say so."""
        from .conductor import timed

        return timed(self, None, isolated=isolated, progress=progress, peaks=peaks, limit_s=limit_s, repros=repros)

    def counters(self, top: int = 10, launches: Launch | str | tuple[str, int] | list | None = None, *,
                 progress: Any = True) -> Capture:
        """Measure hardware counters of the ``top`` launches with the most in-graph time under Nsight Compute, in a
        child process, in place (see :func:`kernelviz.counters.measure`). ``launches``: the launches to measure
        instead, one or a list of: a :class:`Launch`, a launch's or its kernel's name, or a (graph id, launch
        index) pair. ``progress``: True for a text bar on stderr, False for none, or ``report(done, total,
        label)``."""
        from .counters import measure

        return measure(self, top=top, launches=launches, progress=progress)

    def whatif(self, *, budget_s: float = 60.0, progress: Any = True,
               candidates: list[Any] | None = None) -> list[WhatIf]:
        """Measure what each candidate change would save: the captured graphs compiled again under it and timed in
        the timing process beside them, outputs compared (see :mod:`kernelviz.whatif`); ``candidates``: kinds
        (``WhatIfKind``) or ``kernelviz.whatif.Candidate`` objects, default every kind that applies; stops starting
        new ones once ``budget_s`` is spent. Kept in ``whatifs``, the best first."""
        from .conductor import measured

        return measured(self, None, budget_s=budget_s, progress=progress, candidates=candidates)

    def advice(self) -> list[Advice]:
        """The findings of every rule over this capture, the most time at stake first (kept in ``findings``,
        so they travel with the JSON; see :mod:`kernelviz.advice`)."""
        from .advice import advise

        self.findings = advise(self)
        return self.findings

    # Views ------------------------------------------------------------------------------------------
    def to_html(self) -> str:
        """A self-contained HTML report (no script, no network): see :mod:`kernelviz.views.html`."""
        from .views.html import page

        return page(self._settled())

    def _ipython_display_(self) -> None:
        """IPython's display: the live panel at once, the saved parts (payload, HTML, text) in the same output once
        the stages are in (:func:`kernelviz.notebook.display.show`)."""
        from .notebook.display import show

        show(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The display for other front ends: the live panel, the saved payload, the HTML report and the text
        summary, once the stages are in."""
        from .notebook.display import mimebundle

        return mimebundle(self._settled())

    def __str__(self) -> str:
        """The text summary, at the terminal's width (what ``kernelviz show`` prints)."""
        from .views.text import summary

        return summary(self._settled())

    def __repr__(self) -> str:
        """The summary's head in a few lines (graphs, kernels, device, timing state); ``str()`` is the whole."""
        from .views.text import head

        return head(self)

    @classmethod
    def from_dict(cls, data: Any) -> Capture:
        """A capture from its JSON data (the form :meth:`to_dict` gives).

        Raises :class:`CaptureError`, with one line naming the field (``graphs[0].kernels[2].name``)
        and what it should hold, when ``data`` is not a capture this kernelviz reads: another JSON
        shape, a missing field or a value of the wrong type, or a schema other than ``READABLE_SCHEMAS``
        (the message gives the version and whether the file is newer or older than this kernelviz).
        Fields it does not know (a newer kernelviz wrote them) are kept and written back by :meth:`to_json`; the
        keys the notebook payload adds (its ``view`` annex) are not the capture's and are left out.
        """
        from .codec import read

        return read(cls, data)

    @classmethod
    def from_json(cls, text: str | bytes) -> Capture:
        """A capture from :meth:`to_json`'s text, or from the bytes of the compressed form :meth:`save` writes;
        :class:`CaptureError` (one line) for anything else, including text that is not JSON (with the line and
        column) or ends early."""
        from .compressed import from_bytes

        return from_bytes(cls, text, "a kernelviz capture")

    def save(self, path: str | Path) -> Path:
        """Write the capture to ``path``.kvz, or on a rank of a torch.distributed job to ``path``.rank<N>.kvz
        (each rank its own file; ``kernelviz.load(path)`` reads them all): its JSON and the recorded values,
        compressed without loss (see :mod:`kernelviz.compressed`); a ``path`` ending in ``.json`` gets the JSON
        text instead (:meth:`to_json`, about six times larger with repros). The path written."""
        from .compressed import save

        return save(self, path)


# ranks: a job's captures side by side, one per rank (kernelviz.load("runs/step"))
RANKS_FORMAT = "kernelviz-ranks"


@dataclass
class RankInfo(Record):
    """One rank of a multi-rank capture: where it ran and how it spent the captured block."""

    rank: int
    host: str | None = None
    device: str | None = None
    source: str = ""  # the file it was read from
    graphs: int = 0
    step: StepSplit | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class RankGraph(Record):
    """One graph across the ranks: who ran and compiled it, and whether the ranks agree on what it does."""

    id: str
    kind: str
    ranks: list[int] = field(default_factory=list)  # ranks whose capture ran it
    compiled: list[int] = field(default_factory=list)  # ranks that compiled it in their capture (others reused it)
    missing: list[int] = field(default_factory=list)  # ranks whose capture lacks it
    kernels_agree: bool | None = None  # None where fewer than two ranks have it
    collectives_agree: bool | None = None
    mismatch: str | None = None  # the first difference, one line


@dataclass
class RankLaunch(Record):
    """One launch of a graph timed on every rank: its times, how far they spread, and who holds the others back."""

    graph: str
    index: int
    name: str
    collective: str | None = None  # the collective's op, for collectives
    ms: list[float | None] = field(default_factory=list)  # per rank in Ranks.ranks order; empty when summarised
    stats: dict[str, float] = field(default_factory=dict)  # "p0", "p50", "p90", "p99", "p100" over the ranks
    spread: float | None = None  # (max - min) / median
    # the rank that holds the others back, where the spread is above 10%: the slowest for work, the fastest
    # for a collective (it arrived last: the others' collective time is spent waiting for it)
    straggler: int | None = None
    outliers: list[list[float]] = field(default_factory=list)  # [rank, ms], far from the median, worst first


@dataclass
class Ranks(Document):
    """The captures of one torch.distributed job, one per rank, compared: per graph which ranks ran and
    compiled it and whether their kernels and collective order agree (a mismatch hangs the job), per launch
    the time on each rank, and per rank compute vs communication vs idle. Above ``summarise_above`` ranks
    only percentiles and outlier ranks are kept per launch, and only the reference rank's capture."""

    world_size: int
    ranks: list[RankInfo] = field(default_factory=list)
    reference: Capture | None = None  # the lowest rank's capture: the graphs and kernels the panel shows
    captures: list[Capture] = field(default_factory=list)  # every rank's, in ``ranks`` order; empty when summarised
    graphs: list[RankGraph] = field(default_factory=list)
    launches: list[RankLaunch] = field(default_factory=list)
    summarised: bool = False
    step_straggler: int | None = None  # the rank with the most compute in the block, where it stands out
    step_stats: dict[str, dict[str, float]] = field(default_factory=dict)  # "compute_ms"... -> percentiles over ranks
    warnings: list[str] = field(default_factory=list)
    format: str = RANKS_FORMAT
    schema_version: int = SCHEMA_VERSION

    def capture(self, rank: int) -> Capture:
        """The capture of ``rank`` (only the reference rank's once summarised)."""
        for info, cap in zip(self.ranks, self.captures):
            if info.rank == rank:
                return cap
        if self.reference is not None and self.reference.rank == rank:
            return self.reference
        raise KeyError(f"rank {rank} is not kept in this capture" + (" (summarised)" if self.summarised else ""))

    @classmethod
    def from_dict(cls, data: Any) -> Ranks:
        if not isinstance(data, dict) or data.get("format") != RANKS_FORMAT:
            format_ = data.get("format") if isinstance(data, dict) else None
            raise CaptureError(f"not a multi-rank kernelviz capture (format {format_!r})")
        from .codec import read

        return read(cls, data)

    @classmethod
    def from_json(cls, text: str | bytes) -> Ranks:
        from .codec import read_text

        return read_text(cls, text, "a multi-rank kernelviz capture")

    # Views: the ranks compared, then the reference rank's capture ------------------------------------
    def to_html(self) -> str:
        """A self-contained HTML page of the job's ranks (see :mod:`kernelviz.views.ranks_html`)."""
        from .views.ranks_html import page

        return page(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .notebook.ranks_display import mimebundle

        return mimebundle(self)

    def __str__(self) -> str:
        """The text summary of the job's ranks, at the terminal's width."""
        from .views.ranks_text import summary

        return summary(self)

    def __repr__(self) -> str:
        """The headline in a few lines; ``str()`` is the whole summary."""
        from .views.ranks_text import head

        return head(self)
