"""Run a Python script as ``python script.py args`` would (``sys.argv``, ``__main__``, ``sys.path[0]``),
under a kernelviz capture, and restore the interpreter's state afterwards."""

from __future__ import annotations

import sys
import traceback
import types
from pathlib import Path
from typing import Any

from .model import Capture


class ScriptFailed(Exception):
    """The script raised, or exited with a non-zero status: ``status`` is the exit code Python would give."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status


def run_script(path: Path, args: list[str], *, bench: bool = False) -> tuple[Capture, ScriptFailed | None]:
    """Run ``path`` with ``args`` under :func:`kernelviz.capture`; the capture is returned also when the script
    fails, with how it failed (its traceback is printed to stderr as Python prints it). A failed script is
    not timed. Raises OSError where the script cannot be read."""
    from . import capture

    source = path.read_bytes()
    filename = str(path.resolve())  # as Python names __main__'s file (3.9+): absolute, argv[0] as given
    saved = sys.argv, sys.path[0] if sys.path else None, sys.modules.get("__main__")
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=filename, __builtins__=__builtins__, __cached__=None)
    sys.argv = [str(path), *args]
    if sys.path:
        sys.path[0] = str(Path(filename).parent)
    else:
        sys.path.append(str(Path(filename).parent))
    sys.modules["__main__"] = main
    session = capture(bench=bench)
    failed = None
    try:
        with session:
            try:
                exec(compile(source, filename, "exec", dont_inherit=True), main.__dict__)
            except SystemExit as exc:
                failed = _exit_status(exc)
                if failed is not None:
                    raise  # a failed script is not timed
    except SystemExit:
        pass
    except BaseException as exc:  # noqa: BLE001 - the script's own error, shown as Python shows it
        _print_traceback(exc, filename)
        failed = ScriptFailed(130 if isinstance(exc, KeyboardInterrupt) else 1, f"{type(exc).__name__}: {exc}")
    finally:
        sys.argv = saved[0]
        if saved[1] is not None:
            sys.path[0] = saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]
    return session.capture, failed


def _exit_status(exc: SystemExit) -> ScriptFailed | None:
    """What ``python script.py`` would exit with after ``sys.exit(code)`` (None: status 0)."""
    code: Any = exc.code
    if code is None or code == 0:
        return None
    if isinstance(code, int):
        return ScriptFailed(code, f"exit status {code}")
    print(code, file=sys.stderr)
    return ScriptFailed(1, str(code))


def _print_traceback(exc: BaseException, filename: str) -> None:
    """The traceback from the script's first frame on (kernelviz's own frames left out)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if tb is None and not isinstance(exc, SyntaxError):  # raised outside the script's code: show it all
        tb = exc.__traceback__
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
