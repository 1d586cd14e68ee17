"""The environment of kernelviz's child processes (the timing process, the counters' child): this kernelviz
importable, Inductor compiling in-process, and without torch's warning that numpy is absent (kernelviz does not
need it, and a child's last line of stderr is what its failure reports)."""

from __future__ import annotations

import os
from pathlib import Path

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
