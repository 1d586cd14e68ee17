"""The views: HTML report (parsed), widget state, tokens, and the panel in headless Chromium,
with hostile captured text that must stay text."""

import hashlib
import json
import time

import pytest

import kernelviz
from browser import STATIC, chromium_page, needs_browser, panel_site, serve
from conftest import ALL_FIXTURES, FIXTURES, big_capture, fill_timings, parse_html
from kernelviz.model import Capture, DynamoEvent, Graph, SourceLocation
from kernelviz.notebook.display import widget_bundle
from kernelviz.views.highlight import language, tokens
from kernelviz.views.html import report
from kernelviz.views.memory import timeline
from kernelviz.views.payload import LIVE, capture_from_bundle, decode, live, pack, packing, payload

EVIL = '<script>window.pwned=1</script>"'


def hostile_capture() -> Capture:
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "attention_0.py")
    kernel = cap.graphs[0].kernels[0]
    kernel.name = f"triton_{EVIL}"
    cap.graphs[0].launches[0].kernel_name = kernel.name
    kernel.source = kernel.source.replace("xnumel = 8192", f"xnumel = 8192  # '{EVIL}'")
    kernel.locations = [SourceLocation(file=f"/tmp/{EVIL}.py", line=3, function="f", code=f"x = '{EVIL}'")]
    kernel.fragment.append(f'%x : Tensor "f32[8][1]cuda:0" = call_function[target={EVIL}](args = (%y,))')
    cap.dynamo = [DynamoEvent("graph_break", f"Unsupported {EVIL}", f"/tmp/{EVIL}.py", 3, "f", EVIL)]
    return cap


def test_panel_bundle_is_built_from_the_current_sources():
    src = STATIC / "src"
    digest = hashlib.sha256()
    for path in sorted([*src.glob("*.js"), *src.glob("*.json")], key=lambda p: p.name):
        digest.update(f"{path.name}\0{path.read_text()}\0".encode())
    banner = (STATIC / "panel.js").read_text().splitlines()[1]
    assert banner == f"// sources sha256 {digest.hexdigest()}", "stale panel.js: jlpm build:panel"


def test_html_report_lists_kernels_with_highlighted_source():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py")
    parsed = parse_html(report(cap))
    text = "".join(parsed.text)
    assert all(k.name in text for k in cap.kernels)
    assert sum(1 for tag, a in parsed.tags if tag == "details" and a.get("class") == "kv-kernel") == len(cap.kernels)
    highlighted = [a for tag, a in parsed.tags if tag == "div" and a.get("class") == "highlight"]
    assert len(highlighted) == len(cap.kernels)
    assert any(tag == "span" and a.get("class") == "k" for tag, a in parsed.tags)  # pygments keyword spans
    assert not any(tag in ("script", "link", "img", "iframe") for tag, _ in parsed.tags)


def test_html_report_escapes_everything_captured(tmp_path):
    cap = hostile_capture()
    markup = cap.to_html()
    parsed = parse_html(markup)
    assert not any(tag == "script" for tag, _ in parsed.tags)
    assert EVIL in "".join(parsed.text)  # shown, as text
    path = tmp_path / "r.html"
    cap.save_html(str(path))
    assert path.read_text() == markup


def test_tokens_cover_every_kernel_source_exactly():
    for path in ALL_FIXTURES:
        for kernel in kernelviz.load(path).kernels:
            runs = tokens(kernel.source, language(kernel))
            assert sum(runs[1::2]) == len(kernel.source)
            assert set(runs[0::2]) <= set(__import__("pygments.token").token.STANDARD_TYPES.values())


def test_payload_is_the_model_json_plus_a_view_annex():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "norms_0.py")
    data = json.loads(json.dumps(payload(cap)))
    assert Capture.from_dict(data) == cap
    key = f"0/{cap.kernels[0].name}"
    links = data["view"]["links"][key]
    lines = cap.kernels[0].source.splitlines()
    assert "libdevice.rsqrt" in lines[links["rsqrt"][0] - 1]
    assert all("tl.load(in_ptr0" in lines[n - 1] for n in links["arg0_1"])
    assert data["view"]["highlight"][key] == list(tokens(cap.kernels[0].source, "python"))


