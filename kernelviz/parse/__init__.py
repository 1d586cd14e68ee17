"""Parse Inductor output code (the wrapper module it writes) into the kernelviz model."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import stat
from pathlib import Path

from ..codec import without_gc
from ..compressed import SUFFIX, load_file
from ..model import Capture, CaptureError, Graph, Kernel
from .cpp_wrapper import cpp_kernels, is_cpp_wrapper, read_cpp_call
from .errors import ParseError
from .kernels import find_kernels
from .logs import unwrap
from .package import is_package, read_package
from .wrapper import read_call

_AOT_ID = re.compile(r"# AOT ID: \['([^']*)'\]")  # at a line's start: see _aot_ids
EXPECTED = ("expected Inductor output code (a Python module that defines kernels with "
            "async_compile.<backend>(...) and a call(args) wrapper, as saved by TORCH_COMPILE_DEBUG, "
            "TORCH_LOGS=output_code or tlparse; with cpp_wrapper, a C++ wrapper in cpp_wrapper_src), a folder of it, "
            "a kernelviz capture (.json, or .kvz from cap.save(); NAME for NAME.kvz), a job's rank files (NAME for "
            "NAME.rank<N>.kvz or .json) or an AOTInductor package (.pt2)")


NO_SOURCE = "its Triton source is not in the module (the C++ wrapper loads its compiled binary)"


def parse_graph(text: str, graph_id: str | None = None) -> Graph:
    """Parse one output-code module. Unknown parts are kept as raw text with a warning."""
    if "\x00" in text:
        raise ParseError(f"binary data (a NUL byte at offset {text.index(chr(0))}), not text; {EXPECTED}")
    lines = text.splitlines()
    starts = _line_starts(text, lines)
    warnings: list[str] = []
    definitions = find_kernels(text, lines, starts, warnings)
    skip = [(d.first_line, d.end_line) for d in definitions]
    kernels = {d.kernel.name: d.kernel for d in definitions}
    wrapper = "cpp" if is_cpp_wrapper(text) else "python"
    if wrapper == "cpp":
        kernels.update((k.name, k) for k in cpp_kernels(text) if k.name not in kernels)
        body = read_cpp_call(text, kernels, warnings)
        for launch in body.launches:  # Triton kernels the C++ wrapper only loads as binaries
            if launch.kernel_name and launch.kernel_name not in kernels:
                kernels[launch.kernel_name] = Kernel(name=launch.kernel_name, kind="triton", source="")
                warnings.append(f"kernel {launch.kernel_name}: {NO_SOURCE}")
    else:
        body = read_call(text, lines, starts, kernels, skip, warnings)
    if not kernels and body.span is None:
        raise ParseError(f"found no kernels and no call(args); {EXPECTED}")
    if body.span is None:
        warnings.append("no call(args) wrapper found: launches are unknown")
    aot = next(_aot_ids(text), None)
    gid = graph_id or (aot.group(1) if aot else "graph")
    kind = next((k for k in ("forward", "backward", "inference") if gid.endswith(k)), "unknown")
    return Graph(id=gid, kind=kind, device=_device(text, body.device, kernels), code=text,
                 kernels=list(kernels.values()), launches=body.launches, memory=body.memory,
                 inputs=body.inputs, outputs=body.outputs, call_span=body.span, warnings=warnings, wrapper=wrapper)


def _line_starts(text: str, lines: list[str]) -> list[int]:
    """The offset where each line starts (and the text's end). Where "\n" ends every line (no other line
    break of ``str.splitlines``, each of which would add a line), from the lines' lengths."""
    if "\r" not in text and len(lines) == text.count("\n") + (not text.endswith("\n")):
        starts = list(itertools.accumulate(map((1).__add__, map(len, lines)), initial=0))
        starts[-1] = len(text)  # the last line may have no "\n"
        return starts
    return list(itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))


