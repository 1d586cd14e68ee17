"""The CPU's ceilings, measured once per machine and thread count with torch's own ops: the copy bandwidth of a
buffer twice the last-level cache, within 64 and 256 MiB (bytes read plus written; its source names both sizes) and
the best matmul rate per dtype, at the thread count torch uses in the asking process.

The measure runs in a child process (``python -m kernelviz.bench.cpupeaks THREADS``), never in the user's: their
threads, RNG and memory are left alone. Its result is kept in kernelviz's cache folder (``peaks/``), keyed by the
host, the CPU's model and the thread count, and read from there every later time; its ``source`` says where, when
and how it was measured.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..children import cache_folder, child_environment
from ..model import DevicePeaks

BUDGET_S = 0.15  # of repeats per figure, after one warm-up run: the best of them is the peak
MATMUL = 1024  # the side of the square matmul timed per dtype
DTYPES = ("float32", "bfloat16", "float16")
_MIN_COPY, _MAX_COPY = 1 << 26, 1 << 28  # the copied buffer: twice the last-level cache, within 64 and 256 MiB (a
# larger one costs seconds of page faults; the cache a VM lists is its host's, of which it has a share)
_TIMEOUT_S = 120.0


def cpu_name() -> str:
    """The CPU's model as the OS names it (``/proc/cpuinfo``'s "model name"), else the platform's word for it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def cache_path(threads: int) -> Path:
    """Where the peaks of this machine at ``threads`` threads are kept."""
    key = f"{socket.gethostname()}|{cpu_name()}|{os.cpu_count()}|{threads}"
    return cache_folder("peaks") / f"cpu-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def cpu_peaks(threads: int | None = None) -> DevicePeaks:
    """This CPU's peaks at ``threads`` (torch's thread count here by default): from the cache, else measured in a
    child process and cached. Never raises: peaks that could not be measured hold no figure and say why in
    ``source`` (and are measured again next time)."""
    import torch

    threads = threads or torch.get_num_threads()
    path = cache_path(threads)
    kept = _read(path)
    if kept is not None:
        return kept
    try:
        done = subprocess.run([sys.executable, "-m", "kernelviz.bench.cpupeaks", str(threads)], capture_output=True,
                              text=True, env=child_environment(), timeout=_TIMEOUT_S, stdin=subprocess.DEVNULL)
        lines = done.stdout.strip().splitlines()
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    except (OSError, subprocess.SubprocessError) as exc:
        lines, why = [], f"{type(exc).__name__}: {exc}"
    peaks = _decode(lines[-1]) if lines else None
    if peaks is None:
        return DevicePeaks(device=f"{cpu_name()}, {threads} threads", device_type="cpu",
                           source=f"not measured: the measuring process failed ({why})")
    from ..codec import write_atomically

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lines[-1])
    except OSError:
        pass  # measured again next time
    return peaks


def _read(path: Path) -> DevicePeaks | None:
    try:
        return _decode(path.read_text(encoding="utf-8"))
    except OSError:
        return None


def _decode(text: str) -> DevicePeaks | None:
    """Peaks as :func:`measure` writes them; None where the text is not that (a damaged cache file)."""
    try:
        data = json.loads(text)
        peaks = DevicePeaks(device=str(data["device"]), dram_gb_per_s=float(data["dram_gb_per_s"]),
                            tflops={str(k): float(v) for k, v in data["tflops"].items()}, source=str(data["source"]),
                            device_type="cpu")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return peaks if peaks.dram_gb_per_s > 0 and all(v > 0 for v in peaks.tflops.values()) else None


def last_level_cache() -> int | None:
    """Bytes of the largest CPU cache the OS lists (sysfs), None where it lists none."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip().upper()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit():
            sizes.append(int(digits) * scale)
    return max(sizes, default=None)


def _best_s(fn: Callable[[], object]) -> tuple[float, int]:
    """The shortest of repeated runs of ``fn`` over ``BUDGET_S`` (at least three), after a warm-up; and how many."""
    fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 3 or time.perf_counter() - start < BUDGET_S:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), len(times)


def measure(threads: int) -> DevicePeaks:
    """Measure this CPU's peaks at ``threads`` threads, in this process (the child's; see the module's doc)."""
    import torch

    torch.set_num_threads(threads)
    llc = last_level_cache()
    size = min(_MAX_COPY, max(_MIN_COPY, 2 * (llc or 0)))
    src = torch.ones(size, dtype=torch.uint8)
    dst = torch.empty_like(src)
    copy_s, copies = _best_s(lambda d=dst, s=src: d.copy_(s))
    del src, dst
    tflops, runs = {}, []
    for name in DTYPES:
        dtype = getattr(torch, name)
        a = torch.ones(MATMUL, MATMUL, dtype=dtype)
        b = torch.ones(MATMUL, MATMUL, dtype=dtype)
        seconds, n = _best_s(lambda: torch.mm(a, b))  # noqa: B023 - timed at once
        tflops[name] = round(2.0 * MATMUL**3 / seconds / 1e12, 4)
        runs.append(n)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    name = cpu_name()
    source = (f"measured by kernelviz on {socket.gethostname()} ({name}) at {when}, {threads} threads as torch uses "
              f"them, torch {torch.__version__}: the best of {copies} copies of {size >> 20} MiB (bytes read plus "
              f"written; the last-level cache is {_mib(llc)}) and of {min(runs)}+ {MATMUL}x{MATMUL} matmuls per dtype"
              f"{_load()}")
    return DevicePeaks(device=f"{name}, {threads} threads", dram_gb_per_s=round(2 * size / copy_s / 1e9, 2),
                       tflops=tflops, source=source, device_type="cpu")


def _load() -> str:
    """The load the measure ran beside (other work lowers the peaks it finds), where the OS says."""
    try:
        return f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    except (AttributeError, OSError):
        return ""


def _mib(size: int | None) -> str:
    return "unknown" if size is None else f"{size / (1 << 20):g} MiB"


def main(argv: list[str]) -> int:
    """The child: measure at the thread count given, print the peaks as one line of JSON."""
    if len(argv) != 1 or not argv[0].isdigit() or int(argv[0]) < 1:
        print("usage: python -m kernelviz.bench.cpupeaks THREADS", file=sys.stderr)
        return 2
    peaks = measure(int(argv[0]))
    print(json.dumps({"device": peaks.device, "dram_gb_per_s": peaks.dram_gb_per_s, "tflops": peaks.tflops,
                      "source": peaks.source}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
