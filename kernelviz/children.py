"""kernelviz's child processes: their environment (this kernelviz importable, Inductor compiling in-process,
without torch's warning that numpy is absent: kernelviz does not need it, and a child's last line of stderr is what
its failure reports), and the timing process (:class:`Worker`, running :mod:`kernelviz.worker`), which the timing
and the repros' expected outputs both use."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Graph

IDLE_S = 600  # a kept worker ends after this long without a job

NO_NUMPY_WARNING = "ignore:Failed to initialize NumPy"


def child_environment() -> dict[str, str]:
    """This process's environment for a child that runs ``python -m kernelviz...``."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONWARNINGS"] = ",".join(w for w in (env.get("PYTHONWARNINGS"), NO_NUMPY_WARNING) if w)
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None and "PYTHONPYCACHEPREFIX" not in env:
        # no bytecode kept here (the GPU image's way): a child would compile torch's and Inductor's sources at
        # each start (seconds); kernelviz's children keep their own cache instead (the user's setting is theirs)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode_cache())
    return env


def bytecode_cache() -> Path:
    """Where kernelviz's child processes keep the bytecode of what they import, where this process keeps none."""
    return cache_folder("pycache")


def cache_folder(name: str) -> Path:
    """Kernelviz's own cache folder ``name`` (in ``$XDG_CACHE_HOME``, else ``~/.cache``; not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kernelviz" / name


class Worker:
    """A timing process started ahead of its job: it imports torch and kernelviz while this process goes on,
    then waits on its stdin for one job (CUDA starts there once a job needs it): timing graphs, or the repro
    scripts' expected outputs (:mod:`kernelviz.repro.record`). One lives beside this process at a time: the one at
    work (the next starts once it has ended), else one kept for the next job (``keep``; ``warm`` starts one when a
    timing on the GPU or with repros, or a capture's load, ends), which ends itself after ``IDLE_S`` without a job,
    or when this process ends (its stdin closes)."""

    _kept: Worker | None = None
    _lock = threading.Lock()

    def __init__(self):
        self.env = child_environment()
        self.folder = tempfile.TemporaryDirectory(prefix="kernelviz-bench-")
        self.stderr_path = Path(self.folder.name, "stderr.txt")
        self.stderr = self.stderr_path.open("w")
        # warnings off: the last line of its stderr says how it died
        self.proc = subprocess.Popen([sys.executable, "-W", "ignore", "-m", "kernelviz.worker", "--idle",
                                      str(IDLE_S)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True,
                                     env=self.env, start_new_session=True)

    @classmethod
    def get(cls) -> Worker:
        """The kept worker where it still waits and was started as one would be now; else a new one."""
        with cls._lock:
            kept, cls._kept = cls._kept, None
        if kept is not None and kept.env == child_environment() and kept.ready():
            return kept
        if kept is not None:
            kept.close()
        return cls()

    @classmethod
    def warm(cls, cuda: bool = False) -> None:
        """Have a worker waiting for the next timing (the kept one, or one started now); with ``cuda``, one that
        starts CUDA while it waits."""
        worker = cls.get()
        if cuda:
            worker.start_cuda()
        worker.keep()

    @classmethod
    def warm_after(cls, graphs: list[Graph]) -> None:
        """After a job on ``graphs`` took the waiting worker, have one waiting again, so that the next timing (of a
        capture's step, or a loaded capture) starts at once."""
        if graphs:
            cls.warm()

    def keep(self) -> None:
        """Keep this unused worker for the next timing (the one kept before is closed)."""
        with Worker._lock:
            previous, Worker._kept = Worker._kept, self
        if previous is not None and previous is not self:
            previous.close()
        atexit.unregister(_close_kept)
        atexit.register(_close_kept)

    def ready(self) -> bool:
        return self.proc.poll() is None

    def start_cuda(self) -> None:
        """Have the waiting worker start CUDA now (a capture that times on a GPU is under way), not once its job
        has come."""
        try:
            self.proc.stdin.write("cuda\n")
            self.proc.stdin.flush()
        except OSError:  # it died: the job's run says how
            pass

    def give(self, job: str, kind: str = "time") -> Path:
        """Hand the worker its job (``time``: a capture's JSON and what to leave out; ``expect``: the expected
        outputs to compute); the folder its results go to."""
        path = Path(self.folder.name, "job.json")
        path.write_text(job)
        try:
            self.proc.stdin.write(f"{kind}\t{path}\t{self.folder.name}\n")
            self.proc.stdin.close()
        except OSError:  # it died before its job came: follow reads how
            pass
        return Path(self.folder.name)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self.folder.cleanup()


def _close_kept() -> None:
    with Worker._lock:
        kept, Worker._kept = Worker._kept, None
    if kept is not None:
        kept.close()
