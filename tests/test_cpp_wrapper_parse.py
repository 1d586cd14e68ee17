"""The C++ wrapper reader (cpp_wrapper output code) against the Python wrapper of the same graph.

Fixtures: tests/cpp_wrapper_fixtures/<device>/<name>_cpp.py and <name>_python.py, the same graph compiled with and
without ``cpp_wrapper`` (written by tests/make_cpp_wrapper_fixtures.py; CUDA ones by the GPU test's run).
"""

import re
from pathlib import Path

import pytest

from kernelviz.parse import NO_SOURCE, parse_graph
from kernelviz.parse.cpp_wrapper import cpp_kernels, is_cpp_wrapper, read_cpp_call

FOLDER = Path(__file__).parent / "cpp_wrapper_fixtures"
PAIRS = sorted(FOLDER.glob("*/*_cpp.py"))


def _pair(path: Path):
    return parse_graph(path.read_text()), parse_graph(path.with_name(path.name.replace("_cpp", "_python")).read_text())


def _kernel_launches(graph):
    return [launch.kernel_name for launch in graph.launches if launch.kernel_name]


@pytest.mark.parametrize("path", PAIRS, ids=[f"{p.parent.name}/{p.stem}" for p in PAIRS])
def test_same_model_as_the_python_wrapper(path):
    cpp, python = _pair(path)
    assert (cpp.wrapper, python.wrapper) == ("cpp", "python")
    assert [w for w in cpp.warnings if NO_SOURCE not in w] == []  # a CUDA module may hold Triton binaries alone
    assert {k.name for k in cpp.kernels} == {k.name for k in python.kernels}
    assert _kernel_launches(cpp) == _kernel_launches(python)
    assert [bool(a.kernel_name) for a in cpp.launches] == [bool(b.kernel_name) for b in python.launches]
    assert [launch.original_aten for launch in cpp.launches] == [launch.original_aten for launch in python.launches]
    assert [launch.source_nodes for launch in cpp.launches] == [launch.source_nodes for launch in python.launches]
    for a, b in zip(cpp.launches, python.launches):
        if a.kernel_name and cpp.kernel(a.kernel_name).source:  # a generated kernel reads and writes the same
            assert (a.reads, a.writes) == (b.reads, b.writes), a.kernel_name
        else:  # an extern call reads the same buffers (its outputs are named as C++ allocates them)
            assert a.reads == b.reads, a.op
    assert [(s.name, s.shape, s.stride, s.dtype, s.device) for s in cpp.inputs] == \
        [(s.name, s.shape, s.stride, s.dtype, s.device) for s in python.inputs]
    allocs = {e.buffer: (e.shape, e.stride, e.dtype, e.nbytes) for e in python.memory if e.kind == "alloc"}
    cpp_allocs = {e.buffer: (e.shape, e.stride, e.dtype, e.nbytes) for e in cpp.memory if e.kind == "alloc"}
    assert {b: cpp_allocs.get(b) for b in allocs} == allocs
    frees, cpp_frees = ([e.buffer for e in g.memory if e.kind == "free"] for g in (python, cpp))
    both = set(frees) & set(cpp_frees)
    assert [b for b in cpp_frees if b in both] == [b for b in frees if b in both]
    assert both >= {s.name for s in python.inputs} & set(frees)  # the inputs freed where they are
    assert [(e.buffer, e.source) for e in cpp.memory if e.kind == "reuse"] == \
        [(e.buffer, e.source) for e in python.memory if e.kind == "reuse"]
    assert cpp.outputs[0] == python.outputs[0] and len(cpp.outputs) == len(python.outputs)
    # steps in the order of the lines: launches and buffer events interleave as the C++ runs them
    steps = sorted([(launch.step, launch.line) for launch in cpp.launches] + [(e.step, e.line) for e in cpp.memory])
    assert [line for _, line in steps] == sorted(line for _, line in steps)


@pytest.mark.parametrize("path", PAIRS, ids=[f"{p.parent.name}/{p.stem}" for p in PAIRS])
def test_kernels_and_lines_from_the_text(path):
    """Kernels, lines and the entry function's span read by plain scans of the file."""
    text = path.read_text()
    lines = text.splitlines()
    graph = parse_graph(text)
    defined = re.findall(r'^extern "C"\s+\w*\s*void\s+(\w+)\([^)]*\)\s*\{', text, re.M)
    triton = re.findall(r"^(\w+) = async_compile\.triton\(", text, re.M) + re.findall(
        r"^\s+call_(triton_\w+)\(", text[text.index("inductor_entry_impl("):], re.M)  # loaded as binaries
    assert sorted(k.name for k in graph.kernels) == sorted(set(defined + triton))
    first, last = graph.call_span
    assert "inductor_entry_impl" in lines[first - 1] and lines[last - 1].startswith("}")
    for launch in graph.launches:
        assert launch.name.removeprefix("triton_") in lines[launch.line - 1]
        assert first < launch.line < last
    for kernel in graph.kernels:
        if kernel.kind == "cpp":
            assert kernel.source.startswith('#include <torch/csrc/inductor/cpp_prefix.h>\nextern "C"')
            assert kernel.source.rstrip().endswith("}") and kernel.source.count('extern "C"') == 1
            assert len(kernel.arg_types) == len(kernel.params()) > 0
            assert all(t.endswith("*") or t in ("int64_t", "const int64_t") for t in kernel.arg_types)


def test_the_cpp_text_alone_reads_as_the_module():
    """AOTInductor's wrapper.cpp is C++ alone: the reader needs no Python around it."""
    text = (FOLDER / "cpu-torch2.13" / "train_backward_cpp.py").read_text()
    source = text[text.index('r"""') + 4 : text.index('"""\n)')]
    offset = text[: text.index('r"""') + 4].count("\n")
    kernels = {k.name: k for k in cpp_kernels(source)}
    alone, module = read_cpp_call(source, kernels), parse_graph(text)
    assert is_cpp_wrapper(source) and len(kernels) == len(module.kernels)
    assert [(launch.name, launch.line + offset, launch.reads, launch.writes) for launch in alone.launches] == \
        [(launch.name, launch.line, launch.reads, launch.writes) for launch in module.launches]
    assert [(s.name, s.shape) for s in alone.inputs] == [(s.name, s.shape) for s in module.inputs]
    assert read_cpp_call("int main() { return 0; }").span is None


def test_not_a_cpp_wrapper():
    python = (FOLDER / "cpu-torch2.13" / "block_python.py").read_text()
    assert not is_cpp_wrapper(python)
    assert read_cpp_call(python).launches == []


@pytest.mark.parametrize("path", PAIRS, ids=[f"{p.parent.name}/{p.stem}" for p in PAIRS])
def test_a_diff_finds_the_same_kernels_under_both_wrappers(path):
    """The C++ wrapper's kernels carry their own names where the Python wrapper's are named ``kernel``: the same
    source all the same."""
    import kernelviz

    python, cpp = (kernelviz.load(p) for p in (path.with_name(path.name.replace("_cpp", "_python")), path))
    diff = kernelviz.diff(python, cpp)
    kernel_groups = [g for g in diff.groups if all(python.graphs[0].launches[i].kernel_name for i in g.a)]
    assert kernel_groups and all(g.relation == "same" for g in kernel_groups), [(g.a, g.relation) for g in diff.groups]
    assert sum(len(g.a) for g in kernel_groups) == sum(1 for x in python.graphs[0].launches if x.kernel_name)
