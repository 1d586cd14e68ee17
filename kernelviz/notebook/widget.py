"""The live panel: an anywidget whose front end is ``static/panel.js`` (also used by the JupyterLab
renderer of saved notebooks), brought by :class:`~kernelviz.notebook.panel_code.PanelWidget`'s loader. Python syncs
the capture, the selection and the progress of a timing, answers the view's "hello" (which makes the panel live)
and its requests for a kernel's tokens, and runs the timing when the "Time kernels" button asks, and Nsight
Compute when "Measure counters" does."""

from __future__ import annotations

from typing import Any

import traitlets

from ..model import Capture, Ranks
from ..views.payload import LIVE, graph_view, kernel_view, live_packed, pack, ranks_payload
from .panel_code import PanelWidget

_LAZY_VIEWS = {"kernel": kernel_view, "graph": graph_view}  # what the view asks for when it needs it


class CaptureWidget(PanelWidget):
    """The kernelviz panel of one capture."""

    style_id = "kernelviz.views.widget.CaptureWidget"  # where the class was: saved notebooks hold it

    payload = traitlets.Dict().tag(sync=True)  # the panel's payload, packed (payload.pack)
    selected = traitlets.Unicode("").tag(sync=True)  # "graph/launch index" of the selected row
    progress = traitlets.Dict().tag(sync=True)  # {"done", "total", "label"} while timing, else empty

    def __init__(self, capture: Capture, **kwargs):
        """``payload``, where given, is this capture's packed live payload (made here where not)."""
        self.capture = capture
        if "payload" not in kwargs:
            kwargs["payload"] = self._payload()
        super().__init__(**kwargs)
        self.on_timed: Any = None  # called after a button's timing or counters (the display refreshes its saved parts)
        self.on_msg(self._on_message)

    def _on_message(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "hello":
            self.send({"type": "hello"})
        elif kind in _LAZY_VIEWS:
            key = str(content.get("key", ""))
            try:
                self.send({"type": kind, "key": key, **_LAZY_VIEWS[kind](self.capture, key)})
            except (KeyError, ValueError, IndexError):
                return
        elif kind == "bench":
            self.time_kernels()
        elif kind == "counters":
            self.measure_counters()

    def report(self, done: int, total: int, label: str) -> None:
        """Show timing progress in the panel (``bench``'s ``progress`` callback)."""
        self.progress = {"done": done, "total": total, "label": label}

    def time_kernels(self) -> None:
        """Time every graph, with progress in the panel, and refresh it."""
        try:
            self.capture.bench(progress=self.report)
        finally:
            self.progress = {}
            self.refresh()
        if self.on_timed is not None:
            self.on_timed()

    def measure_counters(self) -> None:
        """Measure hardware counters of the top launches (``cap.counters()``), with progress in the panel; where
        they cannot be measured, the panel shows the one line that says why."""
        from ..counters import measured_or_why

        why = None
        try:
            why = measured_or_why(self.capture, progress=self.report)
        finally:
            self.progress = {}
            self.refresh()
        if why is not None:
            self.send({"type": "note", "text": why})
        elif self.on_timed is not None:
            self.on_timed()

    def refresh(self) -> None:
        """Send the capture as it is now (e.g. timed) to the panel."""
        self.payload = self._payload()

    def _payload(self) -> dict:
        return live_packed(self.capture)

    @property
    def selected_launch(self):
        """The selected launch of the model, or None."""
        if not self.selected:
            return None
        g, i = (int(x) for x in self.selected.split("/"))
        return self.capture.graphs[g].launches[i]


class RanksWidget(CaptureWidget):
    """The panel of a job's ranks: the reference rank's capture with the ranks compared in its Ranks tab.
    It is not timed from the notebook (a job's ranks are timed in the job)."""

    style_id = "kernelviz.views.widget.RanksWidget"

    def __init__(self, ranks: Ranks, **kwargs):
        self.ranks = ranks
        super().__init__(ranks.reference or Capture(), **kwargs)

    def _payload(self) -> dict:
        return pack(ranks_payload(self.ranks, per_kernel=False), LIVE)

    def time_kernels(self) -> None:
        return None

    def measure_counters(self) -> None:
        return None
