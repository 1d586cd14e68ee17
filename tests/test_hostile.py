"""An untrusted notebook stays inert: every string a capture holds (kernel and buffer names, sources,
comments, fragments, file paths, user code lines, warnings, device names, dynamo's reasons, ...) carries
markup and script, and the HTML report, the saved payload and the panel in Chromium show it as text:
nothing runs, nothing is turned into elements, and nothing is dropped."""

import dataclasses
import json
import typing

import pytest

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from conftest import FIXTURES, fill_timings, parse_html
from kernelviz.model import Capture, DynamoEvent, Graph, Kernel, SourceLocation
from kernelviz.notebook.display import static_bundle
from kernelviz.views.html import report
from kernelviz.views.payload import capture_from_bundle, saved

ATTACKS = ['<script>window.pwned="{tag}"</script>', '<img src=x onerror="window.pwned=\'{tag}\'">',
           '<svg onload="window.pwned=\'{tag}\'"></svg>', "javascript:window.pwned='{tag}'",
           '</style><script>window.pwned="{tag}"</script>', '"><script>window.pwned="{tag}"</script><"']
ACTIVE_TAGS = {"script", "img", "iframe", "object", "embed", "link", "meta", "form", "input", "base", "foreignobject"}


def evil(tag: str) -> str:
    """A string that runs script if it is ever made HTML, marked with ``tag`` (to find it as text)."""
    return f"⟦{tag}⟧" + "".join(a.format(tag=tag) for a in ATTACKS)


