"""Launch names for people: what a launch computes in the room a view has. The panel gets each name's forms
(:class:`NameForms`) in its payload and only picks the one that fits its column (``static/src/names.js``,
as :func:`fitted` does; ``tests/test_panel_widths.py`` checks that both pick alike).

Inductor names a generated kernel ``triton_poi_fused__native_batch_norm_legit_no_training_add_relu_3``: a
prefix, the ATen ops its nodes came from (sorted, joined by ``_``) and a counter that tells the kernels of a
module apart. The ops are split with the launch's own ``original_aten`` (and a few multi-word names), shown
joined by `` · `` and, while they do not fit, abbreviated, rid of view-like ops, joined by ``·`` alone, then
cut with ``…``; the counter always stays. An extern call shows its op
(``extern_kernels.convolution`` → ``convolution``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

SEP = " · "
_PREFIX = re.compile(r"^(?:triton|cpp)_(?:[a-z]{3}_)?fused_")
_COUNTER = re.compile(r"_\d+$")
# Ops of more than one word that may be in a name without being in the launch's original_aten.
_KNOWN = (
    "prepare_softmax_online", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional", "native_batch_norm",
    "native_batch_norm_backward", "native_layer_norm", "native_layer_norm_backward", "native_group_norm",
    "native_group_norm_backward", "_log_softmax", "_log_softmax_backward_data", "_softmax", "_softmax_backward_data",
    "nll_loss_forward", "nll_loss_backward", "threshold_backward", "scalar_tensor", "index_put", "new_zeros",
    "new_ones", "new_empty", "_to_copy", "zeros_like", "ones_like", "full_like", "flex_attention",
    "flex_attention_backward", "native_dropout", "gelu_backward", "silu_backward", "sigmoid_backward",
    "tanh_backward", "embedding_dense_backward", "avg_pool2d", "adaptive_avg_pool2d", "constant_pad_nd",
    "_unsafe_view", "var_mean", "convolution_backward", "index_select", "scatter_add",
)
# Ops that only view or move data: the first left out when a name does not fit.
LAYOUT_OPS = frozenset((
    "_to_copy", "_unsafe_view", "alias", "as_strided", "clone", "contiguous", "expand", "permute", "reshape",
    "select", "slice", "squeeze", "t", "transpose", "unsqueeze", "view",
))
# The abbreviations, in order.
_ABBREV = (
    (re.compile(r"^_+"), ""),
    (re.compile(r"^native_"), ""),
    (re.compile(r"_legit(_no_training|_functional)?"), ""),
    (re.compile(r"_with_indices"), ""),
    (re.compile(r"_backward(_data)?"), "_bwd"),
    (re.compile(r"_forward$"), ""),
    (re.compile(r"^scaled_dot_product_"), "sdpa_"),
    (re.compile(r"^prepare_softmax_online$"), "softmax_online"),
)


_SHIM = re.compile(r"^aoti_torch_(?:(?:cpu|cuda|xpu|mps)_)?(.+?)(?:_out)?$")  # a C++ wrapper's extern call


def aten_op(qualified: str) -> str:
    """``aten._log_softmax.default`` → ``_log_softmax``; ``extern_kernels.mm`` → ``mm``; the C++ wrapper's
    ``aoti_torch_cpu_mm_out`` → ``mm``."""
    if shim := _SHIM.match(qualified):
        return shim.group(1)
    parts = qualified.split(".")
    if len(parts) >= 3 and (parts[-1] in ("default", "out") or parts[-1][:1].isupper()):
        parts = parts[:-1]
    return parts[-1]


def split_name(name: str, aten: Iterable[str] = (), *, generated: bool | None = None) -> tuple[list[str], str]:
    """The ops a launch's name lists and its counter suffix (``_3``, or ``""``). ``generated``: whether it is a
    generated kernel's (not an extern call's); by default, whether the name has no dot."""
    if generated is None:
        generated = "." not in name and not _SHIM.match(name)
    if not generated:
        return [aten_op(name)], ""
    m = _COUNTER.search(name)
    tail = m.group(0) if m else ""
    body = name[: len(name) - len(tail)]
    p = _PREFIX.match(body)
    if not p or len(body) == p.end():
        return [body], tail
    stem = body[p.end():]
    vocab = sorted({aten_op(a) for a in aten} | set(_KNOWN), key=len, reverse=True)
    ops, i = [], 0
    while i < len(stem):
        op = next((v for v in vocab if stem.startswith(v, i) and (i + len(v) == len(stem) or stem[i + len(v)] == "_")),
                  None)
        if op is None:
            end = stem.find("_", i + 1 if stem[i] == "_" else i)
            op = stem[i:] if end < 0 else stem[i:end]
        ops.append(op)
        i += len(op) + 1
    return ops, tail


def _abbrev(op: str) -> str:
    for pattern, repl in _ABBREV:
        op = pattern.sub(repl, op)
    return op


def _dedupe(ops: list[str]) -> list[str]:
    return list(dict.fromkeys(ops))


@dataclass(frozen=True)
class NameForms:
    """What a launch's name can be shown as, whatever the room: its four forms, fullest first (ops; abbreviated;
    without view-like ops; joined by ``·``), its tail (the counter) and the ops the last form keeps (what a name
    that fits no form is cut from). The panel gets these in its payload (``rules.name_entries``) and only
    picks, as :func:`fitted` does, the form that fits the room its column has."""

    forms: tuple[str, str, str, str]
    tail: str
    ops: tuple[str, ...]

    def to_json(self) -> list:
        return [list(self.forms), self.tail, list(self.ops)]


@lru_cache(maxsize=1 << 16)  # a display labels each launch in its text, HTML report and panel payload
def name_forms(name: str, aten: tuple[str, ...] = (), generated: bool | None = None) -> NameForms:
    """The forms of a launch's name (``aten``: its ``original_aten``; ``generated``: see :func:`split_name`)."""
    ops, tail = split_name(name, aten, generated=generated)
    short = _dedupe([_abbrev(op) or op for op in ops])
    computing = _dedupe([_abbrev(op) or op for op in ops if op not in LAYOUT_OPS]) or short
    return NameForms((SEP.join(ops), SEP.join(short), SEP.join(computing), "·".join(computing)), tail,
                     tuple(computing))


