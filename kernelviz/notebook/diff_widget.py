"""The live panel of a diff: the capture panel's front end (``static/panel.js``), which draws a diff
when its payload says ``"format": "kernelviz-diff"``. Nothing is asked of Python after it is drawn."""

from __future__ import annotations

import traitlets

from .panel_code import PanelWidget


class DiffWidget(PanelWidget):
    """The kernelviz panel of one diff (its payload: :func:`kernelviz.notebook.diff_display.payload`, packed)."""

    style_id = "kernelviz.views.diff_widget.DiffWidget"  # where the class was: saved notebooks hold it
    payload = traitlets.Dict().tag(sync=True)

    def __init__(self, payload: dict, **kwargs):
        super().__init__(payload=payload, **kwargs)
