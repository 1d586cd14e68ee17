"""The views of a diff: text, HTML report (parsed), MIME bundle, and the panel in headless Chromium, with
hostile captured text that must stay text."""

import json

import pytest
from test_views import EVIL

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES, parse_html
from kernelviz.compare import Diff
from kernelviz.notebook.diff_display import payload
from kernelviz.views.diff_html import shows_detail
from kernelviz.views.diff_source import line_runs, source_diff, unified
from kernelviz.views.diff_text import summary
from kernelviz.views.payload import decode
from kernelviz.views.text import plural

PAIRS = FIXTURES / "pairs-h100-torch2.11"


def autotune_diff() -> Diff:
    return kernelviz.diff(PAIRS / "pair_default.json", PAIRS / "pair_max-autotune-no-cudagraphs.json",
                          labels=("default", "max-autotune"))


def edit_diff(hostile: bool = False) -> Diff:
    a, b = kernelviz.load(PAIRS / "pair_default.json"), kernelviz.load(PAIRS / "pair_edited.json")
    if hostile:
        kernel = b.graphs[0].kernel("triton_poi_fused_addmm_relu_0")
        kernel.source = kernel.source.replace("tmp2 = ", f"tmp2 = '{EVIL}' or ")
    return kernelviz.diff(a, b, labels=(f"before {EVIL}", "after"))


def test_text_summary_names_both_sides_and_every_group():
    d = autotune_diff()
    text = summary(d)
    assert text.splitlines()[0].startswith("kernelviz diff: default (2 graphs, cuda, torch 2.11.0+cu130")
    assert "fused    0 extern_kernels.mm + 1 triton_poi_fused_mul_relu_0 → 0 triton_tem_fused_mm_mul_relu_0" in text
    assert "biggest wins:" in text and "biggest losses:" in text
    norm = next(g for g in d.groups if g.relation == "same")
    assert f"XBLOCK {norm.measure('XBLOCK').a}→{norm.measure('XBLOCK').b}" in text
    assert all(len(line) < 400 for line in text.splitlines())
    # a change beyond twice side a is a factor, never a percentage above 100
    assert "× a" in text and not any(float(p) > 100 for p in __import__("re").findall(r"\+(\d+\.\d)%", text))


def test_unified_rows_cover_both_sides_of_a_source_diff():
    d = edit_diff()
    group = next(g for g in d.groups if g.relation == "changed" and g.how == "source nodes")
    src = source_diff(d, group)
    rows = list(unified(src["ops"], context=10**6))  # nothing left out: every line of each side appears
    assert [i for tag, i, _ in rows if tag in "=-"] == list(range(len(src["a"].splitlines())))
    assert [j for tag, _, j in rows if tag in "=+"] == list(range(len(src["b"].splitlines())))
    assert any(tag == "-" and "erf" in src["a"].splitlines()[i] for tag, i, _ in rows)  # GELU's erf is gone
    folded = list(unified(src["ops"]))
    assert any(tag == "…" for tag, _, _ in folded) and len(folded) < len(rows)
    assert ["".join(t for _, t in line) for line in line_runs(src["b"], "python")] == src["b"].split("\n")


def test_html_report_escapes_everything_captured(tmp_path):
    d = edit_diff(hostile=True)
    markup = d.to_html()
    parsed = parse_html(markup)
    assert not any(tag in ("script", "img", "iframe", "link") for tag, _ in parsed.tags)
    text = "".join(parsed.text)
    assert f"before {EVIL}" in text and f"'{EVIL}'" in text  # shown, as text
    deleted = [a for tag, a in parsed.tags if tag == "div" and a.get("class") == "kv-del"]
    inserted = [a for tag, a in parsed.tags if tag == "div" and a.get("class") == "kv-ins"]
    assert deleted and inserted
    assert any(tag == "span" and a.get("class") == "k" for tag, a in parsed.tags)  # pygments highlighting
    path = tmp_path / "d.html"
    d.save_html(str(path))
    assert path.read_text() == markup and markup.startswith("<!DOCTYPE html>")


