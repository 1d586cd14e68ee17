"""Every bad input gets one line naming the file (and for JSON the field) and what was expected: from
``kernelviz.load`` (ParseError), ``Capture.from_json``/``from_dict`` (CaptureError) and the CLI (exit 2)."""

import copy
import dataclasses
import json
import subprocess
import sys

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.__main__ import main
from kernelviz.model import Capture, FragmentNode
from kernelviz.views.payload import ENCODING, capture_from_bundle, saved

MLP = FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"
GOOD = json.loads(kernelviz.load(MLP).to_json())


def _edited(edit) -> str:
    data = copy.deepcopy(GOOD)
    edit(data)
    return json.dumps(data)


def _drop_kernel_name(data):
    del data["graphs"][0]["kernels"][1]["name"]


def _set(path, value):
    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _schema_2_node_users(value, whole=False):
    """A schema 2 capture (it kept each fragment line as its node's fields) with kernel 1's fragment, or its
    first node's users, set to ``value``."""
    def edit(data):
        data["schema_version"] = 2
        for kernel in data["graphs"][0]["kernels"]:
            kernel["fragment"] = [dataclasses.asdict(FragmentNode.from_line(line)) for line in kernel["fragment"]]
        if whole:
            data["graphs"][0]["kernels"][1]["fragment"] = value
        else:
            data["graphs"][0]["kernels"][1]["fragment"][0]["users"] = value
    return edit


# (file name, content, what the one line must say)
CASES = [
    ("list.json", "[1, 2]",
     "not a kernelviz capture: expected a JSON object with schema_version and graphs, got a list of 2"),
    ("graphs-string.json", _edited(_set(["graphs"], "x")), "graphs: expected a list, got the string 'x'"),
    ("graphs-null.json", _edited(_set(["graphs"], None)), "graphs: expected a list, got null"),
    ("no-name.json", _edited(_drop_kernel_name),
     "graphs[0].kernels[1].name: expected a string, got nothing (the field is missing)"),
    ("wrong-type.json", _edited(_set(["graphs", 0, "launches", 2, "timing"], {"in_graph_ms": "fast"})),
     "graphs[0].launches[2].timing.in_graph_ms: expected a number or null, got the string 'fast'"),
    ("fragment-line.json", _edited(_set(["graphs", 0, "kernels", 1, "fragment", 0], [1])),
     "graphs[0].kernels[1].fragment[0]: expected a string, got a list of 1"),
    ("schema-2-node.json", _edited(_schema_2_node_users([1])),  # schema 2 kept a fragment's nodes, not its lines
     "graphs[0].kernels[1].fragment[0].users: expected an integer or null, got a list of 1"),
    ("schema-2-fragment.json", _edited(_schema_2_node_users("x", whole=True)),
     "graphs[0].kernels[1].fragment: expected a list, got the string 'x'"),
    ("newer.json", _edited(_set(["schema_version"], 5)),
     "schema 5 is not supported: written by a newer kernelviz (this one reads schemas 1 to 4): upgrade kernelviz"),
    ("older.json", _edited(_set(["schema_version"], 0)), "schema 0 is not supported: written by an older kernelviz"),
    ("no-version.json", '{"graphs": []}', "not a kernelviz capture (no schema_version): expected a JSON object"),
    ("truncated.json", json.dumps(GOOD)[:5000], "the JSON ends early at line 1 column 5001 (a truncated file?)"),
    ("not-json.json", "kernels: 3\n", "not valid JSON (Expecting value at line 1 column 1)"),
    ("nan.json", _edited(_set(["graphs", 0, "compile_s"], float("nan"))),
     "not valid JSON (NaN is not a number JSON allows)"),
    ("notebook.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}),
     "a Jupyter notebook, not a kernelviz capture"),
    ("saved-output.json", json.dumps({"schema_version": 2, "encoding": ENCODING, "data": ""}),
     "the compact form a notebook saves ('xz+base85'), not a capture's JSON"),
    ("image.py", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8",
     "binary data, not UTF-8 text; expected Inductor output code"),
    ("nul.py", "x = 1\n\x00\x00\x00", "binary data (a NUL byte at offset 6), not text"),
    ("empty.py", "", "empty; expected Inductor output code"),
    ("script.py", "import os\nprint(os.getcwd())\n",
     "found no kernels and no call(args); expected Inductor output code"),
]


@pytest.mark.parametrize("name,content,message", CASES, ids=[c[0] for c in CASES])
def test_load_names_the_file_and_what_was_expected(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(kernelviz.ParseError) as info:
        kernelviz.load(path)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


@pytest.mark.parametrize("name,content,message", [c for c in CASES if c[0].endswith(".json")],
                         ids=[c[0] for c in CASES if c[0].endswith(".json")])
def test_from_json_says_which_field_and_what_it_should_hold(name, content, message):
    with pytest.raises(kernelviz.CaptureError) as info:
        Capture.from_json(content)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_missing_paths_and_empty_directories(tmp_path):
    with pytest.raises(kernelviz.ParseError, match="nope.py: no such file"):
        kernelviz.load(tmp_path / "nope.py")
    with pytest.raises(kernelviz.ParseError, match="no Inductor output code in this directory"):
        kernelviz.load(tmp_path)


def test_a_module_of_a_log_that_is_not_code_is_named():
    text = MLP.read_text() + "\n# AOT ID: ['9_inference']\nprint('not a module')\n"
    with pytest.raises(kernelviz.ParseError, match=r"module 2 of 2 \(# AOT ID: \['9_inference'\]\): found no kernels"):
        kernelviz.load(text)


def test_a_line_break_in_a_quoted_value_stays_on_the_line():
    with pytest.raises(kernelviz.CaptureError) as info:
        Capture.from_json(_edited(_set(["graphs", 0, "kernels", 0, "timing"], {"unit": "a\nb", "config": {"x\ny": 1},
                                                                                "num_regs": "1\n2"})))
    message = "graphs[0].kernels[0].timing.unit: expected one of \"gpu\", \"cpu\", got the string 'a\\nb'"
    assert str(info.value) == message


def test_saved_output_that_is_damaged_says_so():
    data = saved(kernelviz.load(MLP))
    with pytest.raises(kernelviz.CaptureError, match="notebook output: its data is not xz\\+base85 of JSON"):
        capture_from_bundle({**data, "data": data["data"][:100]})
    with pytest.raises(kernelviz.CaptureError, match="not xz\\+base85 of JSON .*bad base85 character"):
        capture_from_bundle({**data, "data": "\"" + data["data"]})
    with pytest.raises(kernelviz.CaptureError, match="notebook output encoded as 'zstd'"):
        capture_from_bundle({**data, "encoding": "zstd"})
    assert capture_from_bundle(GOOD) == kernelviz.load(MLP)  # the model's JSON, as kernelviz 0.1 saved it


@pytest.mark.parametrize("name,content,message", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_cli_prints_one_line_and_exits_2(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"kernelviz: {path}: " + err.split(": ", 2)[2] and message in err and err.count("\n") == 1


def test_cli_in_a_subprocess_shows_no_traceback(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[]")
    proc = subprocess.run([sys.executable, "-m", "kernelviz", "show", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"kernelviz: {path}: not a kernelviz capture: expected")
    assert proc.stderr.count("\n") == 1
