"""What a path names, loaded: a job's rank files (:mod:`kernelviz.ranks`) where the path is their prefix and
names no file, else a capture (:mod:`kernelviz.parse`: its JSON, saved output code, an AOTInductor package)."""

from __future__ import annotations

from pathlib import Path

from .codec import without_gc
from .model import Capture, Ranks
from .parse import checked
from .parse import files_read as capture_files
from .parse import load as load_capture
from .ranks import load_ranks, rank_files


def load(source: str | Path) -> Capture | Ranks:
    """A :class:`Ranks` from the files ``source.rank<N>.json`` of a job's ranks, else what
    :func:`kernelviz.parse.load` reads (and the :class:`~kernelviz.parse.ParseError` it raises)."""
    path = checked(source)
    if isinstance(path, Path) and not path.exists() and rank_files(path):
        with without_gc():
            return load_ranks(path)
    return load_capture(path)


def files_read(path: Path) -> list[Path]:
    """The files that ``load(path)`` may read: a job's rank files, a folder's ``*.py`` files, or the file."""
    ranks = [] if path.exists() else rank_files(path)
    return [file for _, file in ranks] if ranks else capture_files(path)
