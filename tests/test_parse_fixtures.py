"""Every saved fixture parses; kernels, comment metadata and launch order match the file itself.

The expected values are read from the fixture with Python's ast module and plain line scans,
independently of kernelviz's own parser.
"""

import ast
import re

import pytest

import kernelviz
from conftest import ALL_FIXTURES, CUDA_FIXTURES
from kernelviz.model import FragmentNode

BOOKKEEPING = {"assert_size_stride", "assert_alignment", "get_raw_stream", "reinterpret_tensor"}


def _ids(paths):
    return [f"{p.parent.name}/{p.name}" for p in paths]


def _definitions(tree):
    """name -> async_compile method, for module-level ``NAME = async_compile.METHOD(...)``."""
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and getattr(node.value.func.value, "id", None) == "async_compile"):
            out[node.targets[0].id] = node.value.func.attr
    return out


def _call_function(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "call":
            return node
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "call":
                    return item
    raise AssertionError("no call()")


def _partitions(tree):
    """partition_N functions by N (CUDA-graph modes: call() runs them as ``self.partitions[N]``)."""
    return {int(node.name.split("_")[1]): node for node in tree.body
            if isinstance(node, ast.FunctionDef) and re.fullmatch(r"partition_\d+", node.name)}


def _expected_launches(tree, kernels):
    """Names of the work-doing calls of call(), in order, found by walking its AST; a partition that call()
    runs (``self.partitions[N](...)``) contributes its own calls at that point."""
    partitions, out = _partitions(tree), []
    for node in ast.walk(_call_function(tree)):
        if not isinstance(node, ast.Call):
            continue
        if m := re.fullmatch(r"self\.partitions\[(\d+)\]", ast.unparse(node.func)):
            inner = [n for n in ast.walk(partitions[int(m.group(1))]) if isinstance(n, ast.Call)]
            out += [((node.lineno, n.lineno), name) for n in inner if (name := _work(n, kernels))]
        elif name := _work(node, kernels):
            out.append(((node.lineno, 0), name))
    return [name for _, name in sorted(out)]


def _work(node, kernels):
    """The launch name of a call that does work, or None for bookkeeping."""
    callee = ast.unparse(node.func)
    if callee.endswith(".run") and callee[:-4] in kernels:
        return callee[:-4]
    if callee in kernels:
        return callee
    if callee.startswith(("extern_kernels.", "torch.ops.")):
        return callee.removeprefix("torch.ops.")
    if callee.split(".")[0] not in BOOKKEEPING and callee not in ("torch.cuda.set_device", "args.clear",
                                                                  "torch.cuda._DeviceGuard") \
            and not callee.startswith("empty_strided"):
        return callee
    return None


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=_ids(ALL_FIXTURES))
def test_every_kernel_once_with_name_and_kind(path):
    text = path.read_text()
    expected = _definitions(ast.parse(text))
    graph = kernelviz.load(path).graphs[0]
    assert [k.name for k in graph.kernels] == list(expected)
    kinds = {"triton": ("triton", "triton_template"), "cpp_pybinding": ("cpp",), "cpp": ("cpp",)}
    for kernel in graph.kernels:
        assert kernel.kind in kinds[expected[kernel.name]]
        assert kernel.source.strip(), kernel.name
    assert graph.warnings == []


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=_ids(ALL_FIXTURES))
def test_launch_order_equals_call(path):
    tree = ast.parse(path.read_text())
    graph = kernelviz.load(path).graphs[0]
    expected = _expected_launches(tree, _definitions(tree))
    assert [launch.name for launch in graph.launches] == expected
    assert [launch.index for launch in graph.launches] == list(range(len(expected)))
    steps = [launch.step for launch in graph.launches] + [e.step for e in graph.memory]
    assert len(set(steps)) == len(steps)


