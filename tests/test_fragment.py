"""A kernel's graph fragment is kept as the lines Inductor printed; Python (``FragmentNode.from_line``) and
the panel (fragment.js) read them into the same nodes, and ``FragmentNode.line`` writes a node back as a line
that reads the same (how schemas 1 and 2, which kept nodes, load)."""

import dataclasses
import json
from datetime import timedelta

import pytest

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.model import FragmentNode, split_list
from kernelviz.views.nodes import shown_nodes
from kernelviz.views.payload import payload

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
DIMS = st.lists(st.sampled_from(["32", "1", "s0", "s0 + 1", "2*s1", "0"]), max_size=4).map(", ".join)
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30)
TENSOR = st.builds(lambda dtype, shape, stride, device: f'Tensor "{dtype}[{shape}][{stride}]{device}"',
                   st.sampled_from(["f32", "bf16", "i64", "b8"]), DIMS, DIMS, st.sampled_from(["cuda:0", "cpu", ""]))
LINES = st.one_of(
    st.builds(lambda name, tensor, users, op, target, args: f"%{name} : {tensor}{users} = {op}[target={target}]{args}",
              NAMES, st.one_of(st.just(""), TENSOR),
              st.one_of(st.just(""), st.integers(0, 9).map("[num_users={}]".format)),
              st.sampled_from(["PlaceHolder", "call_function", "get_attr"]), TEXT,
              st.one_of(st.just(""), TEXT.map("(args = ({}), kwargs = {{}})".format))),
    TEXT.map("return {}".format), TEXT)


@settings(max_examples=500, deadline=timedelta(seconds=1))
@given(LINES)
def test_a_node_written_back_as_a_line_reads_the_same(line):
    node = FragmentNode.from_line(line)
    assert FragmentNode.from_line(node.line()) == node
    assert node.op != "unknown" or node.text == line  # a line that reads as no node is kept whole


@settings(max_examples=300, deadline=timedelta(seconds=1))
@given(st.lists(st.sampled_from(["32", "s0", "s0 + 1", "", " ", "64 ", " 7", "a,b", "8\t", "\xa04"]), max_size=6)
       .map(", ".join) | st.text(st.sampled_from(list("ab1 ,\t\xa0")), max_size=12))
def test_comment_lists_split_as_stripped_non_empty_items(text):
    assert split_list(text) == [n for n in map(str.strip, text.split(",")) if n]


@needs_browser
def test_the_panel_reads_each_fragment_line_into_the_nodes_python_reads(tmp_path):
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "norms_0.py")
    kernel = cap.graphs[0].kernels[0]
    kernel.fragment.append("a line Inductor never wrote <b>x</b>")  # kept, and shown, as text
    nodes = shown_nodes(kernel)  # each node once: a placeholder of a node the fragment computes is left out
    assert any(n.dtype is None and n.users for n in nodes) and any(n.op == "placeholder" for n in nodes)
    expected = [[n.name, n.op, n.target, n.dtype or "", f"[{', '.join(n.shape)}]" if n.shape is not None else "",
                 f"[{', '.join(n.stride)}]" if n.stride is not None else "", "" if n.users is None else str(n.users)]
                if n.op != "unknown" else ["?", n.text] for n in nodes]
    data = payload(cap)
    old = json.loads(json.dumps(data))  # as a notebook saved by kernelviz 0.1 (schema 2): the nodes themselves
    old["graphs"][0]["kernels"][0]["fragment"] = [dataclasses.asdict(n) for n in kernel.fragment_nodes()]
    row = next(i for i, launch in enumerate(cap.graphs[0].launches) if launch.kernel_name == kernel.name)
    for i, site in enumerate([data, old]):
        (tmp_path / str(i)).mkdir()
        with serve(panel_site(tmp_path / str(i), json.dumps(site))) as url, chromium_page() as page:
            page.goto(f"{url}/index.html")
            page.locator(".kv-row").nth(row).click()
            page.wait_for_selector(".kv-node")
            shown = page.evaluate("""[...document.querySelectorAll('.kv-node')].map((tr) =>
                [...tr.querySelectorAll('td')].map((td) => td.textContent))""")
            assert page.errors == []
        assert shown == expected


def _comment_blocks():
    """The comment block above each kernel of the CUDA fixtures, as lines."""
    blocks = []
    for path in sorted((FIXTURES / "cuda-h100-torch2.11").glob("*.py")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if " = async_compile." in line:
                start = i
                while start > 0 and lines[start - 1].startswith("#"):
                    start -= 1
                if start < i:
                    blocks.append(lines[start:i])
    return blocks


BLOCKS = _comment_blocks()


@settings(max_examples=300, deadline=timedelta(seconds=1))
@given(st.sampled_from(BLOCKS), st.lists(st.tuples(st.integers(0, 60), st.sampled_from(
    ["#", "# ", "#   return %x", "# Graph fragment:", "#Graph fragment:", "# Graph fragment: ", "not a comment",
     "#   x_9 => add", "# kernel path: /a.py",
     "# Topologically Sorted Source Nodes: [a], Original ATen: [aten.add]", "#   %y : [num_users=1] = f[target=g]"])),
    max_size=3))
def test_the_fragment_read_in_one_pass_is_what_the_line_by_line_reading_gives(block, inserts):
    from kernelviz.parse.comments import parse_origin

    lines = list(block)
    for at, line in inserts:
        lines.insert(min(at, len(lines)), line)
    assert len(BLOCKS) > 30
    # a space before each line keeps the one-pass reading out (it reads lines that start with the marker)
    assert parse_origin(lines) == parse_origin([" " + line for line in lines])


def test_fragment_is_a_list_of_its_lines_one_node_each():
    """What docs/use.md and the model say ``.fragment`` is: a list of str, one node of the fragment each."""
    kernel = next(k for k in kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json").kernels
                  if k.fragment)
    assert isinstance(kernel.fragment, list) and all(isinstance(line, str) and "\n" not in line
                                                     for line in kernel.fragment)
    assert len(kernel.fragment) > 1
    assert [node.name for node in kernel.fragment_nodes()][:3] == ["mm", "relu", "mul"]  # a node a line
    assert len(kernel.fragment_nodes()) == len(kernel.fragment)
