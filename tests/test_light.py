"""What a user keeps of a real training step captured with timing and repros stays light: the saved
file within 2x the capture's output code (and lossless), the notebook output within 1.5x beyond the recorded values
it must keep, the HTML report within 2x, ``repr`` a few lines."""

import base64
import json
import re
from html import unescape
from pathlib import Path

import pytest
import torch

import kernelviz
from kernelviz import compressed
from kernelviz.compressed import VALUES, Tail, base64_values, xz
from kernelviz.notebook.display import static_bundle
from kernelviz.views.payload import capture_from_bundle


@pytest.fixture(scope="module")
def step_capture():
    """A 1-layer TransformerEncoderLayer training step (forward, backward, SGD; dropout on), compiled, run once,
    then captured with bench=True, repros=True. (A step of tensors under 16 KB, e.g. width 32 at batch 4, keeps
    every output whole for its repros: random floats that no compression shrinks, 2.4x its code.)"""
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 1,
                                        enable_nested_tensor=False).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    compiled, update = torch.compile(model), torch.compile(optimizer.step)
    x = torch.randn(8, 32, 64)

    def step():
        optimizer.zero_grad(set_to_none=True)
        compiled(x).square().mean().backward()
        update()

    step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    torch._dynamo.reset()
    return cap.wait_repros()


def _code(cap) -> int:
    return sum(len(graph.code) for graph in cap.graphs)


def test_the_saved_file_is_at_most_twice_the_output_code_and_loses_nothing(step_capture, tmp_path):
    cap = step_capture
    assert any(k.repro and k.repro.expected for k in cap.kernels) and any(g.repro for g in cap.graphs)
    path = cap.save(tmp_path / "step")
    assert path.name == "step.kvz" and path.stat().st_size <= 2 * _code(cap)
    assert len(cap.to_json()) > 4 * _code(cap)  # what the file holds, as JSON text
    loaded = kernelviz.load(path)
    assert loaded.to_json() == cap.to_json() and loaded == cap
    assert kernelviz.Capture.from_json(path.read_bytes()) == cap


def test_the_notebook_output_keeps_the_whole_capture_and_a_compact_report(step_capture):
    """What a notebook saves is what its users share: the whole capture (stages, repros, recorded values), beside a
    report without sources or the wrapper's steps."""
    cap = step_capture
    bundle = json.loads(json.dumps(static_bundle(cap)))  # as nbformat writes it
    assert "findings" in bundle["text/html"] and "in-graph ms" in bundle["text/html"]  # header, findings, tables
    assert len(bundle["text/html"]) <= _code(cap)
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]).to_json() == cap.to_json()


def test_the_notebook_output_is_within_one_and_a_half_times_the_output_code_beyond_its_recorded_values(step_capture):
    """Beyond the recorded values (random floats, which no compression shrinks much: their xz, base85-encoded, is the
    least that a notebook output holding the whole capture can take), the saved parts of a notebook output take at
    most 1.5x the output code."""
    cap = step_capture
    tail = Tail()
    for holder, key in base64_values(cap.to_dict()):
        tail.span(holder[key])
    values = len(base64.b85encode(xz(bytes(tail.data), VALUES)))
    saved = len(json.dumps(static_bundle(cap)))
    print(f"\nnotebook output {saved / _code(cap):.2f}x the output code, of which the recorded values "
          f"{values / _code(cap):.2f}x")
    assert values > 0.4 * _code(cap)  # a step whose values weigh (else this says little)
    assert saved - values <= 1.5 * _code(cap)


def test_the_html_report_is_at_most_twice_the_output_code_and_repr_is_a_few_lines(step_capture):
    cap = step_capture
    html = cap.to_html()
    assert len(html.encode()) <= 2 * _code(cap)
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert all(kernel.source in text for kernel in cap.kernels)  # every source, highlighted or plain
    for doc, head in ((cap, "kernelviz: 3 graphs"), (kernelviz.diff(cap, cap), "kernelviz diff: ")):
        text = repr(doc)
        assert len(text.splitlines()) <= 3 and len(text) < 600 and text.startswith(head), text


def test_the_html_report_of_a_gpu_step_counts_its_styles_and_stage_lines_within_twice_its_output_code():
    """A real H200 transformer step with every kernel's stages and repros, whose plain part alone takes 1.6x its code:
    the page, its styles and the line standing for each kernel's stages left out included, stays within 2x (it took
    2.06x when the budget left them out and always kept the first kernel's stages), bytes as the file holds them; the
    stages and markup that fit go to the kernels with the most time."""
    cap = kernelviz.load(Path(__file__).parent / "fixtures" / "deep" / "h200_transformer_step.kvz")
    page = cap.to_html()
    assert len(page.encode()) <= 2 * _code(cap)
    assert page.count('<details class="kv-stages">') + page.count(". Compiled stages (") == len(cap.kernels)
    assert page.count('<details class="kv-kernel">') == len(cap.kernels) and '<span class="' in page


def test_the_html_report_of_a_step_of_many_launches_and_little_code_stays_within_twice_its_output_code():
    """Launch rows and call()'s steps grow with the launches, not with the code: where they alone would pass 2x (a
    deep MLP's step reused its 5 kernels over 240 launches: 2.41x), the graphs with the most give up their steps'
    table for a line, then their launch rows beyond those with the most time; every kernel keeps its section."""
    cap = kernelviz.load(Path(__file__).parent / "fixtures" / "deep" / "cpu_deep_mlp_step.kvz")
    page = cap.to_html()
    assert len(page.encode()) <= 2 * _code(cap) and len(cap.launches) == 240
    assert page.count('<details class="kv-kernel">') == len(cap.kernels)
    assert page.count("Wrapper call(): ") == len(cap.graphs) and "each step: in the panel" in page


def test_a_capture_compressed_in_parts_reads_back_whole_from_its_file_and_its_notebook_output(tmp_path, monkeypatch):
    """Past ``PART_BYTES`` the JSON and the recorded values are compressed in parts at once, one xz stream each: the
    file and the notebook output read back to the same capture."""
    cap = kernelviz.load(Path(__file__).parent / "fixtures" / "deep" / "h200_transformer_step.kvz")
    whole = cap.save(tmp_path / "whole").read_bytes()
    monkeypatch.setattr(compressed, "PART_BYTES", 64 << 10)
    parts = cap.save(tmp_path / "parts").read_bytes()
    assert parts.count(compressed.MAGIC) > whole.count(compressed.MAGIC) + 2
    assert kernelviz.load(tmp_path / "parts.kvz") == cap
    bundle = json.loads(json.dumps(static_bundle(cap)))
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]).to_json() == cap.to_json()