@pytest.mark.parametrize("path", CUDA_FIXTURES, ids=_ids(CUDA_FIXTURES))
def test_triton_metadata_equals_comments(path):
    lines = path.read_text().splitlines()
    graph = kernelviz.load(path).graphs[0]
    for kernel in graph.kernels:
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{kernel.name} = async_compile."))
        block = []
        for line in reversed(lines[:at]):
            if not line.startswith("#"):
                break
            block.insert(0, line)
        header = next(line for line in block if "Source Nodes:" in line)
        assert f"Source Nodes: [{', '.join(kernel.source_nodes)}]" in header
        assert header.endswith(f"Original ATen: [{', '.join(kernel.original_aten)}]")
        start, end = block.index("# Source node to ATen node mapping:"), block.index("# Graph fragment:")
        assert [f"#   {k} => {', '.join(v)}" for k, v in kernel.node_mapping.items()] == block[start + 1 : end]
        fragment = block[end + 1 :]
        assert [f"#   {line}" for line in kernel.fragment] == fragment  # the lines kept as printed
        for node, line in zip(kernel.fragment_nodes(), fragment):
            assert node.op != "unknown" and node.text == ""
            assert FragmentNode.from_line(node.line()) == node  # how a schema 2 file's nodes load
            assert line.startswith(f"#   %{node.name} : ") or (node.op == "output" and line.startswith("#   return"))
            assert node.target in line and node.args in line
        assert kernel.metadata_from == "comment"
        assert kernel.triton_meta["signature"] and kernel.inductor_meta["kernel_name"] == kernel.name
        assert kernel.kernel_type in {"pointwise", "reduction", "persistent_reduction", "template"}


def test_fragment_nodes_carry_dtype_shape_stride():
    graph = kernelviz.load(next(p for p in CUDA_FIXTURES if p.name == "norms_0.py")).graphs[0]
    node = next(n for n in graph.kernels[0].fragment_nodes() if n.name == "arg0_1")
    assert (node.op, node.dtype, node.shape, node.stride, node.device) == (
        "placeholder", "bf16", ["8192", "1024"], ["1024", "1"], "cuda:0")
    var_mean = next(n for n in graph.kernels[0].fragment_nodes() if n.name == "var_mean")
    assert (var_mean.op, var_mean.target, var_mean.users, var_mean.dtype) == (
        "call_function", "torch.ops.aten.var_mean.correction", 2, None)


def test_resnet_launches_reads_writes_and_memory():
    graph = kernelviz.load(next(p for p in CUDA_FIXTURES if p.name == "resnet18_0.py")).graphs[0]
    first = graph.launches[0]
    assert (first.op, first.original_aten, first.reads, first.writes) == (
        "extern_kernels.convolution", ["aten.convolution"], ["arg1_1", "arg0_1"], ["buf0"])
    second = graph.launches[1]  # in-place batch norm + relu on the reused conv output
    assert second.kernel_name.startswith("triton_poi_fused__native_batch_norm_legit_no_training_relu_0")
    assert second.reads[0] == "buf1" and second.writes == ["buf1"]
    kinds = {e.kind for e in graph.memory}
    assert kinds == {"alloc", "reuse", "free"}
    buf2 = next(e for e in graph.memory if e.buffer == "buf2" and e.kind == "alloc")
    assert buf2.nbytes == 32 * 64 * 56 * 56 * 4 and buf2.dtype == "float32"
    assert len(graph.inputs) == 103 and graph.inputs[1].shape == ["32", "3", "224", "224"]
    assert graph.inputs[1].dtype == "float32"


def test_cpu_kernel_args_classified_by_constness():
    graph = kernelviz.load(next(p for p in ALL_FIXTURES if p.parent.name.startswith("cpu") and p.name == "mlp_0.py"))
    graph = graph.graphs[0]
    gelu = next(launch for launch in graph.launches if launch.kernel_name == "cpp_fused_gelu_0")
    assert (gelu.reads, gelu.writes) == (["buf0"], ["buf1"])
    assert graph.kernel("cpp_fused_gelu_0").arg_types == ["const at::BFloat16*", "at::BFloat16*"]


def test_graph_kind_and_device_from_the_file():
    for path in ALL_FIXTURES:
        graph = kernelviz.load(path).graphs[0]
        aot = re.search(r"AOT ID: \['(\w+)'\]", path.read_text()).group(1)
        assert graph.id == aot and aot.endswith(graph.kind)
        assert graph.device == ("cuda" if path.parent.name.startswith("cuda") else "cpu")


def test_partitioned_graph_inputs_are_call_s_in_call_s_order():
    """reduce-overhead code unpacks the inputs again, reordered, in partition_0: call()'s order counts."""
    graph = kernelviz.load(next(p for p in CUDA_FIXTURES if p.name == "reduce_overhead_0.py")).graphs[0]
    assert [s.name for s in graph.inputs] == [f"arg{i}_1" for i in range(7)]
    assert [s.shape for s in graph.inputs[:3]] == [["2048", "512"], ["2048"], ["128", "512"]]
