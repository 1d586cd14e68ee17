"""The diff's HTML report and the diff panel in headless Chromium, Light and Dark, on a depth change (CPU,
torch 2.13) and default against max-autotune (H100): no sideways scrolling from 480 to 1,400 px, a and b side
by side in one row, names clipped to the suffix that tells them apart (full on hover), the same sentence of
what changed as the text summary, and a 4,000-launch diff that stays usable. Screenshots go to out/."""

import copy
import json
import shutil
import sys
from pathlib import Path

import pytest
from test_compare_pairs import load, pair

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES
from kernelviz.names import short_name
from kernelviz.notebook.diff_display import payload
from kernelviz.views.diff_html import page as diff_page
from kernelviz.views.diff_text import summary

SHOTS = Path(__file__).resolve().parents[1] / "out"
PAIRS = FIXTURES / "pairs-h100-torch2.11"
THEMES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "themes" / "@jupyterlab"

# Every group row: its a and b cells side by side inside the table, each name's kept suffix inside its cell.
FIT = """(sel) => {
  const doc = document.documentElement, out = {overflow: doc.scrollWidth - doc.clientWidth, rows: [], tails: []};
  for (const row of document.querySelectorAll(sel)) {
    const cells = [...row.children].filter((td) => td.classList.contains('kv-c-name'));
    if (cells.length !== 2 || !row.offsetParent || row.parentElement.tagName === 'THEAD') continue;
    const [a, b] = cells.map((td) => td.getBoundingClientRect());
    out.rows.push({top: Math.abs(a.top - b.top), right: b.right - row.getBoundingClientRect().right,
                   height: row.getBoundingClientRect().height,
                   launches: Math.max(...cells.map((td) => td.querySelectorAll('.kv-launch').length), 1)});
  }
  for (const tail of document.querySelectorAll('.kv-tail, .kv-name-tail')) {
    const td = tail.closest('td'); if (!td || !tail.offsetParent || !tail.textContent) continue;
    const r = tail.getBoundingClientRect(), c = td.getBoundingClientRect();
    out.tails.push(r.width > 0 && r.right <= c.right + 1);
  }
  return out;
}"""
COLOURS = """(sel) => { const s = getComputedStyle(document.querySelector(sel));
  let el = document.querySelector(sel), bg = 'rgba(0, 0, 0, 0)';
  while (el && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
    bg = getComputedStyle(el).backgroundColor; el = el.parentElement;
  }
  return [s.color, bg === 'rgba(0, 0, 0, 0)' ? 'rgb(255, 255, 255)' : bg]; }"""  # a bare page is white