def test_memory_timeline_never_negative_and_peak_is_reached():
    for path in ALL_FIXTURES:
        graph = kernelviz.load(path).graphs[0]
        line = timeline(graph)
        assert all(b >= 0 for _, b in line.steps)
        assert line.peak == max((b for _, b in line.steps), default=0)
    attention = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "attention_0.py").graphs[0]
    line = timeline(attention)
    # buf0, buf3 (=buf1), buf4 and buf5 are live together before the attention call
    assert line.peak >= 32768 + 32768 + 8 * 1024 * 512 * 2 + 8192 * 1536 * 2


def test_widget_state_selection_and_lazy_tokens():
    pytest.importorskip("anywidget")
    from kernelviz.notebook.widget import CaptureWidget

    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    widget = CaptureWidget(cap)
    assert decode(widget.payload)["view"]["highlight"] == {}  # tokens are sent when a kernel is selected
    assert [launch["op"] or launch["kernel_name"] for launch in decode(widget.payload)["graphs"][0]["launches"]] == [
        launch.name for launch in cap.launches]
    widget.selected = "0/1"
    assert widget.selected_launch.kernel_name == "triton_poi_fused_gelu_0"
    sent = []
    widget.send = sent.append
    widget._on_message(widget, {"type": "kernel", "key": "0/triton_poi_fused_gelu_0"}, [])
    widget._on_message(widget, {"type": "kernel", "key": "0/no_such_kernel"}, [])
    assert len(sent) == 1 and sent[0]["key"] == "0/triton_poi_fused_gelu_0"
    assert sum(sent[0]["tokens"][1::2]) == len(cap.graphs[0].kernel("triton_poi_fused_gelu_0").source)
    assert "erf" in sent[0]["links"]


def test_capture_mimebundle_has_widget_model_json_and_html():
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    bundle = cap._repr_mimebundle_()
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]) == cap
    assert "cpp_fused_gelu_0" in bundle["text/html"] and "kernelviz:" in bundle["text/plain"]
    pytest.importorskip("anywidget")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_the_saved_and_the_live_payload_come_from_one_model_json_and_packing_leaves_it_as_it_was():
    """The display makes the live widget's payload from the saved one's JSON: it is what the widget makes on its
    own, and packing either one changes neither (kernel sources become spans only in the packed copy)."""
    pytest.importorskip("anywidget")
    from kernelviz.notebook.widget import CaptureWidget

    cap = kernelviz.load(FIXTURES / "deep" / "h100_capture.json")  # compiled stages and repros in it
    data = payload(cap)
    before = json.dumps(data, sort_keys=True)
    shown = live(data)
    assert decode(pack(data)) == json.loads(before) and json.dumps(data, sort_keys=True) == before
    assert decode(pack(shown)) == decode(CaptureWidget(cap).payload) == json.loads(json.dumps(shown))
    def stages(payload):
        return [s for g in payload["graphs"] for k in g["kernels"] for s in (k.get("ir") or {}).get("stages", [])]

    assert any(s["text"] for s in stages(data)) and len(stages(shown)) == len(stages(data))
    assert not any(s["text"] or s["source_lines"] for s in stages(shown))
    assert all(g["code"] == "" for g in shown["graphs"]) and shown["view"]["links"] == {}
    assert all(g["code"] for g in data["graphs"]) and data["view"]["links"]
    assert widget_bundle(cap, packed=packing(shown, LIVE))[1].payload == CaptureWidget(cap).payload


