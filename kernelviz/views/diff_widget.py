"""The live panel of a diff: the capture panel's front end (``static/panel.js``), which draws a diff
when its payload says ``"format": "kernelviz-diff"``. Nothing is asked of Python after it is drawn."""

from __future__ import annotations

import anywidget
import traitlets

from .widget import STATIC


class DiffWidget(anywidget.AnyWidget):
    """The kernelviz panel of one diff (its payload from :func:`kernelviz.views.diff_display.payload`)."""

    _esm = STATIC / "panel.js"
    _css = STATIC / "panel.css"
    payload = traitlets.Dict().tag(sync=True)

    def __init__(self, payload: dict, **kwargs):
        super().__init__(payload=payload, **kwargs)
