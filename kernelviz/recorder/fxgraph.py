"""The FX graph Inductor was given, kept as the code of a runnable module (``Graph.fx``): what a what-if compiles
again under a change. Written from the graph's own code (``GraphModule.code``) in a module ``Repro`` as
``torch._dynamo.debug_utils`` writes one; small constants it holds are written with their values, larger ones as
random values of their size (said in :func:`load`'s caller's reason where it matters)."""

from __future__ import annotations

from typing import Any

HEADER = ("import torch\nfrom torch import tensor, device\nfrom math import inf, nan\n"
          "import torch._inductor.inductor_prims\n")


def written(gm: Any) -> str:
    """The module's code; raises where the graph cannot be written (a sub-module that is not a plain one)."""
    from torch._dynamo.debug_utils import NNModuleToString

    return HEADER + NNModuleToString.convert(gm)


def load(code: str) -> Any:
    """The ``torch.fx.GraphModule`` that ``code`` (from :func:`written`) holds, traced anew."""
    import torch

    scope: dict[str, Any] = {"__name__": "kernelviz_fx"}
    exec(compile(code, "<kernelviz fx graph>", "exec"), scope)
    return torch.fx.symbolic_trace(scope["Repro"]())
