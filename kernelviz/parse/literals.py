"""Turn the literal expressions Inductor writes (triton_meta, inductor_meta, ...) into JSON data."""

from __future__ import annotations

import ast
from typing import Any


def parse_call_kwargs(text: str) -> dict[str, Any]:
    """Parse ``(a=1, b={...})``-style keyword arguments text (without the callee) into JSON data."""
    node = ast.parse(f"f{text}", mode="eval").body
    assert isinstance(node, ast.Call)
    return {kw.arg: to_json(kw.value) for kw in node.keywords if kw.arg}


def to_json(node: ast.AST) -> Any:
    """JSON value of a literal expression; names, enums and unknown calls become their source text."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        return {_key(k): to_json(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [to_json(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("set", "list", "tuple", "dict") and not node.args and not node.keywords:
            return {} if node.func.id == "dict" else []
        if not node.args:  # DeviceProperties(type='cuda', ...) and other record-like calls
            return {kw.arg: to_json(kw.value) for kw in node.keywords if kw.arg}
    return ast.unparse(node)


def _key(node: ast.AST) -> str:
    value = to_json(node)
    return value if isinstance(value, str) else ast.unparse(node)
