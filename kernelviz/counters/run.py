"""Run Nsight Compute on a child process that replays the chosen launches (``child``), then read its report
in another (``read``): the user's process is never attached to and never loads ncu's libraries.

``ncu`` is looked for on ``PATH``, in ``$CUDA_HOME/bin`` and in ``/usr/local/cuda/bin``; its Python reader
in the ``extras/python`` folder of the Nsight Compute that ``ncu`` belongs to (or of the newest one under
``/opt/nvidia/nsight-compute``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..children import child_environment
from . import child as child_process

SECTIONS = ("SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats", "WarpStateStats",
            "SourceCounters", "SpeedOfLight_RooflineChart")
# beyond the sections: DRAM bytes and the CUDA-core floating-point instructions (read.METRICS, FLOP_METRICS)
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum",
           *(f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "dfh" for op in ("add", "mul", "fma")))
NO_PERMISSION = "ERR_NVGPUCTRPERM"
TIMEOUT_S = 1800
DEFAULT_CUDA = "/usr/local/cuda"


class Unavailable(RuntimeError):
    """Counters cannot be measured here (one line: which of ncu, permission or a GPU is missing)."""


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), DEFAULT_CUDA):
        if root and Path(root, "bin", "ncu").is_file():
            return str(Path(root, "bin", "ncu"))
    return None


def _version(folder: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", folder.name)) or (0,)


def reader_path(ncu: str) -> str | None:
    """The ``extras/python`` folder holding ``ncu_report.py`` for this ``ncu``."""
    real = Path(ncu).resolve()
    candidates = [real.parent / "extras" / "python", real.parent.parent / "extras" / "python"]
    for base in (real.parent.parent, Path("/opt/nvidia/nsight-compute")):
        candidates += [p / "extras" / "python" for p in sorted(base.glob("nsight-compute*"), key=_version,
                                                                   reverse=True)]
    candidates += [p / "extras" / "python" for p in sorted(Path("/opt/nvidia/nsight-compute").glob("*"),
                                                           key=_version, reverse=True)]
    return next((str(c) for c in candidates if (c / "ncu_report.py").is_file()), None)


def tool_name(ncu: str) -> str:
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return "Nsight Compute"
    m = re.search(r"Version ([\d.]+)", out)
    return f"Nsight Compute {m.group(1)}" if m else "Nsight Compute"


def _environment(extra: str | None = None) -> dict[str, str]:
    """A kernelviz child's environment, with ``extra`` (the folder of ncu's Python reader) importable too."""
    env = child_environment()
    if extra:
        env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], extra])
    return env


def profile(ncu: str, job: dict[str, Any], on_enter: Callable[[int, int], None],
            on_skip: Callable[[int, str], None]) -> dict[str, Any]:
    """Run ``job`` (see ``child``) under ncu and read its report: ``{"results": [...]}`` (see ``read``).
    Raises Unavailable where ncu may not read the counters, RuntimeError (one line) where it failed."""
    reader = reader_path(ncu)
    if reader is None:
        raise Unavailable(f"Nsight Compute's Python reader (ncu_report) was not found beside {ncu}")
    with tempfile.TemporaryDirectory(prefix="kernelviz-counters-") as folder:
        job_path, report = Path(folder, "job.json"), Path(folder, "report.ncu-rep")
        job_path.write_text(json.dumps(job))
        command = [ncu, "--profile-from-start", "off", "--nvtx", "--import-source", "yes",
                   *[a for s in SECTIONS for a in ("--section", s)], "--metrics", ",".join(METRICS),
                   "--export", str(report), "--force-overwrite",
                   sys.executable, "-m", "kernelviz.counters.child", str(job_path)]
        log = Path(folder, "ncu.log").open("w+")
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=_environment(),
                                start_new_session=True)
        timer = threading.Timer(TIMEOUT_S, os.killpg, (proc.pid, signal.SIGKILL))  # ncu and the child it started
        timer.start()
        chatter = []
        try:
            for line in proc.stdout:
                words = line.split(" ", 3)
                if words[0] != child_process.MARK:
                    chatter.append(line)
                elif words[1] == "enter":
                    on_enter(int(words[2]), int(words[3]))
                elif words[1] == "skip":
                    on_skip(int(words[2]), words[3].strip())
            proc.wait()
        finally:
            timer.cancel()
        log.seek(0)
        text = log.read() + "".join(chatter)
        log.close()
        if NO_PERMISSION in text:
            raise Unavailable(f"no permission for GPU performance counters ({NO_PERMISSION}): see "
                              "https://developer.nvidia.com/ERR_NVGPUCTRPERM")
        if not report.is_file():
            errors = [ln.strip() for ln in text.splitlines() if "ERROR" in ln or "Error" in ln]
            last = (errors or [ln.strip() for ln in text.splitlines() if ln.strip()] or
                    [f"exit status {proc.returncode}"])[-1]
            raise RuntimeError(f"ncu wrote no report: {last[:300]}")
        read = subprocess.run([sys.executable, "-m", "kernelviz.counters.read", str(report)], capture_output=True,
                              text=True, env=_environment(reader), timeout=TIMEOUT_S)
        if read.returncode != 0:
            tail = (read.stderr.strip().splitlines() or [f"exit status {read.returncode}"])[-1]
            raise RuntimeError(f"the report could not be read with ncu_report: {tail[:300]}")
        return json.loads(read.stdout)
