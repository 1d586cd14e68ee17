"""What the front end reads: the model's JSON plus a ``view`` annex of data derived for display
(pygments tokens, fragment-to-line links, each kernel's nodes (``nodes.py``), memory timelines, the launches'
rates, % of roof and name forms and whether the device's peaks are known (``rules.py``)). The model ignores the
annex on load.

A notebook saves that JSON in a compact form (:func:`saved`): each kernel's source as the ``[start,
end]`` span of its graph's code that it is (the text is stored once), the recorded values (base64 in the model's
JSON, and in the repro scripts of the annex) as raw bytes after the JSON line, each distinct value once
(:mod:`kernelviz.compressed`'s form), then the whole xz-compressed and base85-encoded (5 characters for 4 bytes,
where base64 takes 5.33). The panel decodes it (``static/src/payload.js``, with an xz decoder bundled in);
:func:`capture_from_bundle` reads it back in Python. Outputs saved in the earlier forms (xz in base64; gzip, no
byte tail) are read too.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import lzma
import re
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .. import units
from ..codec import dumps, json_data, loads
from ..compare.model import FORMAT as DIFF_FORMAT
from ..compressed import VALUES, Tail, compress, restored, split
from ..ir.hip import hip_view
from ..ir.hip import ready as hip_ready
from ..model import SCHEMA_VERSION, Capture, CaptureError, Ranks
from .findings import findings
from .groups import group_findings
from .highlight import language, tokens, wrapper_language
from .links import kernel_links
from .memory import timeline
from .nodes import node_view
from .rules import launch_annex, name_entries, peaks_known
from .stages import kernel_extras, without_stages
from .text import compile_story, dynamo_lines, package_line
from .texts import graph_texts, launch_texts, memory_texts, package_texts, peak_texts, ranks_texts
from .whatif import NOTE, headline, measured_findings, rows
from .why import cudagraph_lines, pool_line, sweeps

ENCODING = "xz+base85"  # the value of "encoding" in the saved form
XZ64, GZIP = "xz+base64", "gzip+base64"  # what kernelviz saved before (read, never written)
Filters = tuple[list[dict[str, Any]], list[dict[str, Any]]]  # xz's filters of the JSON, of the recorded values
# xz for a notebook's saved output, its JSON (in a thread, after the panel shows: ~4 MB/s of JSON, 70% of preset 1's
# size on a GPU capture with stages; the recorded values as in a .kvz); the live widget's payload, made before the
# panel shows, takes preset 0 (~25 MB/s), its values too
SAVED = ([{"id": lzma.FILTER_LZMA2, "preset": 6, "dict_size": 16 << 20}], VALUES)  # (the JSON's, the values')
LIVE = ([{"id": lzma.FILTER_LZMA2, "preset": 0, "dict_size": 4 << 20}],
        [{"id": lzma.FILTER_LZMA2, "preset": 0, "dict_size": 4 << 20, "lc": 1, "lp": 2, "pb": 2}])
# a base64 literal in a repro script (the recorded values it runs on), stored as raw bytes of the tail
_BASE64_LITERAL = re.compile(r"'([A-Za-z0-9+/]{64,}={0,2})'")
# Characters of kernel source highlighted in a payload (~1 s of pygments, which lexes ~0.5 MB/s: a
# 2,000-kernel capture holds 7 MB of kernel source); the kernels past it are shown as plain text.
HIGHLIGHT_BUDGET = 500_000


def kernel_key(graph_index: int, kernel_name: str) -> str:
    return f"{graph_index}/{kernel_name}"


def view_annex(capture: Capture, *, per_kernel: bool = True) -> dict[str, Any]:
    """Display data for every graph, and with ``per_kernel`` for every kernel (links, and pygments tokens for
    the first ``HIGHLIGHT_BUDGET`` characters of kernel source: a kernel past it is shown as plain text);
    the live widget leaves those out and sends them kernel by kernel when one is selected."""
    known = peaks_known(capture.peaks)
    annex: dict[str, Any] = {"highlight": {}, "links": {}, "memory": {}, "launches": launch_annex(capture),
                             "peaks_known": known, "peak_texts": peak_texts(capture.peaks)}
    budget = HIGHLIGHT_BUDGET
    hip = per_kernel and hip_ready()  # the first display of a process leaves it out (the panel asks when shown)
    for g, graph in enumerate(capture.graphs):
        annex["launches"][g] |= {"texts": {str(launch.index): launch_texts(graph, launch, known)
                                           for launch in graph.launches}, "graph": graph_texts(graph)}
        for kernel in graph.kernels if per_kernel else []:
            key = kernel_key(g, kernel.name)
            annex["links"][key] = kernel_links(graph, kernel)
            annex.setdefault("nodes", {})[key] = node_view(kernel)
            if len(kernel.source) <= budget:
                budget -= len(kernel.source)
                annex["highlight"][key] = list(tokens(kernel.source, language(kernel)))
            annex.setdefault("deep", {})[key] = kernel_extras(kernel, text=False)
        if hip:
            annex.setdefault("hip", {})[str(g)] = hip_view(graph, text=False)
        if graph.package is not None:
            annex.setdefault("packages", {})[str(g)] = package_line(graph)
            annex.setdefault("package_sizes", {})[str(g)] = package_texts(graph)
        if (lang := wrapper_language(graph)) and per_kernel and len(graph.code) <= budget:
            budget -= len(graph.code)
            annex.setdefault("wrapper", {})[str(g)] = list(tokens(graph.code, lang))
        line = timeline(graph)
        annex["memory"][str(g)] = {"steps": line.steps, "peak": line.peak, "peak_step": line.peak_step,
                                   "unknown": line.unknown} | memory_texts(graph, line)
    return annex


def payload(capture: Capture, *, per_kernel: bool = True) -> dict[str, Any]:
    """The JSON behind ``application/vnd.kernelviz.v1+json``: the model and its view annex.
    Without ``per_kernel`` (the live widget) the graphs' whole output code is left out too, and the capture is
    taken as it is, its stages and repros perhaps still coming (the widget is refreshed once they are in); with
    it, once they are in."""
    data = json_data(capture if not per_kernel else capture.wait_stages().wait_repros())
    if not per_kernel:  # the FX graph a what-if compiles again: nothing the live panel shows (the saved part keeps it)
        for graph in data["graphs"]:
            graph["fx"] = None
    data["view"] = view_annex(capture, per_kernel=per_kernel)
    found = findings(capture)
    if not capture.findings:  # a capture saved before findings were kept: its findings, worked out now
        data["view"]["findings"] = loads(dumps(found))
    data["view"]["groups"] = [group.to_json() for group in group_findings(found)]  # indices into those findings
    data["view"]["finding_ms"] = [units.ms_text(f.ms) if f.ms is not None else "—" for f in found]  # in their order
    data["view"]["compile"] = compile_story(capture)
    data["view"]["dynamo"] = [list(row) for row in dynamo_lines(capture)]  # [line, dynamo's whole text]
    data["view"]["sweeps"] = [s.to_json() for s in sweeps(capture)]  # each autotuning, graph by graph
    data["view"]["cudagraphs"] = {str(g): lines for g, graph in enumerate(capture.graphs)
                                  if (lines := cudagraph_lines(graph))}
    data["view"]["cudagraph_pool"] = pool_line(capture)
    if capture.whatifs:  # the changes measured, best first, and the findings' measured figures by index
        data["view"]["whatifs"] = {"note": NOTE, "headline": headline(capture),
                                   "rows": [row.to_json() for row in rows(capture)]}
        data["view"]["measured"] = {str(i): m.to_json() for i, m in measured_findings(capture, found).items()}
    data["view"]["tabs"] = shown_tabs(capture, data["view"])
    return data if per_kernel else live(data)


def shown_tabs(capture: Capture, view: dict[str, Any]) -> list[str]:
    """The panel's optional tabs that hold something for ``capture``: the HIP reading where a graph runs on CUDA
    (hipify maps CUDA code), Why where something was autotuned or ran as CUDA graphs, What if where changes were
    measured."""
    tabs = ["hip"] if any(graph.device == "cuda" for graph in capture.graphs) else []
    tabs += ["why"] if view["sweeps"] or view["cudagraphs"] or view["cudagraph_pool"] else []
    return tabs + (["whatif"] if view.get("whatifs") else [])


def live(data: dict[str, Any]) -> dict[str, Any]:
    """The live widget's payload from :func:`payload`'s, which is left as it was (what the two share is not
    copied): without the graphs' code, the stages' text, the repro records and the per-kernel annex, which
    the widget sends kernel by kernel when one is selected."""
    graphs = [{**graph, "code": "", "repro": None, "kernels": [without_stages(k) for k in graph["kernels"]]}
              for graph in data["graphs"]]
    kept = ("memory", "launches", "peaks_known", "peak_texts", "findings", "groups", "finding_ms", "compile",
            "dynamo", "sweeps", "cudagraphs", "cudagraph_pool", "whatifs", "measured", "packages", "package_sizes",
            "tabs")
    view = {key: data["view"][key] for key in kept if key in data["view"]}
    return {**data, "graphs": graphs, "view": {"highlight": {}, "links": {}, **view}}


def live_packed(capture: Capture) -> dict[str, Any]:
    """What the live widget syncs as its ``payload``, which a notebook's widget state keeps: :func:`payload` without
    the per-kernel parts, packed with the ``LIVE`` filters."""
    return pack(payload(capture, per_kernel=False), LIVE)


def ranks_payload(ranks: Ranks, *, per_kernel: bool = True) -> dict[str, Any]:
    """A job's ranks as the panel draws them: the reference rank's capture, with the comparison without the
    captures themselves under ``ranks`` (the panel's Ranks tab)."""
    data = payload(ranks.reference or Capture(), per_kernel=per_kernel)
    data["ranks"] = ranks.to_dict()
    del data["ranks"]["reference"], data["ranks"]["captures"]
    data["view"]["rank_names"] = name_entries((launch.name, (), None) for launch in ranks.launches)
    data["view"]["rank_texts"] = ranks_texts(ranks)
    return data


def saved(capture: Capture) -> dict[str, Any]:
    """What a notebook saves under ``application/vnd.kernelviz.v1+json``: :func:`payload` (the whole capture: a
    notebook is what users share) in the compact form (sources as spans, recorded values as raw bytes, xz:
    deterministic), base85-encoded."""
    return pack(payload(capture))


def pack(data: dict[str, Any], filters: Filters = SAVED) -> dict[str, Any]:
    """A payload (a capture's, or a diff's) in the compact form (:func:`saved`'s; the live widget syncs its payload
    in it too, with the ``LIVE`` filters, so a notebook's saved widget state is small). ``data`` is left as it
    was."""
    return packing(data, filters)()


def packing(data: dict[str, Any], filters: Filters = SAVED) -> Callable[[], dict[str, Any]]:
    """:func:`pack` begun in a thread (lzma lets Python's other threads run meanwhile; ``data`` must not change
    until it is done); calling what this returns waits for that and gives the packed form."""
    pool = ThreadPoolExecutor(1)
    compressed = pool.submit(_compressed, data, filters)
    pool.shutdown(wait=False)  # its thread ends once the compression is done
    return lambda: {"schema_version": SCHEMA_VERSION, "encoding": ENCODING,
                    "data": base64.b85encode(compressed.result()).decode()}


def _compressed(data: dict[str, Any], filters: Filters) -> bytes:
    tail = Tail()
    if data.get("format") != DIFF_FORMAT:  # a capture's graphs (a diff's captures are without their code)
        data = {**data, "graphs": [_with_spans(graph) for graph in data["graphs"]]}
    if data.get("view", {}).get("deep"):
        data["view"] = {**data["view"], "deep": {key: _script_spans(extras, tail)
                                                 for key, extras in data["view"]["deep"].items()}}
    return compress(json_data(data), filters=filters[0], values=filters[1], tail=tail)  # a copy, which it changes


def _script_spans(extras: dict[str, Any], tail: Tail) -> dict[str, Any]:
    """A kernel's saved annex with its repro script as a list of text and ``[start, end]`` spans of the tail
    (whose base64 the text holds there): the recorded values it runs on are stored once, as raw bytes."""
    script = (extras.get("repro") or {}).get("script")
    if not isinstance(script, str):
        return extras
    parts, at = [], 0
    for match in _BASE64_LITERAL.finditer(script):
        span = tail.span(match.group(1))
        if span is not None:
            parts += [script[at : match.start(1)], span]
            at = match.end(1)
    return {**extras, "repro": {**extras["repro"], "script": [*parts, script[at:]]}} if parts else extras


def _with_spans(graph: dict[str, Any]) -> dict[str, Any]:
    """The graph with each kernel's source as its ``[start, end]`` in the graph's code where it is a slice of
    it. Offsets count UTF-16 code units, as JavaScript's ``slice`` does: code with characters outside the
    BMP (which take two units) keeps its sources as text."""
    code, start, kernels = graph["code"], 0, []
    if not code.isascii() and any(ord(c) > 0xFFFF for c in code):
        return graph
    for kernel in graph["kernels"]:
        source = kernel["source"]
        at = code.find(source, start)
        if at < 0:
            at = code.find(source)
        if source and at >= 0:
            kernel = {**kernel, "source": [at, at + len(source)]}
            start = at + len(source)
        kernels.append(kernel)
    return {**graph, "kernels": kernels}


def decode(data: Any) -> Any:
    """The payload from what a notebook saved: :func:`saved`'s form (or the forms kernelviz saved before: xz in
    base64, gzip) decoded, or the model's JSON (which kernelviz 0.1 saved) as it is. Raises :class:`CaptureError`
    (one line) for data that is none of these; what the decoded JSON holds is checked by :meth:`Capture.from_dict`."""
    if not isinstance(data, dict) or "encoding" not in data:
        return data
    if data["encoding"] not in (ENCODING, XZ64, GZIP):
        raise CaptureError(f"notebook output encoded as {data['encoding']!r:.40}; this kernelviz reads {ENCODING!r},"
                           f" {XZ64!r} and {GZIP!r}")
    try:
        text = data.get("data", "")
        raw = base64.b85decode(text) if data["encoding"] == ENCODING else base64.b64decode(text, validate=True)
        if data["encoding"] == GZIP:
            payload, tail = loads(gzip.decompress(raw)), b""
        else:
            payload, tail = split(raw)
            payload = restored(payload, tail)
    except (binascii.Error, TypeError, OSError, EOFError, zlib.error, ValueError, CaptureError) as exc:
        raise CaptureError(f"notebook output: its data is not {data['encoding']} of JSON ({exc})") from None
    graphs = payload.get("graphs") if isinstance(payload, dict) else None
    for graph in graphs if isinstance(graphs, list) else []:
        if isinstance(graph, dict) and isinstance(graph.get("kernels"), list):
            _spans_to_sources(graph)
    view = payload.get("view") if isinstance(payload, dict) else None
    deep = view.get("deep") if isinstance(view, dict) else None
    for extras in deep.values() if isinstance(deep, dict) else []:
        repro = extras.get("repro") if isinstance(extras, dict) else None
        if isinstance(repro, dict) and isinstance(repro.get("script"), list):
            repro["script"] = "".join(part if isinstance(part, str) else _base64_of(part, tail)
                                      for part in repro["script"])
    return payload


def _base64_of(span: Any, tail: bytes) -> str:
    """The base64 of a ``[start, end]`` span of ``tail`` (nothing for what is not one)."""
    if isinstance(span, list) and len(span) == 2 and all(type(i) is int for i in span) and 0 <= span[0] <= span[1]:
        return base64.b64encode(tail[span[0] : span[1]]).decode()
    return ""


def _spans_to_sources(graph: dict[str, Any]) -> None:
    """Undo :func:`_with_spans`; a span that is not one is left for the model's reader to refuse."""
    code = graph.get("code")
    for kernel in graph["kernels"]:
        span = kernel.get("source") if isinstance(kernel, dict) else None
        if (isinstance(code, str) and isinstance(span, list) and len(span) == 2
                and all(type(i) is int for i in span) and 0 <= span[0] <= span[1] <= len(code)):
            kernel["source"] = code[span[0] : span[1]]


def capture_from_bundle(data: Any) -> Capture:
    """The :class:`Capture` in a notebook output's ``application/vnd.kernelviz.v1+json`` data (any form
    :func:`decode` reads).

    Raises :class:`CaptureError` with one line, as :meth:`Capture.from_dict` does."""
    return Capture.from_dict(decode(data))


def kernel_view(capture: Capture, key: str) -> dict[str, Any]:
    """Tokens, links and nodes of one kernel by its ``graph/name`` key (the live widget's lazy request)."""
    g, name = key.split("/", 1)
    graph = capture.graphs[int(g)]
    kernel = graph.kernel(name)
    return {"tokens": list(tokens(kernel.source, language(kernel))), "links": kernel_links(graph, kernel),
            "nodes": node_view(kernel), **kernel_extras(kernel)}


def graph_view(capture: Capture, index: str) -> dict[str, Any]:
    """The HIP reading of one graph, by its index (the live widget's lazy request), and its wrapper's code with
    its tokens where the wrapper view shows it (an AOTInductor package's C++)."""
    graph = capture.graphs[int(index)]
    lang = wrapper_language(graph)
    wrapper = {"code": graph.code, "tokens": list(tokens(graph.code, lang))} if lang else None
    return {"hip": hip_view(graph), "wrapper": wrapper}
