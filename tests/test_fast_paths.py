"""The parser's fast paths give what their general ways give: the literal reader's rewrite to JSON what its
ast path gives (on generated keyword-argument texts written the way Inductor writes triton_meta and
inductor_meta); line starts from the lines what splitlines gives; call arguments split the parentheses-only
way as the general way splits them; a function's body ends where its indentation does."""

import ast
import keyword
from datetime import timedelta

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kernelviz.parse.literals import _as_json, to_json  # noqa: E402

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(lambda name: not keyword.iskeyword(name))
# names as Inductor writes them: constants, dtypes, enums (a dotted name), bare identifiers
NAME = st.one_of(st.sampled_from(["True", "False", "None", "torch.float32", "tl.constexpr", "Grid1D"]),
                 st.builds(".".join, st.lists(IDENT, min_size=1, max_size=3)))
# strings whose repr is the text between single quotes (no escapes: a backslash is outside the fast path)
TEXT = st.text(st.characters(blacklist_characters="'\"\\").filter(str.isprintable), max_size=12)
NUMBER = st.one_of(st.integers(-2**70, 2**70).map(repr),  # beyond 64 bits too
                   st.floats(allow_nan=False, allow_infinity=False).map(repr),
                   st.sampled_from(["1e-05", "-1e-05", "1e+16", "2.5e-07", "0.001"]))
ATOM = st.one_of(NUMBER, TEXT.map(repr), NAME)


def _containers(inner):
    key = st.one_of(TEXT.map(repr), st.lists(st.integers(-9, 99).map(str), min_size=1, max_size=3).map(
        lambda xs: f"({xs[0]},)" if len(xs) == 1 else f"({', '.join(xs)})"))
    return st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: f"[{', '.join(xs)}]"),
        st.lists(inner, min_size=2, max_size=4).map(lambda xs: f"({', '.join(xs)})"),
        st.dictionaries(key, inner, max_size=4).map(lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"),
        st.tuples(IDENT.map(str.title), st.dictionaries(IDENT, inner, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(f'{k}={v}' for k, v in t[1].items())})"),
        st.sampled_from(["set()", "list()", "tuple()"]),
    )


VALUE = st.recursive(ATOM, _containers, max_leaves=20)
KWARGS = st.dictionaries(IDENT, VALUE, min_size=1, max_size=5).map(
    lambda d: "(\n    " + ",\n    ".join(f"{k}={v}" for k, v in d.items()) + ",\n)")


@settings(max_examples=300, deadline=timedelta(seconds=1))
@given(KWARGS)
def test_the_fast_path_reads_what_the_ast_path_reads(text):
    fast = _as_json(text)
    call = ast.parse(f"f{text}", mode="eval").body
    slow = {kw.arg: to_json(kw.value) for kw in call.keywords if kw.arg}
    assert fast == slow, text  # every text generated here is in the fast path's reach


def test_numbers_with_exponents_and_names_next_to_them():
    text = "(a={'eps': 1e-05, 'big': 1e+16, 'neg': -2.5e-07, 'e': e1, 'dt': torch.float32}, b=Cfg(x=1e-05))"
    assert _as_json(text) == {"a": {"eps": 1e-05, "big": 1e+16, "neg": -2.5e-07, "e": "e1", "dt": "torch.float32"},
                              "b": {"x": 1e-05}}


@settings(max_examples=300, deadline=timedelta(seconds=1))
@given(st.text(st.sampled_from(["a", " ", "\n", "\r", "\x0b", "\x85", "\u2028", "#"]), max_size=20))
def test_line_starts_from_the_lines_agree_with_splitlines(text):
    import itertools

    from kernelviz.parse import _line_starts

    assert _line_starts(text, text.splitlines()) == list(
        itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))


@settings(max_examples=500, deadline=timedelta(seconds=1))
@given(st.text(st.sampled_from(list("ab1(), =")), max_size=30))
def test_call_arguments_with_only_parentheses_split_as_in_general(text):
    from kernelviz.parse.wrapper import _split_nested, _split_parenthesised

    assert _split_parenthesised(text) == _split_nested(text)


@settings(max_examples=300, deadline=timedelta(seconds=1))
@given(st.lists(st.text(st.sampled_from([" ", "\t", "\xa0", "#", "x", "("]), max_size=8), min_size=1, max_size=8))
def test_a_functions_body_ends_at_the_first_code_line_no_deeper_than_its_def(tail):
    from kernelviz.parse.wrapper import _body

    lines = ["    def call(args):", *tail]
    expected = []
    for i, line in enumerate(lines[1:], 1):
        depth = len(line) - len(line.lstrip())
        if line.strip() and not line.strip().startswith("#") and depth <= 4:
            break
        if line.strip():
            expected.append((i, line.strip()))
    assert _body(lines, 0) == expected


# kernel lines as Inductor writes them: tmp assignments, loads and stores, with the operations links look for
LINE = st.lists(st.sampled_from(["tmp1", "tmp12 = ", "tmp3) + ", " - ", " * tmp4", "tl.load(in_ptr0 + x0)",
                                 "libdevice.rsqrt(", "tl.full", "maximum(", "max2", "sum(", "erf", "exp(", "tanh",
                                 "in_out_ptr0", "xmask", "static_cast<", ".to(", "where", " ", "(", ")"]),
                max_size=8).map("".join)


@settings(max_examples=300, deadline=timedelta(seconds=2))
@given(lines=st.lists(LINE, max_size=12), op=st.sampled_from(["add", "sub", "mul", "relu", "exp", "sum", "rsqrt",
                                                               "gelu", "where", "tanh", "full", "amax", "neg"]))
def test_lines_searched_as_one_text_find_what_a_search_per_line_finds(lines, op):
    from kernelviz.views.links import _Lines, _pattern

    numbered = list(enumerate(lines, start=3))
    pattern = _pattern(op)
    assert _Lines(numbered).matching(pattern) == [n for n, line in numbered if pattern.search(line)]
