"""The error reading output code raises (its own module, so that every reader below ``kernelviz.parse`` raises it)."""

from __future__ import annotations

from ..model import CaptureError


class ParseError(CaptureError):
    """The input is not Inductor output code (nor a capture's JSON); the message is one line."""
