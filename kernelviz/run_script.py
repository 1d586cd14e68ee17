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
    is sent SIGTERM (where SIGTERM was not handled otherwise; one that comes while ``finish`` writes waits for
    it), closes ``sys.stderr`` (see :func:`.outputs.say`) or calls ``os._exit`` (``finish`` runs before the
    process ends, with the status asked for). A failed script is not timed. Raises OSError where the script
    cannot be read."""
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
    session = capture(bench=bench)
    failed = None
    with _ProcessEnds(session, finish) as ends:
        try:
            with session:
                try:
                    exec(compile(source, filename, "exec", dont_inherit=True), main.__dict__)
                except SystemExit as exc:
                    failed = _exit_status(exc)
                    if failed is not None:
                        raise  # a failed script is not timed
        except BaseException as exc:  # noqa: BLE001 - the script's own error, shown as Python shows it
            ends.writing = True
            if not isinstance(exc, SystemExit):
                failed = _failed(exc, filename)
        ends.writing = True
        sys.argv = saved[0]
        if saved[1] is not None:
            sys.path[0] = saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]
        with contextlib.suppress(OSError):  # where the script moved it (the folder may be gone)
            os.chdir(saved[3])
        if os.getpid() != ends.pid:  # a child the script forked that returned: the capture is its parent's
            return failed.status if failed is not None else 0
        status = finish(session.capture, failed)
    return 128 + signal.SIGTERM if ends.terminated else status


class _ProcessEnds:
    """While the script runs: SIGTERM raises :class:`Terminated` (where it would end the process), and
    ``os._exit`` first ends the capture and calls ``finish``; once ``writing``, SIGTERM is noted
    (``terminated``) and the process ends after. In processes the script forks, both do what they would have
    done. Both are restored on exit."""

    def __init__(self, session, finish: Finish) -> None:
        self.session, self.finish = session, finish
        self.pid, self.real_exit = os.getpid(), os._exit
        self.writing = self.terminated = False
        self.handler = None

    def __enter__(self) -> _ProcessEnds:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
            self.handler = signal.signal(signal.SIGTERM, self._sigterm)
        os._exit = self._exit
        return self

    def __exit__(self, *exc: Any) -> None:
        os._exit = self.real_exit
        if self.handler is not None:
            signal.signal(signal.SIGTERM, self.handler)

    def _sigterm(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.pid:  # a forked child (a pool's worker) ends as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.terminated = True
        if not self.writing:
            raise Terminated

    def _exit(self, status: int) -> None:
        if os.getpid() == self.pid and not self.writing:  # not in a forked child, nor while writing
            self.writing = True
            with contextlib.suppress(BaseException):
                self.session.__exit__(SystemExit, None, None)  # not timed
            with contextlib.suppress(BaseException):
                self.finish(self.session.capture, ScriptFailed(status, f"os._exit({status})"))
                sys.stderr.flush()
        self.real_exit(status)


def _failed(exc: BaseException, filename: str) -> ScriptFailed:
    """How the script failed by raising ``exc``, said as Python would say it (SIGTERM: in one line)."""
    if isinstance(exc, Terminated):
        say("kernelviz: the script was sent SIGTERM")
        return ScriptFailed(128 + signal.SIGTERM, "ended by SIGTERM")
    _print_traceback(exc, filename)
    return ScriptFailed(130 if isinstance(exc, KeyboardInterrupt) else 1, f"{type(exc).__name__}: {exc}")


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
