"""Why a graph or a launch could not be timed."""

from __future__ import annotations


class BenchError(RuntimeError):
    """A graph could not be timed (the message says why, in one line)."""


class LaunchFailed(RuntimeError):
    """A launch raised while its graph was being recorded."""

    def __init__(self, index: int, reason: str):
        super().__init__(reason)
        self.index, self.reason = index, reason


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip().rstrip(":")
