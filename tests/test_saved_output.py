"""What a notebook saves of a capture: the panel's data compressed with each text and recorded value stored once,
a report without kernel sources for GitHub and nbviewer, and the text summary; at most 1.5x the code it shows.
Outputs saved by an older kernelviz (xz in base64, gzip) still read."""

import base64
import json

import pytest

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES, fill_timings
from kernelviz.compressed import split
from kernelviz.notebook.display import static_bundle
from kernelviz.views.html import TOP_LAUNCHES
from kernelviz.views.payload import ENCODING, capture_from_bundle, decode, payload, saved

RESNET = FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"


def _inner(data: dict) -> dict:
    return split(base64.b85decode(data["data"]))[0]


def test_a_resnet18_graph_saves_at_most_one_and_a_half_times_its_code():
    cap = fill_timings(kernelviz.load(RESNET))  # timed: the report's charts and columns are drawn too
    bundle = json.loads(json.dumps(static_bundle(cap)))  # as nbformat writes it
    code = len(cap.graphs[0].code)
    assert len(json.dumps(bundle)) <= 1.5 * code  # was 674 KB for 148 KB
    assert cap.kernels[0].source not in bundle["text/html"]  # the panel and cap.save_html() have them
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]) == cap


def test_kernel_sources_are_stored_as_spans_of_the_code():
    cap = kernelviz.load(RESNET)
    data = saved(cap)
    assert data["encoding"] == ENCODING and data["schema_version"] == kernelviz.SCHEMA_VERSION
    graph = _inner(data)["graphs"][0]
    for kernel, stored in zip(cap.kernels, graph["kernels"]):
        start, end = stored["source"]
        assert graph["code"][start:end] == kernel.source
    assert graph["code"] == cap.graphs[0].code
    assert len(_inner(data)["view"]["highlight"]) == len(cap.kernels)  # tokens travel too, compressed
    assert saved(cap) == data  # no timestamp: the same capture saves the same bytes


def test_sources_that_are_not_slices_or_code_outside_the_bmp_are_kept_as_text():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    cap.graphs[0].kernels[0].source += "\n# edited after capture"
    emoji = kernelviz.load(FIXTURES / "cpu-torch2.13" / "pointwise_0.py")
    emoji.graphs[0].code = "# 😀 (two UTF-16 units in the browser)\n" + emoji.graphs[0].code
    cap.graphs += emoji.graphs
    inner = _inner(saved(cap))
    assert inner["graphs"][0]["kernels"][0]["source"] == cap.graphs[0].kernels[0].source
    assert isinstance(inner["graphs"][0]["kernels"][1]["source"], list)
    assert all(isinstance(k["source"], str) for k in inner["graphs"][1]["kernels"])
    assert capture_from_bundle(saved(cap)) == cap


def test_nbviewer_and_github_get_the_summary_not_the_data():
    """GitHub and nbviewer show the text/html part: a summary (the top launches of each graph, the count of the
    others, and where the rest is), not the data."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    cap = fill_timings(kernelviz.load(RESNET))
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("cap", outputs=[
        nbformat.v4.new_output("display_data", data=static_bundle(cap))]))
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)  # what nbviewer renders
    top = sorted(cap.launches, key=lambda launch: -launch.timing.in_graph_ms)[:TOP_LAUNCHES]
    assert "kv-report" in body and all(f'title="{launch.name}"' in body for launch in top)
    assert f"{len(cap.launches) - TOP_LAUNCHES} more launches" in body and "cap.save_html(path)" in body
    assert saved(cap)["data"][:40] not in body


def test_outputs_saved_in_the_earlier_forms_still_read():
    old = json.loads((FIXTURES / "saved" / "gzip" / "mlp_0.json").read_text())  # saved() of mlp_0.py before xz
    assert old["encoding"] == "gzip+base64"
    assert capture_from_bundle(old) == kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    deep = FIXTURES / "deep" / "h100_capture.json"
    old = json.loads((FIXTURES / "saved" / "xz-base64" / deep.name).read_text())  # saved() of it before base85
    assert old["encoding"] == "xz+base64"
    assert capture_from_bundle(old) == kernelviz.load(deep)


def test_base85_takes_a_sixteenth_less_than_base64_in_whole_groups():
    """The saved form's text: 5 characters for 4 bytes (base64 takes 5.33); an xz stream is a multiple of 4 bytes, so
    the panel reads whole groups only."""
    for path in (FIXTURES / "deep" / "h100_capture.json", RESNET, FIXTURES / "cpu-torch2.13" / "pointwise_0.py"):
        data = saved(kernelviz.load(path))
        raw = base64.b85decode(data["data"])
        assert len(raw) % 4 == 0 and len(data["data"]) == len(raw) // 4 * 5


def test_repro_scripts_keep_their_recorded_values_once_as_bytes():
    cap = kernelviz.load(FIXTURES / "deep" / "h100_capture.json")
    scripts = {k: v["repro"]["script"] for k, v in payload(cap)["view"]["deep"].items()}
    data = saved(cap)
    stored = _inner(data)["view"]["deep"]
    spanned = [k for k, v in stored.items() if isinstance(v["repro"]["script"], list)]
    assert spanned and all(isinstance(stored[k]["repro"]["script"][1], list) for k in spanned)
    assert {k: v["repro"]["script"] for k, v in decode(data)["view"]["deep"].items()} == scripts
    assert capture_from_bundle(data) == cap


@needs_browser
@pytest.mark.parametrize("form", ["xz", "xz-base64", "gzip"])
def test_the_panel_reads_the_saved_form_and_the_earlier_ones(tmp_path, form):
    """In Chromium the panel's decodePayload gives back what Python's decode does: sources, code and the repro
    scripts rebuilt from the bytes after the JSON (xz, in base85 or as saved before in base64), or the earlier gzip
    form as it was saved."""
    if form == "xz":
        data = saved(kernelviz.load(FIXTURES / "deep" / "h100_capture.json"))  # stages and repro scripts
    elif form == "xz-base64":
        data = json.loads((FIXTURES / "saved" / "xz-base64" / "h100_capture.json").read_text())
    else:
        data = json.loads((FIXTURES / "saved" / "gzip" / "mlp_0.json").read_text())
    want = decode(data)
    with serve(panel_site(tmp_path, json.dumps(data))) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        got = page.evaluate("""async () => {
            const { decodePayload } = await import("./panel.js");
            return await decodePayload(await (await fetch("data.json")).json()); }""")
    assert [[k["source"] for k in g["kernels"]] for g in got["graphs"]] == \
        [[k["source"] for k in g["kernels"]] for g in want["graphs"]]
    assert [g["code"] for g in got["graphs"]] == [g["code"] for g in want["graphs"]]
    assert got["view"].get("deep") == want["view"].get("deep")
    assert page.errors == []
