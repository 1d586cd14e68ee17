"""Theoretical occupancy: how many blocks of a kernel fit on one SM, and which resource runs out first.

The rules are those of CUDA's occupancy calculator (``cuda_occupancy.h``): registers are allocated per
warp in units of 256 within each of the SM's 4 sub-partitions; each block's shared memory is rounded up to
128 bytes plus the 1 KB the system reserves per block (compute capability 8.0 and later); threads and
resident blocks per SM are capped by the device.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Occupancy

_REG_UNIT = 256
_SUB_PARTITIONS = 4
_SHARED_UNIT = 128
# resident blocks per SM by compute capability (CUDA C++ Programming Guide, "Compute Capabilities" table)
_MAX_BLOCKS = {(7, 0): 32, (7, 2): 32, (7, 5): 16, (8, 0): 32, (8, 6): 16, (8, 7): 16, (8, 9): 24, (9, 0): 32,
               (10, 0): 32, (10, 3): 32, (12, 0): 32}


@dataclass
class DeviceLimits:
    """Per-SM limits of a GPU, read from ``torch.cuda.get_device_properties`` at capture time."""

    regs_per_sm: int
    shared_per_sm: int
    threads_per_sm: int
    warp_size: int = 32
    capability: tuple[int, int] = (0, 0)

    @property
    def blocks_per_sm(self) -> int | None:
        return _MAX_BLOCKS.get(self.capability)

    @property
    def reserved_shared(self) -> int:
        return 1024 if self.capability >= (8, 0) else 0


def device_limits(index: int = 0) -> DeviceLimits | None:
    """The current process's GPU ``index``, or None without CUDA (or a property this torch lacks)."""
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(index)
    try:
        return DeviceLimits(regs_per_sm=props.regs_per_multiprocessor,
                            shared_per_sm=props.shared_memory_per_multiprocessor,
                            threads_per_sm=props.max_threads_per_multi_processor, warp_size=props.warp_size,
                            capability=(props.major, props.minor))
    except AttributeError:
        return None


def occupancy(limits: DeviceLimits, *, num_warps: int, regs: int, shared: int) -> Occupancy:
    """Blocks of ``num_warps`` warps, ``regs`` registers per thread and ``shared`` bytes that fit on one SM."""
    threads = num_warps * limits.warp_size
    regs_per_warp = -(-regs * limits.warp_size // _REG_UNIT) * _REG_UNIT
    if regs_per_warp:
        warps_per_part = limits.regs_per_sm // _SUB_PARTITIONS // regs_per_warp
        by_regs = warps_per_part * _SUB_PARTITIONS // num_warps
    else:
        by_regs = limits.threads_per_sm // threads
    per_block = -(-(shared + limits.reserved_shared) // _SHARED_UNIT) * _SHARED_UNIT
    by_shared = limits.shared_per_sm // per_block if per_block else limits.threads_per_sm // threads
    by_threads = limits.threads_per_sm // threads
    by_blocks = limits.blocks_per_sm
    candidates = [("registers", by_regs), ("shared memory", by_shared), ("threads", by_threads)]
    if by_blocks is not None:
        candidates.append(("blocks", by_blocks))
    blocks = min(count for _, count in candidates)
    limited_by = ", ".join(name for name, count in candidates if count == blocks)
    max_warps = limits.threads_per_sm // limits.warp_size
    return Occupancy(blocks_per_sm=blocks, limited_by=limited_by, by_registers=by_regs, by_shared_memory=by_shared,
                     by_threads=by_threads, by_blocks=by_blocks, threads_per_block=threads,
                     warps_per_sm=blocks * num_warps, max_warps_per_sm=max_warps,
                     device=(f"{limits.regs_per_sm} registers, {limits.shared_per_sm} B shared memory, "
                             f"{limits.threads_per_sm} threads"
                             + (f", {by_blocks} blocks" if by_blocks is not None else "") + " per SM; "
                             f"sm_{limits.capability[0]}{limits.capability[1]}"))
