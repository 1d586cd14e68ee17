"""What the panel says of a kernel and a graph, worked out in Python and shown by the panel: each source node's
ATen ops and the graph fragment with each node once (``views/nodes.py``), the line that says what timing adds to
an untimed graph (whose figure columns are left out until there are figures), and the Wrapper call() tab
following the selected launch. The capture is ``kernelviz demo``'s, timed on the CPU (torch 2.13)."""

import json
from collections import Counter

import pytest

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.views.html import report
from kernelviz.views.nodes import node_ops, op_name, shown_nodes
from kernelviz.views.payload import kernel_view, payload

DEMO = FIXTURES / "demo-cpu-torch2.13" / "train_step.kvz"
FIGURES = ("in-graph ms", "share", "isolated ms", "achieved", "% roof", "bound")


@pytest.fixture(scope="module")
def demo():
    return kernelviz.load(DEMO)


def test_each_source_node_is_named_with_the_aten_ops_of_its_nodes(demo):
    backward = demo.graphs[1]
    kernel = backward.kernels[0]  # cpp_fused__log_softmax__log_softmax_backward_data_...
    assert kernel.node_mapping["div_1"] == ["div_1"]  # the mapping names a node after itself ...
    rows = dict(node_ops(kernel))
    assert rows["div_1"] == "aten.div.Tensor"  # ... the view names its op, as the fragment says it
    assert rows["loss"] == "aten.full.default (full_default, full_default_1), aten.sub.Tensor (sub_1, sub_2)"
    for k in demo.kernels:  # every op named is the fragment's target of a node mapped from that source node
        targets = {n.name: op_name(n.target) for n in k.fragment_nodes() if n.op == "call_function"}
        for source, text in node_ops(k):
            assert all(targets[node] in text for node in k.node_mapping[source] if node in targets)


def test_the_fragment_lists_each_node_once_and_loses_none(demo):
    doubled = [k for k in demo.kernels if len({n.name for n in k.fragment_nodes()}) < len(k.fragment_nodes()) - 1]
    assert doubled  # Inductor prints a reduction's buffer as a placeholder and again where the kernel computes it
    for kernel in demo.kernels:
        shown = shown_nodes(kernel)
        assert max(Counter(n.name for n in shown).values()) == 1
        assert {n.name for n in shown} == {n.name for n in kernel.fragment_nodes() if n.op != "output"}
        computed = {n.name for n in kernel.fragment_nodes() if n.op == "call_function"}
        assert all(n.op == "call_function" for n in shown if n.name in computed)  # the node where it is computed


def test_the_payload_and_the_report_carry_the_nodes_view(demo):
    data = payload(demo)
    key = f"1/{demo.graphs[1].kernels[0].name}"
    assert data["view"]["nodes"][key]["ops"] == node_ops(demo.graphs[1].kernels[0])
    assert kernel_view(demo, key)["nodes"] == data["view"]["nodes"][key]  # the live widget's answer
    page = report(demo)
    assert "<td>div_1</td><td>aten.div.Tensor</td>" in page and "<td>div_1</td><td>div_1</td>" not in page


def test_an_untimed_graph_says_what_timing_adds(demo):
    untimed = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    (annex,) = payload(untimed)["view"]["launches"]
    assert annex["untimed"].startswith("not timed: timing adds") and "\n" not in annex["untimed"]
    assert all(a["untimed"] == "" for a in payload(demo)["view"]["launches"])


@needs_browser
def test_the_panel_shows_ops_each_node_once_and_no_empty_figure_columns(tmp_path, demo):
    untimed = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    (tmp_path / "a").mkdir()
    with serve(panel_site(tmp_path / "a", json.dumps(payload(untimed)))) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        head = page.locator(".kv-table thead").inner_text()
        assert not any(label in head for label in FIGURES) and "launch" in head
        assert page.locator(".kv-untimed").inner_text().startswith("not timed: timing adds")
        page.locator(".kv-columns summary").click()
        assert "(no figures yet)" in page.locator("label:has(input[data-column='ms'])").inner_text()
        assert page.errors == []
    (tmp_path / "b").mkdir()
    with serve(panel_site(tmp_path / "b", json.dumps(payload(demo)))) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        head = page.locator(".kv-table thead").inner_text()
        assert all(label in head for label in ("in-graph ms", "share", "isolated ms", "achieved"))
        assert "% roof" not in head and page.locator(".kv-untimed").count() == 0  # no peaks: no % of them
        page.locator(".kv-graph").select_option("1")
        page.locator(".kv-row").first.click()
        ops = page.locator(".kv-node-ops").inner_text()
        assert "Source nodes → ATen ops" in ops and "aten.div.Tensor" in ops
        names = [n.inner_text() for n in page.locator(".kv-fragment tr.kv-node td:first-child").all()]
        assert names and len(names) == len(set(names))
        page.locator(".kv-row").nth(3).click()
        page.locator(".kv-tab[data-tab='wrapper']").click()
        selected = page.locator(".kv-step.kv-selected")
        assert selected.count() == 1 and demo.graphs[1].launches[3].kernel_name in selected.inner_text()
        assert page.locator(".kv-step.kv-peak").inner_text().endswith("(peak)")
        page.wait_for_function("() => { const r = document.querySelector('.kv-step.kv-selected')"
                               ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
        assert page.errors == []


@needs_browser
@pytest.mark.parametrize("summary", [False, True])
def test_the_capture_report_fits_480_px_with_its_figures_whole(tmp_path, demo, summary):
    path = tmp_path / "report.html"
    path.write_text(demo.to_html() if not summary else f"<!DOCTYPE html><html><body>{report(demo, summary=True)}"
                    "</body></html>")
    with chromium_page() as page:
        for width in (480, 1400):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(path.as_uri())
            page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            heads = page.locator(".kv-table").first.locator("th").evaluate_all(
                "els => els.filter((e) => e.offsetParent).map((e) => [e.textContent, e.getBoundingClientRect().right])")
            labels = [label for label, _ in heads]
            assert {"launch", "in-graph ms", "share", "achieved"} <= set(labels), labels
            assert all(right <= width for _, right in heads)  # no column cut at the page's edge
            assert "% roof" not in labels and "bound" not in labels  # no peaks: never an empty column
            if width == 1400:
                assert "isolated ms" in labels and "kind" in labels
