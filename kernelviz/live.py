"""The live side of a captured graph: the globals of its compiled module in this process, where the
kernel objects (Triton autotuners, C++ bindings) and ``call`` are."""

from __future__ import annotations

from typing import Any

from .model import Graph


def module_globals(graph: Graph, compiled: Any = None) -> dict[str, Any] | None:
    """The globals of the module that ran ``graph``: from its compiled graph if given, else the module in
    Inductor's code cache whose file holds exactly this code; None where neither is found."""
    names = [k.name for k in graph.kernels] if graph.wrapper == "python" else []  # C++ kernels are no globals
    fn = getattr(compiled, "current_callable", None)
    found = getattr(getattr(fn, "__func__", fn), "__globals__", None)
    # A graph of extern calls alone names no kernel to check by: its module is known by its code.
    if isinstance(found, dict) and "call" in found and all(n in found for n in names) and (
            names or _holds(found.get("__file__"), graph.code)):
        return found
    try:
        from torch._inductor.codecache import PyCodeCache

        for module in list(PyCodeCache.modules):
            if all(hasattr(module, n) for n in names) and _holds(getattr(module, "__file__", None), graph.code):
                return vars(module)
    except (ImportError, AttributeError):
        pass
    return None


def _holds(path: str | None, code: str) -> bool:
    """Whether the file at ``path`` holds exactly ``code``."""
    try:
        with open(path or "", encoding="utf-8") as f:
            return f.read() == code
    except OSError:
        return False
