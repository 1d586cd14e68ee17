"""One line that names the extra to install, where a notebook or a benchmark needs a package kernelviz does not."""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtra(ImportError):
    """A package a notebook or benchmark needs is not installed; IPython shows it as its one line."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


def needs(module: str, extra: str, what: str) -> ModuleType:
    """``module`` imported; where it is missing, ``what`` (the notebook or script) stops with one line that says
    to install kernelviz's ``extra``: a :class:`MissingExtra` in IPython, else ``SystemExit`` (the line on stderr,
    exit status 1)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        pass
    message = (f"{what} needs {module}, which kernelviz's '{extra}' extra installs: "
               f".venv/bin/python -m pip install -e '.[{extra}]' in the clone (or 'kernelviz[{extra}]')")
    from IPython import get_ipython

    if get_ipython() is not None:
        raise MissingExtra(message) from None
    raise SystemExit(message)