@needs_browser
def test_panel_in_chromium_selects_shows_source_and_keeps_text_as_text(tmp_path):
    cap = hostile_capture()
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        assert page.locator(".kv-row").count() == len(cap.launches)
        assert page.evaluate("window.pwned") is None
        page.locator(".kv-row").first.click()
        page.wait_for_selector(".kv-source.kv-highlighted")
        title = page.locator(".kv-detail-title").inner_text()
        assert EVIL in title and f"Unsupported {EVIL}" in page.locator(".kv-dynamo").inner_text()
        assert page.locator(".kv-tok-k").count() > 0
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        page.locator(".kv-node[data-node='primals_1']").click()
        assert page.locator(".kv-line.kv-lit").count() >= 1
        page.locator(".kv-filter").fill("addmm")
        assert page.locator(".kv-row").count() == 2
        page.locator(".kv-tab").nth(1).click()
        assert "peak memory" in page.locator(".kv-detail").inner_text()
        assert page.errors == []


@needs_browser
def test_200_kernel_capture_opens_fast(tmp_path):
    cap = big_capture(200)
    start = time.perf_counter()
    data = json.dumps(payload(cap, per_kernel=False))  # what the widget sends when it opens
    python_s = time.perf_counter() - start
    with serve(panel_site(tmp_path, data)) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        render_ms = page.evaluate("window.renderMs")
    print(f"200-kernel capture ({len(cap.kernels)} kernels, {len(cap.launches)} launches, {len(data) / 1e6:.1f} MB): "
          f"payload {python_s * 1e3:.0f} ms, first render {render_ms:.0f} ms")
    assert len(cap.kernels) >= 200


def test_html_report_has_the_panels_columns_charts_and_wrapper_view():
    cap = fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"))
    cap.graphs[0].launches[3].timing.pct_peak_flops = 100.0
    markup = report(cap)
    parsed = parse_html(markup)
    assert all(f">{h}</th>" in markup for h in ("in-graph ms", "share", "isolated ms", "achieved", "% roof"))
    assert not any(tag in ("script", "iframe", "foreignobject") for tag, _ in parsed.tags)
    assert sum(1 for tag, _ in parsed.tags if tag == "svg") >= 3  # roofline, bandwidth strip, legend, timeline
    assert sum(1 for tag, a in parsed.tags if tag == "rect" and a.get("class") == "kv-span") == len(cap.launches)
    assert "gap (between launches)" in markup and "Wrapper call():" in markup
    percents = [float(t[:-1]) for t in parsed.text if t.endswith("%") and t[:-1].replace(".", "").isdigit()]
    assert percents and max(percents) <= 100
    assert "ceilings of NVIDIA H100 80GB HBM3: datasheet: NVIDIA H100 SXM5 80GB" in markup
    anchors = {a["href"][1:] for tag, a in parsed.tags if tag == "a"}
    ids = {a["id"] for tag, a in parsed.tags if tag == "div" and "id" in a}
    assert anchors and anchors <= ids  # each link lands inside its kernel's <details>, which opens it


def test_compile_story_and_dynamo_events_in_the_text_summary():
    from kernelviz.views.text import summary

    graphs = [Graph(id=f"{i}_forward", kind="forward", device="cpu", code="") for i in range(3)]
    graphs[0].cache, graphs[0].compile_s = "compiled", 3.21
    graphs[1].cache = graphs[2].cache = "reused"
    cap = Capture(graphs=graphs, dynamo=[DynamoEvent("graph_break", "Unsupported: print\nmore", "m.py", 42, "f",
                                                    "print(x)")])
    text = summary(cap)
    assert "compiled 1 graph in 3.21 s · 2 cached (compile 0 s: compiled before this cell)" in text
    assert "dynamo: m.py:42 (print(x)): Unsupported: print\n" in text  # its gist in a line: the rest in cap.dynamo
    assert "print\n      more" not in text


