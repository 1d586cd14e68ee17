"""JSON round trip, bad input with one-line errors, and graceful degradation on unfamiliar code."""

import dataclasses
import json
import random

import pytest

import kernelviz
from conftest import ALL_FIXTURES, FIXTURES
from kernelviz.model import SCHEMA_VERSION, Capture, FragmentNode, RankInfo, Ranks

MLP_CUDA = FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"


def test_json_round_trip_is_lossless_on_every_fixture():
    capture = kernelviz.load(FIXTURES)  # a directory: every module under it
    assert len(capture.graphs) == len(ALL_FIXTURES)
    text = capture.to_json()
    again = Capture.from_json(text)
    assert again == capture
    assert again.to_json() == text
    assert json.loads(text)["schema_version"] == SCHEMA_VERSION
    triton = next(k for k in again.kernels if k.kind == "triton")
    assert triton.fragment[0].startswith("%") and triton.fragment_nodes()[0].shape


OLD_SCHEMA_FILES = [p for p in sorted(FIXTURES.glob("*/*.json")) if json.loads(p.read_text())["schema_version"] < 3]


@pytest.mark.parametrize("path", OLD_SCHEMA_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_older_schemas_load_their_fragment_nodes_as_lines_that_read_back_the_same(path):
    data = json.loads(path.read_text())  # files that kernelviz 0.1 wrote, fragment nodes and all
    capture = Capture.from_json(path.read_text())
    stored = [[FragmentNode(**node) for node in k["fragment"]] for g in data["graphs"] for k in g["kernels"]]
    assert sum(map(len, stored)) > 10
    assert [k.fragment_nodes() for k in capture.kernels] == stored
    assert Capture.from_json(capture.to_json()) == capture


def test_a_schema_2_ranks_file_loads_and_its_captures_save_alone_as_schema_3():
    cap = Capture.from_json((FIXTURES / "cuda-h100-torch2.11" / "timed_capture.json").read_text())
    data = json.loads(Ranks(world_size=1, ranks=[RankInfo(rank=0)], reference=cap, captures=[cap]).to_json())
    for part in [data, data["reference"], *data["captures"]]:  # as kernelviz 0.1 wrote it: fragment nodes
        part["schema_version"] = 2
    for part in [data["reference"], *data["captures"]]:
        for kernel in (k for g in part["graphs"] for k in g["kernels"]):
            kernel["fragment"] = [dataclasses.asdict(FragmentNode.from_line(line)) for line in kernel["fragment"]]
    ranks = Ranks.from_json(json.dumps(data))
    assert ranks.reference == cap and ranks.captures == [cap]
    assert Capture.from_json(ranks.reference.to_json()) == cap  # a rank's capture, saved on its own


def test_json_keeps_contract_field_names():
    data = json.loads(kernelviz.load(MLP_CUDA).to_json())
    kernel = data["graphs"][0]["kernels"][1]
    for key in ("name", "kind", "source", "source_nodes", "original_aten", "node_mapping", "fragment",
                "locations", "triton_meta", "inductor_meta", "timing"):
        assert key in kernel
    launch = data["graphs"][0]["launches"][0]
    for key in ("kernel_name", "op", "source_nodes", "original_aten", "reads", "writes", "timing"):
        assert key in launch


def test_other_schema_version_is_refused_with_a_message():
    data = json.loads(kernelviz.load(MLP_CUDA).to_json())
    data["schema_version"] = 999
    with pytest.raises(ValueError, match="schema 999 is not supported"):
        Capture.from_json(json.dumps(data))


@pytest.mark.parametrize("text", [
    "import os\nprint('hello')\n",
    "",
    "def call(x):\n  return x\n" [:0] + "x = 1\n",
])
def test_not_inductor_code_says_what_was_expected(text):
    with pytest.raises(kernelviz.ParseError) as info:
        kernelviz.load(text + "\n")
    message = str(info.value)
    assert "expected Inductor output code" in message and "\n" not in message


def test_missing_file_and_binary_file(tmp_path):
    with pytest.raises(kernelviz.ParseError, match="no such file"):
        kernelviz.load(str(tmp_path / "nope.py"))
    binary = tmp_path / "blob.py"
    binary.write_bytes(b"\x00\xff\xfe" * 100)
    with pytest.raises(kernelviz.ParseError, match="expected Inductor output code"):
        kernelviz.load(binary)


def test_unknown_parts_are_kept_with_a_warning():
    text = MLP_CUDA.read_text()
    text = text.replace("async_compile.triton('triton_poi_fused_gelu_0'", "async_compile.future_backend("
                        "'triton_poi_fused_gelu_0'")
    text = text.replace("triton_meta={'signature'", "triton_meta={'future': undefined_thing(1) + 2, 'signature'")
    text = text.replace("@triton_heuristics.persistent_reduction(", "@triton_heuristics.persistent_reduction(((")
    graph = kernelviz.load(text).graphs[0]
    gelu = graph.kernel("triton_poi_fused_gelu_0")
    assert gelu.kind == "future_backend" and "def triton_poi_fused_gelu_0" in gelu.source
    assert any("unknown kernel kind async_compile.future_backend" in w for w in graph.warnings)
    norm = graph.kernel("triton_per_fused_native_layer_norm_1")
    assert any("triton_per_fused_native_layer_norm_1: could not read its metadata" in w for w in graph.warnings)
    assert norm.source_nodes == ["input_4"]  # the comments still count
    assert [launch.name for launch in graph.launches][:2] == ["extern_kernels.addmm", "triton_poi_fused_gelu_0"]


def test_benchmark_kernel_harness_is_not_mistaken_for_the_wrapper():
    graph = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "benchmark_kernel_mlp_0.py").graphs[0]
    assert [launch.name for launch in graph.launches] == [
        "extern_kernels.addmm", "triton_poi_fused_gelu_0", "extern_kernels.addmm",
        "triton_per_fused_native_layer_norm_1"]
    assert "def get_args" in graph.kernel("triton_poi_fused_gelu_0").source


def test_a_log_with_several_modules_gives_several_graphs():
    texts = [p.read_text() for p in sorted((FIXTURES / "cpu-torch2.13").glob("train_step_*.py"))]
    capture = kernelviz.load("V1122 [__output_code] Output code:\n" + "\n".join(texts))
    assert [g.id for g in capture.graphs] == ["3_forward", "3_backward"]


def test_truncated_and_mangled_code_never_crashes():
    rng = random.Random(0)
    for path in ALL_FIXTURES:
        text = path.read_text()
        for _ in range(8):
            cut = text[: rng.randrange(len(text))]
            if rng.random() < 0.5:
                a = rng.randrange(len(cut) + 1)
                cut = cut[:a] + cut[a + rng.randrange(200):]
            try:
                capture = kernelviz.load(cut + "\n")
            except kernelviz.ParseError:
                continue
            Capture.from_json(capture.to_json())


def test_from_dict_never_shares_the_callers_data():
    data = json.loads(kernelviz.load(MLP_CUDA).to_json())
    first, second = Capture.from_dict(data), Capture.from_dict(data)
    kernel = first.graphs[0].kernels[1]
    kernel.source_nodes.append("added")
    kernel.triton_meta["added"] = 1
    assert "added" not in second.graphs[0].kernels[1].source_nodes
    assert "added" not in data["graphs"][0]["kernels"][1]["source_nodes"]
    assert "added" not in second.graphs[0].kernels[1].triton_meta
