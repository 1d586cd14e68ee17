"""Pygments tokens as data: ``[class, length, class, length, ...]`` over a kernel's source text.

The view builds its spans from the source text and these lengths, so no captured text is ever
turned into HTML by Python; the class names are pygments' short CSS classes (``k``, ``nf``, ...).
"""

from __future__ import annotations

from functools import lru_cache

from pygments import lexers
from pygments.token import STANDARD_TYPES, Error

from ..model import Graph, Kernel

_LEXERS = {"python": "PythonLexer", "cpp": "CppLexer", "cuda": "CudaLexer", "llvm": "LlvmLexer", "ptx": "PtxLexer",
           "gas": "GasLexer", "text": "TextLexer"}


@lru_cache(maxsize=None)
def _lexer(lang: str):
    """The lexer of ``lang``, made when first used: making one compiles its regexes (all seven: 0.4 s)."""
    return getattr(lexers, _LEXERS[lang])(stripnl=False, ensurenl=False)


def language(kernel: Kernel) -> str:
    """The source language of a kernel: C++ for CPU kernels, CUDA C++ for jiterator's, Python (Triton) otherwise."""
    return {"cpp": "cpp", "jiterator": "cuda"}.get(kernel.kind, "python")


def wrapper_language(graph: Graph) -> str | None:
    """The language of a graph's wrapper where its view shows it highlighted: C++ for an AOTInductor package's
    (its steps link to the lines), None for the Python ``call()`` (its steps are the view)."""
    return "cpp" if graph.package is not None else None


_PLAIN = {"", "w", "n", "p", "esc"}  # names, punctuation and white space are drawn unstyled


def _css_class(tokentype) -> str:
    if tokentype in Error:  # a lexer's guess at text it does not know (SASS read as GNU as): drawn plain
        return ""
    while tokentype not in STANDARD_TYPES:
        tokentype = tokentype.parent
    cls = STANDARD_TYPES[tokentype]
    return "" if cls in _PLAIN else cls


@lru_cache(maxsize=4096)
def tokens(source: str, lang: str) -> tuple:
    """Flat ``(class, length, ...)`` runs covering ``source`` exactly, adjacent equal classes merged
    (``""`` for unstyled text)."""
    out: list = []
    for tokentype, value in _lexer(lang).get_tokens(source):
        cls = _css_class(tokentype)
        if out and out[-2] == cls:
            out[-1] += len(value)
        elif value:
            out += [cls, len(value)]
    return tuple(out)


def runs(source: str, lang: str):
    """``(class, text)`` pairs of the source, from :func:`tokens`."""
    flat, pos = tokens(source, lang), 0
    for i in range(0, len(flat), 2):
        yield flat[i], source[pos : pos + flat[i + 1]]
        pos += flat[i + 1]
