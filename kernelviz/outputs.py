"""Where the command line writes. Each output is checked before the work (a regular file or none yet, none of
the command's inputs, in a folder that can be written, relative to the folder where the command started),
written after it through symbolic links to their targets, and written under a fresh name where that fails or
where something else wrote the file meanwhile: what was made is never lost, and no file is replaced but the
one the user named."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .codec import write_atomically
from .model import CaptureError

_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}


@dataclass
class Output:
    """One file the command was asked to write: ``option`` and ``given`` as the user named it, ``path`` where
    it is written (absolute, links followed) and ``seen`` what was there when the command started."""

    option: str
    given: str
    path: Path
    seen: tuple | None


def plan(named: dict[str, str | None], inputs: list[str | Path], start: Path) -> list[Output]:
    """The outputs named (option: path, None where not asked for), checked against ``inputs`` (the files and
    folders the command reads, the script it runs). Raises a one-line :class:`CaptureError` for an output
    that is not a file to write, is one of the inputs or another output, or whose folder cannot be written."""
    if all(given is None for given in named.values()):
        return []
    read = _identities(inputs, start)
    outputs: list[Output] = []
    for option, given in named.items():
        if given is None:
            continue
        output = _check(option, given, start, read)
        for other in outputs:
            if other.path == output.path or (output.seen is not None and other.seen == output.seen):
                raise CaptureError(f"{option} {given}: the same file as {other.option} {other.given}; "
                                   f"give each its own file")
        outputs.append(output)
    return outputs


def write(outputs: list[Output], texts: dict[str, Callable[[], str]], start: Path) -> bool:
    """Write each output's text (``texts`` by option). One that cannot be written where named (the write fails,
    or the file changed since :func:`plan`: a script wrote it) is written under a fresh name in ``start``, or
    the temporary folder, and one line says where. True when every output is where it was named."""
    as_named = True
    for output in outputs:
        text = texts[output.option]()
        try:
            if _identity(output.path) != output.seen:
                raise CaptureError("it was written while kernelviz ran; it is left as it is")
            try:
                output.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise CaptureError(f"its folder {output.path.parent} cannot be made: {exc.strerror}") from None
            try:
                write_atomically(output.path, text)
            except UnicodeEncodeError:  # a lone surrogate (in a name, a warning): written as its escape
                write_atomically(output.path, text.encode("utf-8", "backslashreplace").decode("utf-8"))
            say(f"kernelviz: wrote {output.given}")
            continue
        except (CaptureError, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        as_named = False
        say(f"kernelviz: did not write {output.given} ({why}); {_keep(text, output, start)}")
    return as_named


def say(text: str, stream: str = "stderr") -> None:
    """Print ``text`` to ``sys.stderr`` (or ``sys.stdout``); characters its encoding lacks (a lone surrogate)
    as their escapes. A stream a script closed is opened again on its file descriptor; one that cannot be
    written (the descriptor closed, a pipe whose reader is gone) is replaced by os.devnull: kernelviz's
    messages never cost what it writes."""
    for _ in range(3):
        out = getattr(sys, stream)
        try:
            print(text, file=out, flush=True)
            return
        except UnicodeEncodeError:
            encoding = getattr(out, "encoding", None) or "utf-8"
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except (ValueError, AttributeError):  # closed, or set to None
            setattr(sys, stream, _opened(2 if stream == "stderr" else 1))
        except OSError:
            setattr(sys, stream, _opened(None))


def _opened(fd: int | None):
    """A text stream on file descriptor ``fd``, or on os.devnull where that is closed too (or None)."""
    with contextlib.suppress(OSError, TypeError):
        return open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    return open(os.devnull, "w", encoding="utf-8")


def _check(option: str, given: str, start: Path, read: dict[tuple | Path, str]) -> Output:
    where = f"{option} {given}"
    if not given or given.endswith(("/", os.sep)):
        raise CaptureError(f"{where}: not a file name; give the file to write (e.g. report.html)")
    absolute = Path(start, given)
    try:
        st = os.stat(absolute)  # follows links
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a link loop, a path through a file, no permission
        raise CaptureError(f"{where}: cannot be written ({exc.strerror}); give another path") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise CaptureError(f"{where}: {kind}, not a file to write; give a file path")
    if st is not None and (st.st_dev, st.st_ino) in read:
        raise CaptureError(f"{where}: the same file as {read[st.st_dev, st.st_ino]}, which this command reads; "
                           "give another path")
    path = Path(os.path.realpath(absolute))  # a link (or a dangling one) is written through, to its target
    if path in read:
        raise CaptureError(f"{where}: {read[path]}, which this command reads; give another path")
    folder = next(p for p in path.parents if os.path.lexists(p))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        why = ("not a folder" if not os.path.isdir(folder) else "a read-only file system"
               if os.statvfs(folder).f_flag & os.ST_RDONLY else "no permission to write there")
        raise CaptureError(f"{where}: {folder} cannot be written to ({why}); give another path")
    return Output(option, given, path, _identity(path))


def _identities(inputs: list[str | Path], start: Path) -> dict[tuple | Path, str]:
    """(device, inode) of every file the inputs name (a folder's output code, a job's rank files): how the
    command's own inputs are told apart from what it may write, under any name; and each input's own path
    (the prefix of a job's rank files names no file, but a file there would hide them)."""
    from .loading import files_read

    found: dict[tuple | Path, str] = {Path(os.path.realpath(Path(start, given))): f"the input {given}"
                                      for given in inputs}
    for given in inputs:
        for file in files_read(Path(start, given)):
            with contextlib.suppress(OSError):
                st = os.stat(file)
                found.setdefault((st.st_dev, st.st_ino), str(given) if Path(start, given) == file
                                 else f"{file} (in {given})")
    return found


def _identity(path: Path) -> tuple | None:
    """What is at ``path`` now (None: nothing): a file written or replaced since has another."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _keep(text: str, output: Output, start: Path) -> str:
    """Write ``text`` to a new file named after ``output`` in ``start`` (else the temporary folder): where it
    went, or why it could not be written anywhere."""
    stem, suffix = Path(output.given).stem or "kernelviz", Path(output.given).suffix
    errors = []
    for folder in (start, Path(tempfile.gettempdir())):
        try:
            fd, name = tempfile.mkstemp(prefix=f"{stem}.kept-", suffix=suffix, dir=folder)
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror}")
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
            return f"wrote it to {name} instead"
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror}")
            with contextlib.suppress(OSError):
                os.unlink(name)
    return f"nor could it be kept ({'; '.join(errors)})"
