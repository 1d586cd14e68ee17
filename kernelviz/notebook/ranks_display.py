"""How a job's ranks are shown in a notebook: the reference rank's capture as the panel shows any capture,
with the ranks compared beside it (a ``ranks`` entry in the payload, drawn by the panel's Ranks tab), the
HTML report of the ranks and plain text."""

from __future__ import annotations

from typing import Any

from ..model import MIME_TYPE, Capture, Ranks
from ..views.payload import pack, ranks_payload
from ..views.ranks_html import report
from ..views.ranks_text import summary
from .display import widget_bundle


def static_bundle(ranks: Ranks) -> dict[str, Any]:
    return {MIME_TYPE: pack(ranks_payload(ranks)), "text/html": report(ranks), "text/plain": summary(ranks)}


def mimebundle(ranks: Ranks) -> dict[str, Any]:
    """The static bundle and, where anywidget is installed, the live panel."""
    return {**static_bundle(ranks), **widget_bundle(ranks.reference or Capture(), ranks)[0]}
