"""The FX graph Inductor was given, kept as the code of a runnable module (``Graph.fx``): what a what-if compiles
again under a change. Written from the graph's own code (``GraphModule.code``) in a module ``Repro`` as
``torch._dynamo.debug_utils`` writes one: small buffers it holds are written with their values, larger ones as
random values of their size; a tensor constant that is neither (``_tensor_constant0``) is not written, and such a
graph does not load (the what-if says so)."""

from __future__ import annotations

from typing import Any

HEADER = ("import torch\nfrom torch import tensor, device\nfrom math import inf, nan\n"
          "import torch._inductor.inductor_prims\n")


def written(gm: Any) -> str | None:
    """The module's code; None where the graph cannot be written so (it holds sub-graphs, e.g. a higher-order op's
    bodies, that are not plain modules)."""
    from torch._dynamo.debug_utils import NNModuleToString

    try:
        return HEADER + NNModuleToString.convert(gm)
    except Exception:  # noqa: BLE001 - any graph it cannot write: no what-if for it, the compile goes on
        return None


def load(code: str) -> Any:
    """The ``torch.fx.GraphModule`` that ``code`` (from :func:`written`) holds, traced anew."""
    import torch

    scope: dict[str, Any] = {"__name__": "kernelviz_fx"}
    exec(compile(code, "<kernelviz fx graph>", "exec"), scope)
    return torch.fx.symbolic_trace(scope["Repro"]())
