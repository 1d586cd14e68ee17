"""Run a Python script as ``python script.py args`` would (``sys.argv``, ``__main__``, ``sys.path[0]``),
under a kernelviz capture, and restore the interpreter's state afterwards."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import traceback
import types
from pathlib import Path
from typing import Any, Callable

from .model import Capture
from .outputs import say


class ScriptFailed(Exception):
    """The script raised, exited with a non-zero status, or ended the process (SIGTERM, ``os._exit``): ``status``
    is the exit code Python would give."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status


class Terminated(BaseException):
    """Raised in the script where SIGTERM arrives (as SIGINT raises KeyboardInterrupt), so that its capture is
    kept; ``kernelviz run`` then exits with 143, as a shell reports a process ended by SIGTERM."""


Finish = Callable[[Capture, "ScriptFailed | None"], int]


def run_script(path: Path, args: list[str], *, bench: bool = False, finish: Finish) -> int:
    """Run ``path`` with ``args`` under :func:`kernelviz.capture`, then hand the capture to ``finish`` with how
    the script failed (None: it did not), and return what ``finish`` returns: the exit status. ``finish`` is
    called however the script ends: it raises (its traceback is printed to stderr as Python prints it), exits,
    is sent SIGTERM (where SIGTERM was not handled otherwise), closes ``sys.stderr`` (see :func:`.outputs.say`)
    or calls ``os._exit`` (``finish`` runs before the process ends, with the status asked for). A failed
    script is not timed. Raises OSError where the script cannot be read."""
    from . import capture

    source = path.read_bytes()
    filename = str(path.resolve())  # as Python names __main__'s file (3.9+): absolute, argv[0] as given
    saved = sys.argv, sys.path[0] if sys.path else None, sys.modules.get("__main__"), os.getcwd()
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=filename, __builtins__=__builtins__, __cached__=None)
    sys.argv = [str(path), *args]
    if sys.path:
        sys.path[0] = str(Path(filename).parent)
    else:
        sys.path.append(str(Path(filename).parent))
    sys.modules["__main__"] = main
    session, pid = capture(bench=bench), os.getpid()
    failed = None
    try:
        with _process_ends(session, finish), session:
            try:
                exec(compile(source, filename, "exec", dont_inherit=True), main.__dict__)
            except SystemExit as exc:
                failed = _exit_status(exc)
                if failed is not None:
                    raise  # a failed script is not timed
    except SystemExit:
        pass
    except Terminated:
        say("kernelviz: the script was sent SIGTERM")
        failed = ScriptFailed(128 + signal.SIGTERM, "ended by SIGTERM")
    except BaseException as exc:  # noqa: BLE001 - the script's own error, shown as Python shows it
        _print_traceback(exc, filename)
        failed = ScriptFailed(130 if isinstance(exc, KeyboardInterrupt) else 1, f"{type(exc).__name__}: {exc}")
    finally:
        sys.argv = saved[0]
        if saved[1] is not None:
            sys.path[0] = saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]
        with contextlib.suppress(OSError):  # where the script moved it (the folder may be gone)
            os.chdir(saved[3])
    if os.getpid() != pid:  # a child the script forked that returned: the capture is its parent's
        return failed.status if failed is not None else 0
    return finish(session.capture, failed)


@contextlib.contextmanager
def _process_ends(session, finish: Finish):
    """While the script runs: SIGTERM raises :class:`Terminated` (where it would end the process), and
    ``os._exit`` first ends the capture and calls ``finish``; in processes the script forks, both do what they
    would have done. Both are restored after."""
    pid, real_exit = os.getpid(), os._exit

    def terminated(signum, frame):
        if os.getpid() == pid:
            raise Terminated
        signal.signal(signum, signal.SIG_DFL)  # a forked child (a pool's worker) ends as it would have
        os.kill(os.getpid(), signum)

    def exit_now(status: int) -> None:
        if os.getpid() == pid and os._exit is exit_now:  # not in a forked child, and only once
            os._exit = real_exit
            with contextlib.suppress(BaseException):
                session.__exit__(SystemExit, None, None)  # not timed
            with contextlib.suppress(BaseException):
                finish(session.capture, ScriptFailed(status, f"os._exit({status})"))
                sys.stderr.flush()
        real_exit(status)

    handler = (signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread()
               else None)
    if handler == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, terminated)
    os._exit = exit_now
    try:
        yield
    finally:
        os._exit = real_exit
        if handler == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, handler)


def _exit_status(exc: SystemExit) -> ScriptFailed | None:
    """What ``python script.py`` would exit with after ``sys.exit(code)`` (None: status 0)."""
    code: Any = exc.code
    if code is None or code == 0:
        return None
    if isinstance(code, int):
        return ScriptFailed(code, f"exit status {code}")
    say(str(code))
    return ScriptFailed(1, str(code))


def _print_traceback(exc: BaseException, filename: str) -> None:
    """The traceback from the script's first frame on (kernelviz's own frames left out)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if tb is None and not isinstance(exc, SyntaxError):  # raised outside the script's code: show it all
        tb = exc.__traceback__
    say("".join(traceback.format_exception(type(exc), exc, tb)).rstrip("\n"))