def luminance(css: str) -> float:
    r, g, b = (float(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def check_fit(page, rows: str) -> dict:
    fit = page.evaluate(FIT, rows)
    assert fit["overflow"] <= 0, f"sideways scroll of {fit['overflow']} px"
    assert fit["rows"] and all(r["top"] < 1 and r["right"] <= 1 for r in fit["rows"])  # a and b in one row
    assert fit["tails"] and all(fit["tails"])  # every kept suffix is shown
    return fit


def check_theme(page, scheme: str, text: str) -> None:
    colour, background = page.evaluate(COLOURS, text)
    if scheme == "dark":
        assert luminance(background) < 0.3 < luminance(colour)
    else:
        assert luminance(background) > 0.7 > luminance(colour)


def depth_and_autotune():
    return [("depth", pair("gpt_2", "gpt_3")),
            ("autotune", kernelviz.diff(PAIRS / "pair_default.json", PAIRS / "pair_max-autotune-no-cudagraphs.json",
                                        labels=("default", "max-autotune")))]


@needs_browser
def test_report_fits_a_1000_px_page_light_and_dark(tmp_path):
    SHOTS.mkdir(exist_ok=True)
    with chromium_page() as page:
        for name, d in depth_and_autotune():
            path = tmp_path / f"{name}.html"
            path.write_text(diff_page(d))
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                for width in (1000, 480):
                    page.set_viewport_size({"width": width, "height": 900})
                    page.goto(path.as_uri())
                    fit = check_fit(page, ".kv-groups tr")
                    assert all(r["height"] < 24 * r["launches"] + 14 for r in fit["rows"])  # one line a launch
                    if width == 1000:
                        check_theme(page, scheme, ".kv-story")
                        page.screenshot(path=str(SHOTS / f"diff_report_{name}_{scheme}.png"), full_page=True)
            text = page.locator(".kv-story").first.inner_text()
            words = " ".join(summary(d).split())  # the text view wraps between words
            assert text == f"What changed: {d.headline.summary}" and " ".join(d.headline.summary.split()) in words
            # clipped names carry the whole name on hover; an added row shows its launch on b's side alone
            titles = page.locator(".kv-groups .kv-name").evaluate_all("els => els.map((e) => e.title)")
            everyone = {x.name for c in (d.a, d.b) for g in c.graphs for x in g.launches}
            assert titles and set(titles) <= everyone
            if name == "depth":
                page.locator(".kv-fold-row summary").first.click()  # the unchanged launches, folded
                added = page.locator("tr.kv-rel-row-added")
                assert added.count() == 11
                assert added.locator("td.kv-none").count() == 11 and added.locator("td.kv-none a").count() == 0
                assert added.first.locator("a").first.get_attribute("href").startswith("#kv-diff-")
                first = added.first.locator(".kv-launch")
                assert first.locator(".kv-idx").inner_text() == "22"
                assert first.locator(".kv-name").get_attribute("title") == "cpp_fused_add_native_layer_norm_view_7"


def panel_page(tmp: Path, d, theme: str) -> Path:
    site = panel_site(tmp, json.dumps(payload(d)))
    shutil.copy(THEMES / f"theme-{theme}-extension" / "index.css", site / "theme.css")
    html = (site / "index.html").read_text().replace('<link rel="stylesheet" href="panel.css">',
                                                     '<link rel="stylesheet" href="theme.css">'
                                                     '<link rel="stylesheet" href="panel.css">')
    body = '<body style="margin:0;background:var(--jp-layout-color0)">'
    (site / "index.html").write_text(html.replace("<body>", body))
    return site


@needs_browser
@pytest.mark.skipif(not THEMES.exists(), reason="needs JupyterLab's themes (the test extra)")
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_panel_fits_480_to_1400_px_in_jupyterlab_themes(tmp_path, theme):
    SHOTS.mkdir(exist_ok=True)
    with chromium_page() as page:
        for name, d in depth_and_autotune():
            site = tmp_path / name
            site.mkdir()
            with serve(panel_page(site, d, theme)) as url:
                page.goto(f"{url}/index.html")
                page.wait_for_selector(".kv-diff .kv-table tr")
                if name == "autotune":
                    page.select_option(".kv-graph", "1")
                page.locator("tr.kv-row").nth(1).click()  # a group's detail: figures and source diff
                assert page.locator(".kv-story").inner_text() == f"What changed: {d.headline.summary}"
                for width in (480, 568, 800, 1000, 1100, 1400):
                    page.set_viewport_size({"width": width, "height": 900})
                    fit = check_fit(page, ".kv-diff tr.kv-row")
                    assert all(r["height"] < 24 * r["launches"] + 12 for r in fit["rows"])
                    wrap = page.evaluate("(() => { const w = document.querySelector('.kv-table-wrap');"
                                         " return w.scrollWidth - w.clientWidth; })()")
                    assert wrap <= 0
                    # every column in view shows its header
                    heads = page.locator(".kv-diff .kv-table thead th").evaluate_all(
                        "els => els.filter((e) => e.offsetParent).map((e) => [e.textContent, e.clientWidth])")
                    assert all(w >= 24 for _text, w in heads[1:]), (width, heads)
                    assert sum(w for _text, w in heads) >= page.evaluate(  # no blank room where a column left
                        "document.querySelector('.kv-table-wrap').clientWidth") - 2, (width, heads)
                    shown = [text for text, _w in heads]
                    assert "# a" in shown and "# b" in shown and ("matched by" in shown) == (width > 840)
                    if width in (568, 1000):
                        page.screenshot(path=str(SHOTS / f"diff_panel_{name}_{width}_{theme}.png"), full_page=True)
                check_theme(page, theme, ".kv-diff .kv-story")
                assert page.errors == []


@needs_browser
def test_panel_names_are_the_forms_in_the_payload(tmp_path):
    """The diff panel picks each launch's name from the forms in the payload's annex (views/diff_display.py), as
    the report's names.py does; forms that the names would not give are shown as the annex has them."""
    d = pair("gpt_2", "gpt_3")
    data = payload(d)
    names = data["view"]["names"]
    assert [sorted(n) for n in names["a"]] == [sorted({x.name for x in g.launches}) for g in d.a.graphs]
    for entries in names["b"]:
        for name, (_forms, tail, _ops) in entries.items():
            entries[name] = [["made up"] * 4, tail, ["made"]]
    with chromium_page() as page, serve(panel_site(tmp_path, json.dumps(data))) as url:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-diff tr.kv-row")
        rows = page.locator("tr.kv-row")
        heads = [[], []]
        for i in range(rows.count()):
            for side in (0, 1):
                heads[side] += rows.nth(i).locator("td.kv-c-name").nth(side).locator(".kv-name-head").all_inner_texts()
        assert heads[1] and set(heads[1]) == {"made up"}  # b: the annex's forms
        python = {short_name(x.name, x.original_aten, generated=x.kernel_name is not None)[0]
                  for g in d.a.graphs for x in g.launches}
        assert heads[0] and set(heads[0]) <= python  # a: names.py's
        assert page.errors == []


def repeated(name: str, launches: int, cut: slice | None = None):
    """A capture of ``name`` whose transformer block is repeated until the graph has ``launches`` launches
    (``cut``: launches taken out again)."""
    cap = load(name, code=False)
    graph = cap.graphs[0]
    base = list(graph.launches)
    body = base[1:12]
    order = [base[0]]
    while len(order) < launches:
        order += body
    order += base[22:]
    if cut:
        del order[cut]
    graph.launches = []
    for launch in order:
        launch = copy.deepcopy(launch)
        launch.index = len(graph.launches)
        graph.launches.append(launch)
    return cap


@needs_browser
def test_a_4000_launch_diff_stays_usable(tmp_path):
    d = kernelviz.diff(repeated("gpt_2", 4000, cut=slice(2001, 2012)), repeated("gpt_2", 4000))
    assert len(d.b.graphs[0].launches) == 4006 and d.headline.counts["added"] == 11
    assert d.headline.summary.startswith("11 launches added after launch ")
    path = tmp_path / "big.html"
    path.write_text(diff_page(d))
    assert path.stat().st_size < 5e6
    with chromium_page() as page:
        page.set_viewport_size({"width": 1000, "height": 900})
        page.goto(path.as_uri())
        check_fit(page, ".kv-groups tr")
        # the unchanged launches are folded rows around the added run (where among identical blocks the
        # alignment puts it is its own choice): a page, not 4,000 rows
        folded = page.locator(".kv-fold-row").count()
        assert 1 <= folded <= 2 and page.locator(".kv-diff > table.kv-groups > tbody > tr").count() < 20
        site = tmp_path / "panel"
        site.mkdir()
        with serve(panel_site(site, json.dumps(payload(d)))) as url:
            page.goto(f"{url}/index.html")
            page.wait_for_selector(".kv-diff tr.kv-row")
            assert 11 <= page.locator("tr.kv-row").count() < 20 and page.locator(".kv-fold-row").count() == folded
            page.locator(".kv-fold-row").first.click()  # opened a page at a time: 200 more rows a click
            rows = page.locator("tr.kv-row").count()
            assert 200 <= rows < 240 and page.locator(".kv-fold-row").first.inner_text().startswith("⋯ ")
            check_fit(page, ".kv-diff tr.kv-row")
            assert page.errors == []
