"""Rules over dynamo's events: graph breaks, recompiles and skipped frames, with dynamo's own reason."""

from __future__ import annotations

from ..model import Advice, Capture
from .graphs import ms_text

_SUGGEST = {
    "graph_break": "remove what dynamo cannot trace at that line (a print, .item(), a data-dependent branch, an "
                   "unsupported call), or allow it: torch._dynamo.config.capture_scalar_outputs for .item()",
    "recompile": "the guard that failed names what changed: mark the size dynamic (torch._dynamo.mark_dynamic) or "
                 "keep it constant",
    "skip": "dynamo ran this frame eagerly: nothing in it was compiled",
}
_RULE = {"graph_break": "graph-break", "recompile": "recompile", "skip": "skip"}


def dynamo_findings(capture: Capture) -> list[Advice]:
    compiled = [g.compile_s for g in capture.graphs if g.compile_s is not None]
    spent = (f"; the capture compiled {len(compiled)} graph{'s' * (len(compiled) != 1)} in "
             f"{ms_text(1e3 * sum(compiled))}") if compiled else ""
    found = []
    for event in capture.dynamo:
        where = event.where() if event.file else "unknown place"  # a notebook cell as the notebook names it
        code = f" ({event.code})" if event.code else ""
        found.append(Advice(
            _RULE.get(event.kind, event.kind), None, [], None, f"{where}{code}: {_gist(event.reason)}{spent}",
            _SUGGEST.get(event.kind, ""), "not timed: dynamo does not time a break or a recompile" + (
                " (the compile time is the capture's, not this event's alone)" if spent else "")))
    return found


def _gist(reason: str) -> str:
    """Dynamo's reason in a line: its first line, and the next where the first only announces it (ends with ':');
    the rest is on the event."""
    lines = [line.strip() for line in reason.splitlines() if line.strip()] or [""]
    return " ".join(lines[:2]) if lines[0].endswith(":") else lines[0]
