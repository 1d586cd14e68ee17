"""The live side of a captured graph: the globals of its compiled module in this process, where the
kernel objects (Triton autotuners, C++ bindings) and ``call`` are."""

from __future__ import annotations

from typing import Any

from .model import Graph


def module_globals(graph: Graph, compiled: Any = None) -> dict[str, Any] | None:
    """The globals of the module that ran ``graph``: from its compiled graph if given, else the module in
    Inductor's code cache whose file holds exactly this code; None where neither is found."""
    names = [k.name for k in graph.kernels]
    fn = getattr(compiled, "current_callable", None)
    found = getattr(getattr(fn, "__func__", fn), "__globals__", None)
    if isinstance(found, dict) and all(n in found for n in names):
        return found
    try:
        from torch._inductor.codecache import PyCodeCache

        for module in list(PyCodeCache.modules):
            if all(hasattr(module, n) for n in names) and getattr(module, "__file__", None):
                with open(module.__file__) as f:
                    if f.read() == graph.code:
                        return vars(module)
    except (ImportError, AttributeError, OSError):
        pass
    return None