def _device(text: str, alloc_device: str | None, kernels: dict) -> str:
    if m := re.search(r"device_str='(\w+)'", text):
        return m.group(1)
    if alloc_device:
        return alloc_device
    if any(k.kind == "cpp" for k in kernels.values()):
        return "cpu"
    return "cuda" if "empty_strided_cuda(" in text else "cpu"


def _aot_ids(text: str):
    """``# AOT ID: ['...']`` lines (found by their literal text, then checked to start a line)."""
    return (m for m in _AOT_ID.finditer(text) if m.start() == 0 or text[m.start() - 1] == "\n")


def split_modules(text: str) -> list[str]:
    """Split text holding several modules (a TORCH_LOGS=output_code log) at each ``# AOT ID`` line."""
    marks = [m.start() for m in _aot_ids(text)]
    if len(marks) <= 1:
        return [text]
    return [text[a:b] for a, b in zip(marks, marks[1:] + [len(text)])]


def load(source: str | Path) -> Capture:
    """A :class:`Capture` from a capture's JSON (``Capture.to_json``) or its saved form (``cap.save(NAME)``
    writes ``NAME.kvz``: ``load(NAME)`` reads it back), from saved output code (a file, a directory of them, a
    TORCH_LOGS log of several modules, or the text itself), or from an AOTInductor package
    (:func:`kernelviz.loading.load` reads a job's rank files too).

    Raises :class:`ParseError` (a :class:`CaptureError`) with one line that names the file and says what
    was expected: for text that is not Inductor output code, for data that is not text, a missing file,
    and for JSON that is not a capture this version reads (naming the field, or the schema version).
    """
    with without_gc():
        return _load(source)


def _load(source: str | Path) -> Capture:
    source = checked(source)
    if isinstance(source, Path):
        if not source.exists():
            if (saved := saved_file(source)).is_file():
                return load_file(Capture, saved)
            if not os.path.lexists(source):  # a link that leads nowhere is said so below
                raise ParseError(f"{source}: no such file or folder; {EXPECTED}")
        if source.is_dir():
            return _load_folder(source)
        if source.suffix == SUFFIX:  # what cap.save() writes
            return load_file(Capture, source)
        if is_package(source):  # an AOTInductor package
            return read_package(source)
        text = _read(source)
        with _named(source):
            return _from_text(text, source.stem, json=source.suffix in (".json", ".ipynb"))
    with _named(None if len(source) > 200 else f"{source!r} (no file of that name: read as output code)"):
        return _from_text(source, None, json=False)


