"""A graph's wrapper code and C++ as they read on ROCm: torch's own hipify mapping for Inductor code
(``maybe_hipify_code_wrapper(code, force_hipify=True)``, the one AOTInductor applies), with a line-level
diff of what it changed. It is text only, so it works on any machine with torch."""

from __future__ import annotations

import difflib
from typing import Any

from ..model import Graph

_HIPIFIED_KINDS = ("cpp", "jiterator", "cuda")  # kernels whose source is C++ (Triton's is Python)


_loaded = False  # whether hipify ran in this process (its tables imported, its regex compiled and cached)


def hipify(text: str) -> str:
    """``text`` as torch's hipify mapping rewrites it for ROCm."""
    global _loaded
    from torch._inductor.codegen.aoti_hipify_utils import maybe_hipify_code_wrapper

    out = maybe_hipify_code_wrapper(text, force_hipify=True)
    _loaded = True
    return out


def ready() -> bool:
    """Whether a HIP reading costs a millisecond here: the first one in a process costs seconds (importing
    Inductor's codegen and torch's hipify tables, compiling their 40 KB regex), which no display pays for a tab
    that may never open. The live panel asks for a graph's reading when its tab opens."""
    return _loaded


def text_diff(before: str, after: str) -> dict[str, Any]:
    """What changed, line by line: ``changes`` as ``[line, new text]`` (1-based, in ``after``, which has the
    same lines when only words were replaced), and the unified diff."""
    old, new = before.splitlines(), after.splitlines()
    changes: list[list[Any]] = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "equal":
            changes += [[j + 1, new[j]] for j in range(j1, j2)]
    diff = "\n".join(difflib.unified_diff(old, new, "CUDA", "ROCm (hipified)", n=1, lineterm=""))
    return {"changes": changes, "diff": diff, "same_lines": len(old) == len(new)}


def hip_view(graph: Graph, *, text: bool = True) -> dict[str, Any]:
    """The HIP reading of ``graph``'s code and of its C++ kernels' sources; with ``text`` the whole texts
    before and after too (the live widget has no code of its own), else only the changed lines."""
    def read(before: str) -> dict[str, Any]:
        after = hipify(before)
        return text_diff(before, after) | ({"text": after, "before": before} if text else {})

    try:
        return {"error": None, "code": read(graph.code),
                "kernels": {k.name: read(k.source) for k in graph.kernels if k.kind in _HIPIFIED_KINDS}}
    except ImportError as exc:
        return {"error": f"this torch has no hipify mapping for Inductor code ({exc})", "code": None, "kernels": {}}