def _room(forms: NameForms, budget: int) -> int:
    """The characters left for the head in ``budget``: the tail and the space before it kept."""
    return max(1, budget - (len(forms.tail) + 1 if forms.tail else 0))


def fit_level(forms: NameForms, budget: int) -> int:
    """The first of the forms that fits ``budget`` (0 to 3; 4: none, it is cut)."""
    room = _room(forms, budget)
    return next((i for i, form in enumerate(forms.forms) if len(form) <= room), 4)


def fitted(forms: NameForms, budget: int, level: int = 0) -> tuple[str, str]:
    """(head, tail) in ``budget`` characters: the fullest form from ``level`` on that fits, else the ops of the
    last form that fit, cut with ``…`` (the tail is kept whole)."""
    room = _room(forms, budget)
    for form in forms.forms[min(level, 3):]:
        if len(form) <= room:
            return form, forms.tail
    kept: list[str] = []
    for op in forms.ops:
        if len("·".join(kept + [op])) + 1 > room:
            break
        kept.append(op)
    if kept:
        return "·".join(kept) + "…", forms.tail
    return forms.ops[0][: max(0, room - 1)] + "…", forms.tail


def name_level(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None) -> int:
    """The first of a name's forms that fits ``budget`` (0 to 3; 4: none, it is cut)."""
    return fit_level(name_forms(name, tuple(aten), generated), budget)


def short_name(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None,
               level: int = 0) -> tuple[str, str]:
    """(head, tail): the label of a launch in ``budget`` characters (the tail, the counter, is kept whole),
    in the fullest of its forms from ``level`` on that fits (a column gives all its names one level)."""
    return fitted(name_forms(name, tuple(aten), generated), budget, level)


def label(name: str, aten: Iterable[str] = (), budget: int = 40, *, generated: bool | None = None,
          level: int = 0) -> str:
    """``short_name`` as one string: ``batch_norm · add · relu _3``."""
    head, tail = short_name(name, aten, budget, generated=generated, level=level)
    return f"{head} {tail}" if tail else head


def column_level(names: Iterable[tuple[str, Iterable[str], bool | None]], budget: int) -> int:
    """The level of a column of (name, aten, generated): the fullest form that every name fits (names that fit
    none are cut), so that one op reads the same in every row."""
    return min(3, max((name_level(n, a, budget, generated=g) for n, a, g in names), default=0))


def column_labels(names: Iterable[tuple[str, Iterable[str], bool | None]], budget: int) -> list[str]:
    """Labels of (name, aten, generated) for one column, all at its ``column_level``."""
    names = list(names)
    level = column_level(names, budget)
    return [label(n, a, budget, generated=g, level=level) for n, a, g in names]


def short_path(path: str, budget: int = 40) -> str:
    """A path shortened from the left to ``budget`` characters, its end (file name, line) kept: ``…/pkg/mod.py:3``."""
    if len(path) <= budget:
        return path
    cut = path[len(path) - budget + 1:]
    slash = cut.find("/")
    return "…" + (cut[slash:] if 0 <= slash < len(cut) - 8 else cut)
