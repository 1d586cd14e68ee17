"""The panel's code, held once per kernel: one widget model with the panel's ES module and style sheet that every
kernelviz widget names (a :class:`PanelWidget`'s ``_esm`` is only ``static/loader.js``), so a notebook saves that
code once, not once per output. Where the JupyterLab extension of the same sources is installed, the loader draws
with the extension's copy and this model's code is never run."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import anywidget
import ipywidgets
import traitlets

STATIC = Path(__file__).resolve().parent.parent / "static"


@cache
def _sources() -> str:
    """The sha256 of the panel's sources, from the bundle's banner (labextension/build-panel.mjs writes it)."""
    return (STATIC / "panel.js").read_text().splitlines()[1].removeprefix("// sources sha256 ")


class PanelCode(ipywidgets.Widget):
    """The panel's ES module and style sheet, and the hash of their sources (what the loader matches an installed
    extension's copy by)."""

    sources = traitlets.Unicode().tag(sync=True)
    esm = traitlets.Unicode().tag(sync=True)
    css = traitlets.Unicode().tag(sync=True)


_held: list[PanelCode] = []  # this kernel's one PanelCode, while its comm is open


def panel_code() -> PanelCode:
    """This kernel's PanelCode (made on first use, and again if it was closed)."""
    if not _held or _held[0].comm is None:
        _held[:] = [PanelCode(sources=_sources(), esm=(STATIC / "panel.js").read_text(),
                              css=(STATIC / "panel.css").read_text())]
    return _held[0]


class PanelWidget(anywidget.AnyWidget):
    """A widget drawn by the panel: its front end is the loader, which takes the panel from ``panel``."""

    _esm = STATIC / "loader.js"
    panel = anywidget.WidgetTrait().tag(sync=True)
    style_id = ""  # the id of its style sheet in the page (anywidget's ``_anywidget_id``): fixed per class, so that
    # the sheet a saved notebook's widget state restores under it is the one the loader replaces

    def __init__(self, **kwargs):
        super().__init__(_anywidget_id=self.style_id, **kwargs)

    @traitlets.default("panel")
    def _panel_default(self) -> PanelCode:
        return panel_code()