def checked(source: object) -> str | Path:
    """``source`` as a path or as text (a string is a path unless it holds a line break and no file has that
    name, or is 4096 characters or more); anything that is neither is refused in one line saying what to pass."""
    what = "pass a path (str or pathlib.Path) to a capture's .json, to output code or a folder of it, or the code"
    if isinstance(source, os.PathLike):
        try:
            source = os.fspath(source)
        except TypeError as exc:  # its __fspath__ returned neither str nor bytes
            raise TypeError(f"kernelviz.load: {exc}; {what} as str") from None
        if isinstance(source, str):
            source = Path(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError(f"kernelviz.load: got {type(source).__name__}; {what} as str (os.fsdecode(path) for a "
                        "bytes path)")
    if not isinstance(source, (str, Path)):
        raise TypeError(f"kernelviz.load: got {type(source).__name__}; {what} as str")
    if source == "":
        raise ParseError(f"an empty path; {what}")
    is_path = isinstance(source, Path) or (len(source) < 4096 and ("\n" not in source or os.path.lexists(source)))
    if is_path and "\x00" in str(source):
        raise ParseError(f"{str(source)!r}: a path holding a NUL byte, which no file name can hold; {what}")
    if is_path:
        try:
            os.fsencode(source)
        except UnicodeEncodeError as exc:  # a lone surrogate
            raise ParseError(f"{str(source)!r}: no file name can hold {exc.object[exc.start]!r}; {what}") from None
    return Path(source) if is_path else source


_JSON_OBJECT = re.compile(r'\s*\{\s*"')  # how a JSON object starts (a C++ block "{ int ..." does not)


def _from_text(text: str, name: str | None, json: bool) -> Capture:
    if not text.strip():
        raise ParseError(f"empty; {EXPECTED}")
    if json or _JSON_OBJECT.match(text):
        return Capture.from_json(text)
    return Capture(graphs=_graphs(text, name))


@contextlib.contextmanager
def _named(name: Path | str | None):
    """Raise a :class:`CaptureError` from inside as a :class:`ParseError`, with the file's name first."""
    try:
        yield
    except CaptureError as exc:
        raise ParseError(f"{name}: {exc}" if name is not None else str(exc)) from None


def _graphs(text: str, name: str | None) -> list[Graph]:
    text = unwrap(text) or text
    modules = split_modules(text)
    if len(modules) == 1:
        return [parse_graph(text, None if next(_aot_ids(text), None) else name)]
    graphs = []
    for i, module in enumerate(modules):
        try:
            graphs.append(parse_graph(module))
        except ParseError as exc:
            raise ParseError(f"module {i + 1} of {len(modules)} ({module.splitlines()[0]}): {exc}") from None
    return graphs


def _load_folder(folder: Path) -> Capture:
    """The output code in the ``*.py`` regular files under ``folder`` (symbolic links to folders are not
    followed; FIFOs, sockets, devices, folders named ``*.py`` and links that lead nowhere are passed over)."""
    files, passed = [], []
    for path in _py_names(folder, onerror=lambda exc: passed.append(f"{exc.filename} ({_why(exc)})")):
        try:
            text = _read(path)
        except ParseError as exc:
            passed.append(str(exc).split("; ")[0])
            continue
        if "async_compile" in text or is_cpp_wrapper(text):
            files.append((path, text))
    if not files:
        skipped = f" (passed over: {'; '.join(passed[:3])}{' ...' * (len(passed) > 3)})" if passed else ""
        raise ParseError(f"{folder}: no Inductor output code in this directory{skipped}; {EXPECTED}")
    graphs = []
    for file, text in sorted(files):
        with _named(file):
            graphs += _graphs(text, file.stem)
    return Capture(graphs=graphs)


def _py_names(folder: Path, onerror=None):
    """The paths named ``*.py`` under ``folder``, by folder and name (links to folders are not followed)."""
    for root, dirs, names in os.walk(folder, onerror=onerror):
        dirs.sort()
        for name in sorted(n for n in names + dirs if n.endswith(".py")):
            yield Path(root) / name


def saved_file(name: Path) -> Path:
    """The file ``cap.save(name)`` writes outside a distributed job (``name``.kvz), which ``load(name)`` reads."""
    return name.with_name(name.name + SUFFIX)


def files_read(path: Path) -> list[Path]:
    """The files that ``load(path)`` may read: the file, the ``*.py`` files of a folder, the file ``cap.save(path)``
    wrote."""
    if path.is_dir():
        return list(_py_names(path))
    return [path] if path.exists() else [saved_file(path)]


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _read(path: Path) -> str:
    """The text of a regular file; a one-line :class:`ParseError` for anything else. Opened without blocking
    (a FIFO is refused, never waited on) and checked once open (what was checked is what is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ParseError(f"{path}: no such file; {EXPECTED}") from None
    except OSError as exc:
        raise ParseError(f"{path}: cannot be read ({_why(exc)}); {EXPECTED}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ParseError(f"{path}: {_KINDS.get(stat.S_IFMT(mode), 'not a regular file')}, not a file to read; "
                             f"{EXPECTED}")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ParseError(f"{path}: cannot be read ({_why(exc)}); {EXPECTED}") from None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError(f"{path}: binary data, not UTF-8 text; {EXPECTED}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text  # as text mode reads it


_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}
