"""What a kernel's nodes are, as its views show them: each source node with the ATen ops its ATen nodes run (the
graph fragment names each node's op), and the fragment with each node once (Inductor prints a reduction's buffer
as a placeholder and again where it computes it)."""

from __future__ import annotations

from ..model import FragmentNode, Kernel

_PREFIX = "torch.ops."


def op_name(target: str) -> str:
    """``aten.add.Tensor`` for ``torch.ops.aten.add.Tensor``; other targets as they are."""
    return target[len(_PREFIX):] if target.startswith(_PREFIX) else target


def shown_lines(kernel: Kernel) -> list[int]:
    """The indices of the fragment's lines shown, each node once and in order: a placeholder whose node the
    fragment also computes is left out, and so is the output line."""
    nodes = kernel.fragment_nodes()
    computed = {n.name for n in nodes if n.op not in ("placeholder", "output", "unknown")}
    return [i for i, n in enumerate(nodes) if n.op != "output" and not (n.op == "placeholder" and n.name in computed)]


def shown_nodes(kernel: Kernel) -> list[FragmentNode]:
    """The fragment's nodes at :func:`shown_lines`."""
    nodes = kernel.fragment_nodes()
    return [nodes[i] for i in shown_lines(kernel)]


def node_ops(kernel: Kernel) -> list[list[str]]:
    """``[source node, its ATen ops]`` per source node: each op once with the ATen nodes that run it in brackets
    (none where the node is the source node itself), ``aten.div.Tensor`` or ``aten.full.default (full_default,
    full_default_1), aten.sub.Tensor (sub_1)``; a node the fragment does not hold is named as it is."""
    ops = {n.name: op_name(n.target) for n in kernel.fragment_nodes() if n.op == "call_function" and n.target}
    rows = []
    for source, aten_nodes in kernel.node_mapping.items():
        by_op: dict[str, list[str]] = {}
        for node in aten_nodes:
            by_op.setdefault(ops.get(node, ""), []).append(node)
        parts = [", ".join(nodes) if not op else op if nodes == [source] else f"{op} ({', '.join(nodes)})"
                 for op, nodes in by_op.items()]
        rows.append([source, ", ".join(parts)])
    return rows


def node_view(kernel: Kernel) -> dict[str, list]:
    """The panel's entry of a kernel (the view annex's ``nodes``): ``ops`` (:func:`node_ops`) and ``fragment``,
    the indices of the fragment's lines shown (:func:`shown_lines`)."""
    return {"ops": node_ops(kernel), "fragment": shown_lines(kernel)}
