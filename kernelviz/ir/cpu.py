"""What the C++ compiler made of each C++ kernel of a CPU graph: the assembly of the shared library Inductor built and
loaded (the one that ran), line-linked to the kernel's C++, the vector instruction set it was compiled for and which
of its loops are vectorized.

Inductor compiles a kernel with ``-g1`` (line tables, no variables; ``-g`` levels never change the code made), so
``objdump -dl --inlines`` of its ``.so`` gives each instruction's C++ line and the at::vec helpers inlined there,
faithful to what ran. The functions kept are the kernel's own: ``kernel`` and the parts the compiler split from it
(``kernel._omp_fn.N``: each OpenMP parallel region; ``kernel.cold``). The instruction set is the one Inductor chose
for at::vec when it compiled (``pick_vec_isa``, the ``-DCPU_CAPABILITY_*`` flag), checked against the registers
the instructions use (zmm: 512 bits, ymm: 256, xmm: 128).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..live import module_globals
from ..model import Graph, Kernel, KernelIR

Texts = tuple[dict[str, str], dict[str, str], list[str]]  # texts by stage, the tool of each, notes
STAGE = "asm"
_OBJDUMP_TIMEOUT_S = 60.0
_SYMBOL = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
_INSTRUCTION = re.compile(r"^\s+[0-9a-f]+:\t")
_POSITION = re.compile(r"^(?:inlined by )?(\S.*?):(\d+)(?: \(discriminator \d+\))?(?: \(.*\))?$")
_CONTEXT = re.compile(r"^\S+\(\):$")  # objdump's "function():" line before a position: the function is in the symbol
_OWN = re.compile(r"^kernel(?:\.[\w.]+)?$")  # the kernel and the parts the compiler split from it
_REGISTER = re.compile(r"%([xyz])mm\d+")
_AMX = re.compile(r"\b(tdp\w+|tileloadd\w*|tilestored|ldtilecfg)\b")
_FOR = re.compile(r"^\s*for\s*\(\s*(?:int64_t|long|int)\s+(\w+)\s*=.*?;.*?;\s*\w+\s*\+=\s*"
                  r"(?:static_cast<int64_t>\()?(\d+)L?\)?\s*\)")
_VECTOR = re.compile(r"at::vec::|Vectorized<|VecMask<")
_BITS = {"z": 512, "y": 256, "x": 128}


def cpu_jobs(graph: Graph, compiled: Any = None) -> list[tuple[Kernel, KernelIR, Callable[[], Texts]]]:
    """(kernel, its ``Kernel.ir``, what reads its assembly) of a CPU graph's C++ kernels, from the libraries its
    live module loaded: what needs this process (the library's path, the instruction set Inductor picks, the loops)
    is read now, the assembly later (in the background: ``kernelviz.ir.StageJob``). Never raises: a graph warning
    or a kernel's notes say why not."""
    kernels = [k for k in graph.kernels if k.kind == "cpp"]
    if graph.device != "cpu" or not kernels or graph.package is not None:
        return []
    if graph.wrapper == "cpp":
        for kernel in kernels:
            kernel.ir = KernelIR(notes=["under cpp_wrapper the kernels are compiled into the wrapper's library: "
                                        "their assembly is not read"])
        return []
    try:
        namespace = module_globals(graph, compiled)
    except Exception as exc:  # noqa: BLE001 - the assembly is extra: the capture must still be built
        graph.warnings.append(f"assembly not read: {type(exc).__name__}: {exc}")
        return []
    if namespace is None:
        graph.warnings.append("assembly not read: the graph's compiled module is not loaded in this process")
        return []
    isa = vec_isa()
    jobs = []
    for kernel in kernels:
        library = _library(namespace.get(kernel.name))
        kernel.ir = ir = KernelIR(options={"isa": isa[0], "vector_bits": isa[1]} if isa else {})
        if library is None:
            ir.notes.append("assembly not read: the kernel's compiled library is not known (it is not a module "
                            "Inductor loaded from its cache)")
            continue
        ir.file = str(library.with_suffix(".cpp"))
        jobs.append((kernel, ir, functools.partial(texts, library, kernel, ir, loops_note(kernel.source, isa))))
    return jobs


def vec_isa() -> tuple[str, int] | None:
    """The vector instruction set Inductor compiles at::vec for here (``"avx512"``, ``"avx2"``, ...) and its width
    in bits; None where it picks none (no vectorization) or this torch does not say."""
    try:
        from torch._inductor.cpu_vec_isa import pick_vec_isa
    except ImportError:
        try:
            from torch._inductor.codecache import pick_vec_isa
        except ImportError:
            return None
    try:
        isa = pick_vec_isa()
        name, bits = " ".join(str(isa).split()), int(isa.bit_width())
    except Exception:  # noqa: BLE001 - an Inductor internal: unknown where it changed
        return None
    return (name, bits) if name and bits else None


def _library(obj: Any) -> Path | None:
    """The shared library a C++ kernel's Python binding comes from (a builtin function of the loaded module)."""
    path = getattr(getattr(obj, "__self__", None), "__file__", None)
    return Path(path) if isinstance(path, str) and path.endswith(".so") else None


def texts(library: Path, kernel: Kernel, ir: KernelIR, notes: list[str]) -> Texts:
    """The kernel's assembly from ``library`` (its text with line markers), the command that gave it, and ``notes``
    followed by the registers its instructions use, or by why there is no assembly; ``ir.line_offset`` set from the
    C++ file beside the library."""
    ir.line_offset = _line_offset(Path(ir.file or ""), kernel.source)
    objdump = shutil.which("objdump")
    if objdump is None:
        return {}, {}, [*notes, "no assembly: objdump (GNU binutils) is not installed here"]
    command = [objdump, "-dl", "--inlines", "--no-show-raw-insn", str(library)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=_OBJDUMP_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return {}, {}, [*notes, f"no assembly: objdump failed: {type(exc).__name__}: {exc}"]
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {}, {}, [*notes, f"no assembly: objdump failed: {said}"]
    text = own_functions(done.stdout)
    if not text:
        return {}, {}, [*notes, f"no assembly: {library.name} holds no function named kernel"]
    tool = f"objdump -dl --inlines of {library.name}, the library Inductor built and loaded (compiled with -g1)"
    return {STAGE: text}, {STAGE: tool}, [*notes, registers_note(text)]


def _line_offset(cpp: Path, source: str) -> int:
    """Lines of the compiled C++ file before the kernel's source (0 where it is not found there)."""
    try:
        text = cpp.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    at = text.find(source)
    return text.count("\n", 0, at) if at > 0 else 0


def own_functions(listing: str) -> str:
    """The kernel's functions of an ``objdump -dl --inlines`` listing (``kernel`` first, then its OpenMP regions,
    then the rest): each symbol line and its instructions, each run of instructions after a ``//## File "name", line
    N inlined at "name", line M`` marker of its position (innermost first; files by base name) where that changed."""
    functions: list[tuple[tuple, list[str]]] = []
    out: list[str] | None = None  # the lines of the kernel's function being read, None in any other
    block: list[tuple[str, int]] = []  # the position being read (objdump writes it over several lines)
    current: list[tuple[str, int]] = []
    reading = False
    for line in listing.splitlines():
        if m := _SYMBOL.match(line):
            name = m.group(1)
            out, current, reading = ([line] if _OWN.match(name) else None), [], False
            if out is not None:
                functions.append(((name != "kernel", "_omp_fn" not in name, name), out))
            continue
        if out is None:
            continue
        if _INSTRUCTION.match(line):
            if reading and block != current:
                current = block
                out.append(marker(current))
            reading = False
            out.append(line)
        elif m := _POSITION.match(line):
            where = (os.path.basename(m.group(1)), int(m.group(2)))
            if not reading:
                # a run of "inlined by" lines alone keeps the innermost position of the one before it
                block = [] if not line.startswith("inlined by ") else current[:1]
                reading = True
            block = block + [where]
        elif not _CONTEXT.match(line) and line.strip():
            out.append(line)
    return "\n".join("\n".join(lines) + "\n" for _, lines in sorted(functions))


def marker(positions: list[tuple[str, int]]) -> str:
    """The line that says where the instructions after it come from, as ``nvdisasm -gi`` writes it for SASS."""
    (file, line), *outer = positions or [("?", 0)]
    return f'//## File "{file}", line {line}' + "".join(f' inlined at "{f}", line {n}' for f, n in outer)


def registers_note(text: str) -> str:
    """Which vector registers the instructions use (zmm 512 bits, ymm 256, xmm 128: scalar floating point uses xmm
    too), and AMX tile instructions where there are any."""
    counts = {"z": 0, "y": 0, "x": 0}
    amx = 0
    for line in text.splitlines():
        if _INSTRUCTION.match(line):
            kinds = set(_REGISTER.findall(line))
            widest = next((k for k in "zyx" if k in kinds), None)
            if widest:
                counts[widest] += 1
            amx += bool(_AMX.search(line))
    parts = [f"{n} on {k}mm ({_BITS[k]}-bit)" for k, n in counts.items() if n]
    return ("instructions by their widest register: " + (", ".join(parts) if parts else "none on vector registers")
            + (f"; {amx} AMX tile instructions" if amx else ""))


def loops_note(source: str, isa: tuple[str, int] | None) -> list[str]:
    """What was vectorized, read from the kernel's C++: the instruction set at::vec was compiled for, and its loops
    by source line: vectorized (its step is the lanes of the at::vec values its body computes), parallel (an OpenMP
    ``for``) and scalar (an innermost loop without at::vec)."""
    lines = source.splitlines()
    loops = []  # (line, variable, step, body)
    for i, line in enumerate(lines):
        if m := _FOR.match(line):
            loops.append((i + 1, m.group(1), int(m.group(2)), _body(lines, i)))
    vectorized = [f"line {n} ({var}, {step} lanes)" for n, var, step, body in loops
                  if step > 1 and _VECTOR.search("\n".join(body))]
    parallel = [f"line {n} ({var})" for n, var, _, _ in loops if lines[n - 2].strip().startswith("#pragma omp")]
    scalar = [f"line {n} ({var})" for n, var, _, body in loops
              if not _FOR.search("\n".join(body)) and not _VECTOR.search("\n".join(body))]
    where = (f"at::vec compiled for {isa[0].upper()} ({isa[1]}-bit vectors: the instruction set Inductor picks "
             "here)" if isa else "no vector instruction set: Inductor picks none here")
    kinds = (("vectorized", vectorized), ("parallel (OpenMP)", parallel), ("scalar", scalar))
    found = [f"{what}: {', '.join(which)}" for what, which in kinds if which]
    return [where] + (["loops: " + "; ".join(found)] if found else [])


def _body(lines: list[str], start: int) -> list[str]:
    """The lines of the loop whose header is ``lines[start]``: to the brace that closes its first one (one
    statement where it opens none)."""
    depth, body = 0, []
    for line in lines[start + 1:]:
        body.append(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0 and ("{" in "".join(body) or line.strip().endswith(";")):
            break
    return body