def test_mimebundle_carries_the_diff_json_html_and_text():
    d = autotune_diff()
    bundle = d._repr_mimebundle_()
    assert bundle[kernelviz.MIME_TYPE]["encoding"] == "xz+base85"  # the compact form a capture's output saves
    data = decode(bundle[kernelviz.MIME_TYPE])
    assert data == json.loads(json.dumps(payload(d)))  # lossless
    assert data["format"] == "kernelviz-diff" and all(g["code"] == "" for g in data["a"]["graphs"])
    shown = {int(k) for k in data["view"]["sources"]}
    assert shown == {k for k, g in enumerate(d.groups) if g.relation != "same" or
                     any(m.changed for m in g.measures if m.kind in ("config", "binary"))}
    src = data["view"]["sources"][str(min(shown))]
    assert sum(src["ta"][1::2]) == len(src["a"]) and sum(src["tb"][1::2]) == len(src["b"])
    assert "kernelviz diff" in bundle["text/html"] and bundle["text/plain"] == summary(d)
    assert 'class="kv-unified"' not in bundle["text/html"] and 'class="kv-unified"' in d.to_html()
    data.pop("view")
    restored = Diff.from_dict(data)
    assert [m.how for m in restored.matches] == [m.how for m in d.matches]
    pytest.importorskip("anywidget")
    assert "application/vnd.jupyter.widget-view+json" in bundle


@needs_browser
def test_panel_draws_a_diff_and_keeps_text_as_text(tmp_path):
    d = edit_diff(hostile=True)
    with serve(panel_site(tmp_path, json.dumps(payload(d)))) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-diff .kv-row")
        assert page.evaluate("window.pwned") is None
        assert EVIL in page.locator(".kv-header").inner_text()
        mlp = next(k for k, gm in enumerate(d.graphs) if gm.a is not None and gm.b is not None)
        page.select_option(".kv-graph", str(mlp))
        assert page.locator(".kv-row").count() == sum(1 for g in d.groups if g.graph == mlp)
        k = next(k for k, g in enumerate(d.groups) if g.graph == mlp and g.how == "source nodes")
        page.locator(f'tr[data-group="{k}"]').click()
        detail = page.locator(".kv-detail")
        assert "triton_poi_fused_addmm_gelu_0 → triton_poi_fused_addmm_relu_0" in detail.inner_text()
        assert page.locator(".kv-detail .kv-line.kv-del").count() > 0
        assert page.locator(".kv-detail .kv-tok-k").count() > 0
        assert EVIL in page.locator(".kv-detail .kv-line.kv-ins").all_inner_texts().__str__()
        page.select_option(".kv-layout", "side by side")
        assert page.locator(".kv-sbs td.kv-del").count() > 0 and page.locator(".kv-sbs td.kv-ins").count() > 0
        page.select_option(".kv-relation", "same")
        assert page.locator(".kv-row").count() == sum(1 for g in d.groups if g.graph == mlp and g.relation == "same")
        page.locator(".kv-diff-headline a").first.click()  # a headline entry selects its group
        assert page.locator(".kv-detail .kv-detail-title").count() == 1
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert page.errors == []


def test_magic_diff_shows_the_cell_against_a_base(fresh_dynamo, capsys):
    shell_class = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell
    ip = shell_class.instance()
    try:
        ip.run_cell("%load_ext kernelviz", store_history=False)
        ip.run_cell(f"import torch, sys; sys.path.insert(0, {str(FIXTURES.parent)!r}); import zoo",
                    store_history=False)
        assert ip.run_cell("%%kernelviz -o base\nout = torch.compile(zoo.pointwise)(torch.randn(8, 32))").success
        capsys.readouterr()
        result = ip.run_cell("%%kernelviz --diff base -o new\ntorch.compile(zoo.pointwise)(torch.randn(8, 32)).shape")
        assert result.success and tuple(result.result) == (8, 32)
        printed = capsys.readouterr().out
        assert printed.startswith("kernelviz diff: base (1 graph, cpu") and "→ this cell (1 graph, cpu" in printed
        assert "1 same" in printed and ip.user_ns["new"].graphs
        ip.run_cell("%%kernelviz --diff no_such_name\n1")
        err = capsys.readouterr().err.strip()
        assert err.startswith("kernelviz: --diff no_such_name: ") and "\n" not in err
    finally:
        shell_class.clear_instance()


def test_the_notebooks_html_summary_lists_what_changed_and_counts_the_rest():
    d = edit_diff()
    html, full = d._repr_mimebundle_()["text/html"], d.to_html()
    same = sum(len(g.b) for g in d.groups if not shows_detail(g))
    assert same and f"{plural(same, 'launch')} the same are left out" in html
    changed = [g for g in d.groups if shows_detail(g)]
    assert changed and html.count('<tr class="kv-rel-row-') == len(changed) < full.count('<tr class="kv-rel-row-')
