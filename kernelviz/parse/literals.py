"""Turn the literal expressions Inductor writes (triton_meta, inductor_meta, ...) into JSON data."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from ..codec import loads

# One token of a literal's code, outside its strings (split out, so that the pieces between them are left as
# they are): a number (kept as it is, and consumed whole so that no name starts inside it, as in 1e-05); a
# tuple written as a dict key, "(0,):"; a name with what follows it, "( )" "(" or "="; a parenthesis; a
# trailing comma. Every branch starts with a character of a small set, so that the regex engine skips the
# other characters without trying a branch.
_TOKEN = re.compile(r"(\d[\w.]*|\((?:-?\d+,|-?\d+(?:, -?\d+)+)\):|[A-Za-z_][\w.]*(?:\(\)|\(|=)?|[()]|,(?=\s*[\])}]))")
_CONSTANTS = {"True": "true", "False": "false", "None": "null"}
_EMPTY = {"set": "[]", "list": "[]", "tuple": "[]"}


def parse_call_kwargs(text: str) -> dict[str, Any]:
    """Parse ``(a=1, b={...})``-style keyword arguments text (without the callee) into JSON data."""
    fast = _as_json(text)
    if fast is not None:
        return fast
    node = ast.parse(f"f{text}", mode="eval").body
    assert isinstance(node, ast.Call)
    return {kw.arg: to_json(kw.value) for kw in node.keywords if kw.arg}


def _as_json(text: str) -> dict[str, Any] | None:
    """The fast path of :func:`parse_call_kwargs` (~5x faster than ``ast``, whose parse is most of the time of
    reading a kernel): the reprs Inductor writes are rewritten as JSON and read by orjson. The strings are
    set aside (split at their quotes), the code between them is split into tokens by one regex, and the tokens
    are rewritten. Gives what the ``ast`` path gives, or None where the text holds anything else (a double quote
    or a backslash, a call with positional arguments, a set, an operator...): the rewrite is then not valid JSON."""
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")) or '"' in body or "\\" in body or "\0" in body:
        return None
    parts = body[1:-1].rstrip().rstrip(",").split("'")  # code, string, code, ..., code
    if len(parts) % 2 == 0:
        return None
    pieces = _TOKEN.split("\0".join(parts[0::2]))  # text, token, text, ..., text
    closers: list[str] = []
    exact = False  # an integer orjson may not read exactly (beyond 64 bits): the standard library reads it
    for i in range(1, len(pieces), 2):
        t = pieces[i]
        if t[0].isdigit():
            exact = exact or len(t) > 18
            continue
        if t[0] == "(":
            if t == "(":
                closers.append("]")
                pieces[i] = "["
            else:  # a tuple key: ast.unparse's text of it
                pieces[i] = f'"{t[:-1]}":'
        elif t == ")":
            pieces[i] = closers.pop() if closers else ")"
        elif t == ",":  # a trailing comma
            pieces[i] = ""
        elif t[-1] == "=":
            pieces[i] = f'"{t[:-1]}":'
        elif t[-1] == ")":  # Name()
            pieces[i] = _EMPTY.get(t[:-2], "{}")
        elif t[-1] == "(":  # a record-like call, Name(key=value, ...)
            closers.append("}")
            pieces[i] = "{"
        else:  # a name or a dotted name: its text, as ast.unparse gives it
            pieces[i] = _CONSTANTS.get(t) or f'"{t}"'
    parts[0::2] = "".join(pieces).split("\0")
    try:
        data = (json.loads if exact else loads)("{" + '"'.join(parts) + "}")
    except ValueError:
        return None
    return data if not closers else None


def to_json(node: ast.AST) -> Any:
    """JSON value of a literal expression; names, enums, unknown calls and constants JSON has no form for
    (bytes, complex numbers) become their source text."""
    if isinstance(node, ast.Constant):
        return node.value if node.value is None or isinstance(node.value, (str, int, float)) else ast.unparse(node)
    if isinstance(node, ast.Dict):
        return {_key(k): to_json(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [to_json(e) for e in node.elts]
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool)):
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
