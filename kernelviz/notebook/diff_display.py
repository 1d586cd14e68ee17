"""How a diff is shown in a notebook: one MIME bundle with the live panel, the diff's JSON for JupyterLab's
renderer (the capture MIME type; ``"format": "kernelviz-diff"`` tells the panel to draw a diff), a static
HTML report and plain text."""

from __future__ import annotations

from typing import Any

from .. import units
from ..compare.model import Diff, Measure
from ..model import MIME_TYPE
from ..views.diff_html import report, shows_detail
from ..views.diff_source import source_diff, unified
from ..views.diff_text import delta, summary, value
from ..views.highlight import tokens
from ..views.payload import pack
from ..views.rules import launch_names


def payload(diff: Diff) -> dict[str, Any]:
    """The diff's JSON without the graphs' whole output code, their FX graphs and the kernels' compiled stages, each
    measure with its texts as the text view writes them (``shown``: both sides, the change and whether it is a win),
    plus a ``view`` annex: for each group that changed, both sides' source, their pygments tokens and the rows of
    their unified diff; the forms of each side's launch names, per graph (``rules.launch_names``); and the
    confidence of each graph's, group's and launch's match as text."""
    data = diff.to_dict()
    for side in ("a", "b"):
        for graph in data[side]["graphs"]:
            graph["code"], graph["fx"] = "", None
            for kernel in graph["kernels"]:  # a diff shows no compiled stages: each capture's own output keeps them
                if kernel.get("ir"):
                    kernel["ir"]["stages"] = []
    for measures, written in [(diff.headline.measures, data["headline"]["measures"]),
                              *((g.measures, d["measures"]) for g, d in zip(diff.graphs, data["graphs"])),
                              *((g.measures, d["measures"]) for g, d in zip(diff.groups, data["groups"]))]:
        for m, out in zip(measures, written):
            out["shown"] = shown(m)
    sources = {}
    for k, group in enumerate(diff.groups):
        if shows_detail(group):
            src = source_diff(diff, group)
            sources[str(k)] = {"a": src["a"], "b": src["b"], "rows": [list(row) for row in unified(src["ops"])],
                               "ta": list(tokens(src["a"], src["lang_a"])), "tb": list(tokens(src["b"], src["lang_b"]))}
    names = {side: [launch_names(graph.launches) for graph in capture.graphs]
             for side, capture in (("a", diff.a), ("b", diff.b))}
    confidence = {"graphs": [units.score(g.confidence) for g in diff.graphs],
                  "groups": [units.score(g.confidence) for g in diff.groups],
                  "matches": [units.score(m.confidence) for m in diff.matches]}
    data["view"] = {"sources": sources, "names": names, "confidence": confidence}
    return data


def shown(m: Measure) -> dict[str, Any]:
    """A measure's texts for the panel: each side (``-`` where none), and its change where both sides are numbers
    that differ (``+0.0018 ms, +5.9%``; ``win``: it fell)."""
    change = m.delta is not None and m.delta != 0
    return {"a": value(m.a, m.unit), "b": value(m.b, m.unit), "change": delta(m) if change else None,
            "win": change and m.delta < 0}


def static_bundle(diff: Diff) -> dict[str, Any]:
    """What survives without a kernel: the JSON in the compact form a capture's output saves (xz, base85: the
    whole diff, both captures inside), the HTML report without its source diffs, and the text summary."""
    return {MIME_TYPE: pack(payload(diff)), "text/html": report(diff, summary=True), "text/plain": summary(diff)}


def mimebundle(diff: Diff) -> dict[str, Any]:
    """The static bundle and, where anywidget is installed, the live panel (its payload the same compact JSON,
    which the panel decodes as it does a capture's)."""
    bundle = static_bundle(diff)
    try:
        from .diff_widget import DiffWidget
    except ImportError:
        return bundle
    live = DiffWidget(bundle[MIME_TYPE])._repr_mimebundle_()
    live = dict(live[0] if isinstance(live, tuple) else live)
    live.pop("text/plain", None)
    return {**bundle, **live}


def show(diff: Diff) -> None:
    """Display the diff in IPython (static parts only in a terminal)."""
    from IPython import get_ipython
    from IPython.display import display

    if getattr(get_ipython(), "kernel", None) is None:
        display(static_bundle(diff), raw=True)
    else:
        display(mimebundle(diff), raw=True)


def show_against(base: str, capture, namespace: dict) -> None:
    """``%%kernelviz --diff base``: show ``capture`` against the Capture (or Ranks) named ``base`` in ``namespace``
    (or loaded from the path ``base``); a base that is neither is one line on stderr."""
    import sys
    from pathlib import Path

    from ..arguments import what_it_is
    from ..compare import diff
    from ..model import Capture, CaptureError, Ranks

    try:
        if base not in namespace and not Path(base).exists():
            raise CaptureError("no variable of that name here, and no such file")
        before = namespace.get(base, base)
        if not isinstance(before, (Capture, Ranks, str, Path)):
            raise CaptureError(f"{what_it_is(before)}, not a kernelviz Capture, Ranks or a path")
        show(diff(before, capture, labels=(base, "this cell")))
    except (CaptureError, OSError) as exc:
        print(f"kernelviz: --diff {base}: {exc}", file=sys.stderr)
