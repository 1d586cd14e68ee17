"""What the panel shows of a kernel's compiled stages and repro: per stage its text, pygments tokens and
line links (``lines[i]``: the kernel source lines that line ``i`` comes from), the binary facts, and the
repro script (or the one-line reason there is none)."""

from __future__ import annotations

from typing import Any

from .. import units
from ..figures import positive, valid
from ..model import Kernel
from .highlight import tokens

STAGE_LANGUAGE = {"ttir": "text", "ttgir": "text", "llir": "llvm", "ptx": "ptx", "sass": "gas",  # no MLIR lexer
                  "asm": "gas"}
STAGE_TITLE = {"ttir": "TTIR", "ttgir": "TTGIR", "llir": "LLVM IR", "ptx": "PTX", "sass": "SASS", "asm": "assembly"}


def stages_view(kernel: Kernel, *, text: bool = True) -> dict[str, Any]:
    """The stages of ``kernel`` for display; empty with a reason where none were kept. With ``text`` (the
    live widget's answer) each stage's text, line links and pygments tokens; without, only what the model
    does not say (a saved payload has text and links in the model, and draws the stages unhighlighted:
    their tokens would add about as much as the text)."""
    ir = kernel.ir
    if ir is None:
        reason = ("compiled stages are kept for Triton kernels that ran on a GPU: capture the code on a CUDA device "
                  "to see them" if kernel.kind.startswith("triton")
                  else "no assembly kept: a C++ kernel's is read from the library Inductor built, as the capture "
                       "that ran it is made"
                  if kernel.kind == "cpp"
                  else f"{kernel.kind} kernels have no Triton stages: their source is in the Kernel tab")
        return {"stages": [], "notes": [reason], "facts": None}
    stages = [{"name": s.name, "title": STAGE_TITLE.get(s.name, s.name), "bytes": s.bytes,
               "truncated_bytes": s.truncated_bytes, "tool": s.tool, "size": units.size(s.bytes),
               "left_out": units.size(s.truncated_bytes) if s.truncated_bytes else ""}
              | ({"text": s.text, "lines": s.source_lines, "helpers": s.helper_lines,
                  "tokens": list(tokens(s.text, STAGE_LANGUAGE.get(s.name, "text")))} if text else {})
              for s in ir.stages]
    return {"stages": stages, "notes": list(ir.notes), "facts": facts(kernel)}


def facts(kernel: Kernel) -> dict[str, Any] | None:
    """Registers, spills, shared memory and occupancy, each with what it is."""
    ir = kernel.ir
    if ir is None or kernel.kind == "cpp":  # a C++ kernel's facts (its instruction set, its loops) are its notes
        return None
    occ = ir.occupancy
    return {"registers per thread": ir.num_regs, "spills": ir.num_spills,
            "shared memory (B per block)": ir.shared_bytes, "num_warps": ir.options.get("num_warps"),
            "num_stages": ir.options.get("num_stages"), "arch": ir.options.get("arch"),
            "occupancy": None if occ is None else {
                "blocks per SM": occ.blocks_per_sm, "limited by": occ.limited_by,
                "warps per SM": f"{occ.warps_per_sm} of {occ.max_warps_per_sm}" + (
                    f" ({100 * occ.warps_per_sm / occ.max_warps_per_sm:.0f}% theoretical)"
                    if positive(occ.max_warps_per_sm) and valid(occ.warps_per_sm) else ""),
                "blocks by registers": occ.by_registers, "blocks by shared memory": occ.by_shared_memory,
                "blocks by threads": occ.by_threads, "blocks by device limit": occ.by_blocks,
                "device": occ.device}}


def repro_view(kernel: Kernel) -> dict[str, Any]:
    """The repro script of ``kernel``, or why there is none (one line)."""
    from ..repro import ReproError, kernel_script

    try:
        return {"script": kernel_script(kernel), "reason": None}
    except ReproError as exc:
        return {"script": None, "reason": str(exc)}


def kernel_extras(kernel: Kernel, *, text: bool = True) -> dict[str, Any]:
    """Everything of this module for one kernel: the live widget's answer (``text``) or the saved annex."""
    return {"ir": stages_view(kernel, text=text), "repro": repro_view(kernel)}


def without_stages(kernel: dict[str, Any]) -> dict[str, Any]:
    """A kernel's JSON without its stages' text and line links and its repro record (the live widget asks for
    them per kernel); what it leaves as it was is shared, not copied."""
    stripped = {**kernel, "repro": None}
    ir = kernel.get("ir")
    if isinstance(ir, dict) and ir.get("stages"):
        stages = [{**stage, "text": "", "source_lines": [], "helper_lines": []} for stage in ir["stages"]]
        stripped["ir"] = {**ir, "stages": stages}
    return stripped