def _poison(obj, path: str, fields: dict[str, str]) -> None:
    """Every str field of a model object (and str items of its lists and dicts) becomes ``evil(path)``, but for
    the vocabularies (``Literal`` fields: the reader takes only their values)."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value, where = getattr(obj, f.name), f"{path}.{f.name}"
        vocabulary = typing.Literal in {typing.get_origin(t) for t in (hints.get(f.name), *typing.get_args(
            hints.get(f.name)))}
        if isinstance(value, str) and f.name != "kernel_name" and not vocabulary:
            fields[where] = evil(where)
            whole_text = isinstance(obj, (Graph, Kernel)) and f.name in ("code", "source")  # keep it code, add a line
            setattr(obj, f.name, value + f"\n# {evil(where)}\n" if whole_text else evil(where))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str):
                    fields[f"{where}[{i}]"] = value[i] = evil(f"{where}[{i}]")
                elif dataclasses.is_dataclass(item):
                    _poison(item, f"{where}[{i}]", fields)
        elif isinstance(value, dict) and "Any" not in str(hints[f.name]):
            setattr(obj, f.name, {evil(f"{where}.{k}"): v for k, v in value.items()})
        elif dataclasses.is_dataclass(value):
            _poison(value, where, fields)


def hostile_capture() -> tuple[Capture, dict[str, str]]:
    """A real capture (a Triton kernel, an extern call, a C++ kernel) with every captured string hostile;
    returns it and {field path: the string put there}."""
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "attention_0.py")
    cap.graphs += kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py").graphs
    fill_timings(cap)  # so that the charts and the timing columns are drawn too
    cap.device_name, cap.torch_version, cap.warnings = "NVIDIA H100", "2.11.0", ["a warning"]
    cap.dynamo = [DynamoEvent(kind="graph_break", reason="a reason", file="/a.py", line=3, function="f", code="x")]
    for graph in cap.graphs:
        graph.warnings = ["a graph warning"]
        for kernel in graph.kernels:
            kernel.locations = [SourceLocation(file="/user/model.py", line=7, function="forward", code="y = x")]
    names = [{k.name: i for i, k in enumerate(g.kernels)} for g in cap.graphs]
    fields: dict[str, str] = {}
    _poison(cap, "cap", fields)
    # _poison made every fragment line hostile text that reads as no node; one line reads as a node with a
    # hostile target (a tag without "]", which ends a target)
    kernel = cap.graphs[0].kernels[0]
    fields.pop("cap.graphs[0].kernels[0].fragment[1]")
    fields["fragment target"] = evil("fragment target")
    kernel.fragment[1] = f'%x : Tensor "f32[8][1]cuda:0" = call_function[target={fields["fragment target"]}](args = ())'
    for graph, index in zip(cap.graphs, names):  # each launch names its kernel by the kernel's new name
        for launch in graph.launches:
            if launch.kernel_name is not None:
                launch.kernel_name = graph.kernels[index[launch.kernel_name]].name
    return cap, fields


def _check_inert(markup: str) -> str:
    """The markup has no active element or handler from captured text; returns its text."""
    parsed = parse_html(markup)
    active = [(t, a) for t, a in parsed.tags if t in ACTIVE_TAGS or any(k.startswith("on") for k in a)
              or (t == "a" and not a.get("href", "").startswith("#"))  # links only to the report's own anchors
              or (t == "svg" and not a.get("class", "").startswith("kv-"))]  # and only the report's own charts
    assert active == []
    assert sum(1 for t, _ in parsed.tags if t == "style") <= 1
    return "".join(parsed.text)


# What the views must show of the hostile strings (field paths of hostile_capture); the report also shows a
# kernel's own ATen ops and source nodes (the panel shows those of its launch).
SHOWN = ["cap.graphs[0].id", "cap.graphs[0].kernels[0].name", "cap.graphs[0].launches[0].source_nodes[0]",
         "cap.graphs[0].kernels[0].fragment[0]", "fragment target", "cap.graphs[0].kernels[0].locations[0].file",
         "cap.graphs[0].kernels[0].locations[0].code", "cap.graphs[0].warnings[0]", "cap.warnings[0]",
         "cap.graphs[0].launches[0].original_aten[0]", "cap.graphs[1].kernels[0].name", "cap.graphs[0].device"]


# What a notebook's summary (its text/html part) shows of them: no kernel sections (the panel shows those)
SUMMARY_SHOWN = ["cap.graphs[0].id", "cap.graphs[0].launches[0].source_nodes[0]", "cap.graphs[0].warnings[0]",
                 "cap.warnings[0]", "cap.graphs[0].launches[0].original_aten[0]", "cap.graphs[0].device"]


@pytest.mark.parametrize("summary", [False, True])
def test_html_report_shows_every_hostile_string_as_text(summary):
    cap, fields = hostile_capture()
    text = _check_inert(report(cap, summary=summary))
    shown = SUMMARY_SHOWN if summary else SHOWN + ["cap.graphs[0].kernels[0].original_aten[0]",
                                                   "cap.graphs[0].kernels[0].source_nodes[0]"]
    for path in shown:
        assert fields[path] in text, path
    kernel = cap.graphs[0].kernels[0]
    assert (kernel.source in text) != summary  # the summary leaves sources to the panel


def test_saved_notebook_output_keeps_every_string_and_its_html_is_inert():
    cap, _ = hostile_capture()
    bundle = json.loads(json.dumps(static_bundle(cap)))
    assert capture_from_bundle(bundle[kernelviz.MIME_TYPE]) == cap  # every string, exactly
    _check_inert(bundle["text/html"])
    assert cap.warnings[0] in bundle["text/plain"]


def test_megabyte_strings_are_kept_whole():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py")
    big = "<script>window.pwned=1</script>" + "x" * (1 << 20)
    graph, kernel = cap.graphs[0], cap.graphs[0].kernels[1]
    graph.warnings = [big + "w"]
    kernel.fragment[0] = f'%x : Tensor "f32[8][1]cuda:0" = call_function[target={big}t](args = ())'
    kernel.locations = [SourceLocation(file=big + "f", line=1, code=big + "c")]
    text = _check_inert(report(cap))
    for suffix in "wtfc":
        assert big + suffix in text
    assert capture_from_bundle(json.loads(json.dumps(saved(cap)))) == cap


@needs_browser
def test_panel_in_chromium_runs_nothing_and_shows_every_hostile_string(tmp_path):
    cap, fields = hostile_capture()
    site = panel_site(tmp_path, json.dumps(saved(cap)))  # the saved form: decodePayload, then the panel
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.wait_for_selector(".kv-row")
        seen = [page.locator(".kv-panel").inner_text()]
        titles = "() => [...document.querySelectorAll('[title]')].map((el) => el.title).join('\\n')"
        for g in range(len(cap.graphs)):
            if g:
                page.locator(".kv-graph").select_option(str(g))
                page.wait_for_selector(".kv-row")
            for i in range(page.locator(".kv-row").count()):
                page.locator(".kv-row").nth(i).click()
                seen.append(page.locator(".kv-panel").inner_text())
                seen.append(page.evaluate(titles))  # what is shortened on screen (a long path) is whole on hover
            page.locator(".kv-tab").nth(1).click()
            seen.append(page.locator(".kv-panel").inner_text())
        assert page.evaluate("window.pwned") is None
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
        handlers = page.evaluate("""[...document.querySelectorAll('*')].flatMap((el) =>
            [...el.attributes].filter((a) => a.name.startsWith('on') || (a.value.includes('javascript:') &&
              ['href', 'src', 'action', 'formaction', 'xlink:href'].includes(a.name)))
            .map((a) => el.tagName + ' ' + a.name + '=' + a.value.slice(0, 80)))""")
        assert handlers == []
        assert page.errors == []
    text = "\n".join(seen)
    assert [path for path in SHOWN if fields[path] not in text] == []