@needs_browser
def test_panel_fits_700_to_2000_px_and_the_column_chooser_adds_columns(tmp_path):
    cap = fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"))
    with serve(panel_site(tmp_path, json.dumps(payload(cap)))) as url, chromium_page() as page:
        for width in (700, 1000, 2000):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{url}/index.html")
            page.wait_for_selector(".kv-row")
            wrap = page.locator(".kv-table-wrap")
            assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), f"the table scrolls sideways at {width} px"
            assert page.locator(".kv-roofline-flops .kv-point").count() > 0 and page.locator(".kv-span").count() > 0
        name = page.locator(".kv-row td").nth(1)
        assert name.get_attribute("title") == cap.launches[0].name  # the full name on hover
        page.locator(".kv-columns summary").click()
        page.locator("input[data-column='aten']").check()
        assert "original ATen" in page.locator(".kv-table thead").inner_text()
        assert page.errors == []


def test_rules_give_a_launchs_rate_and_roof():
    from kernelviz.model import Collective, Launch, LaunchTiming
    from kernelviz.views.rules import Rate, Roof, rate, roof

    def launch(**timing):
        return Launch(index=0, step=0, kernel_name="k", timing=LaunchTiming(**timing))

    compute = launch(gb_per_s=900.0, tflop_per_s=50.0, bound="compute", pct_peak_flops=130.0, pct_peak_bw=20.0,
                     dtype="bfloat16", cache_resident=True)
    assert rate(compute) == Rate(50.0, "TFLOP/s")  # cache-resident qualifies a GB/s only
    assert roof(compute, True) == Roof(100.0, "bfloat16 compute peak", "")  # never above 100
    assert roof(compute, False) is None  # no % of a roof where the peaks are not known
    memory = launch(gb_per_s=4000.0, tflop_per_s=1.0, bound="memory", pct_peak_bw=80.0, cache_resident=True)
    assert rate(memory) == Rate(4000.0, "GB/s", True) and roof(memory, True) == Roof(80.0, "DRAM bandwidth peak", "")
    unknown = launch(gb_per_s=10.0, pct_peak_flops=5.0)  # the bound not known: tagged with the peak it is of
    assert roof(unknown, True) == Roof(5.0, "compute peak", "flop") and rate(unknown) == Rate(10.0, "GB/s")
    assert roof(launch(pct_peak_bw=-3.0), True) == Roof(-3.0, "DRAM bandwidth peak", "bw")  # kept as it is
    assert rate(launch()) is None and roof(launch(), True) is None
    wire = Launch(index=1, step=1, op="_c10d_functional.all_reduce_", timing=LaunchTiming(gb_per_s=5.0),
                  collective=Collective(op="all_reduce", bus_gb_per_s=150.0))
    assert rate(wire) == Rate(150.0, "GB/s bus")


@pytest.mark.parametrize("peaks", [True, False])
def test_view_annex_holds_each_launchs_rate_roof_and_name_forms(peaks):
    from kernelviz.names import label
    from kernelviz.views.rules import rate, roof

    cap = fill_timings(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py"), peaks=peaks)
    data = payload(cap)
    graph, annex = cap.graphs[0], data["view"]["launches"][0]
    assert data["view"]["peaks_known"] is peaks
    assert len(annex["names"]) == len({x.name for x in graph.launches}) < len(graph.launches)  # one per name
    for launch in graph.launches:
        forms, tail, ops = annex["names"][launch.name]
        assert f"{forms[0]} {tail}".strip() == label(launch.name, launch.original_aten, 200,
                                                     generated=launch.kernel_name is not None)
        r, f = rate(launch), roof(launch, peaks)
        assert annex["rates"].get(str(launch.index)) == (r and [r.value, r.unit, r.cache_resident])
        assert annex["roofs"].get(str(launch.index)) == (f and [f.pct, f.of, f.tag])
    assert annex["rates"] and bool(annex["roofs"]) is peaks
    view = live(data)["view"]
    assert view["launches"] == data["view"]["launches"] and view["peaks_known"] is peaks  # the widget's too
