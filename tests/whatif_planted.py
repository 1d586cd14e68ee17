"""A change of a graph that breaks its numerics, for the what-if tests: its first output scaled by 1.01."""

import torch


def scaled(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    output = next(node for node in gm.graph.nodes if node.op == "output")
    first, *rest = output.args[0]
    with gm.graph.inserting_before(output):
        changed = gm.graph.call_function(torch.ops.aten.mul.Tensor, (first, 1.01))
    output.args = ((changed, *rest),)
    gm.recompile()
    return gm
