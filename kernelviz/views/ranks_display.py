"""How a job's ranks are shown in a notebook: the reference rank's capture as the panel shows any capture,
with the ranks compared beside it (a ``ranks`` entry in the payload, drawn by the panel's Ranks tab), the
HTML report of the ranks and plain text."""

from __future__ import annotations

from typing import Any

from ..model import MIME_TYPE, Capture, Ranks
from .display import widget_bundle
from .payload import pack
from .payload import payload as capture_payload
from .ranks_html import report
from .ranks_text import summary


def ranks_annex(ranks: Ranks) -> dict[str, Any]:
    """The comparison without the captures themselves."""
    data = ranks.to_dict()
    del data["reference"], data["captures"]
    return data


def payload(ranks: Ranks, *, per_kernel: bool = True) -> dict[str, Any]:
    data = capture_payload(ranks.reference or Capture(), per_kernel=per_kernel)
    data["ranks"] = ranks_annex(ranks)
    return data


def static_bundle(ranks: Ranks) -> dict[str, Any]:
    return {MIME_TYPE: pack(payload(ranks)), "text/html": report(ranks), "text/plain": summary(ranks)}


def mimebundle(ranks: Ranks) -> dict[str, Any]:
    """The static bundle and, where anywidget is installed, the live panel."""
    return {**static_bundle(ranks), **widget_bundle(ranks.reference or Capture(), ranks)[0]}
