"""How a capture is shown in a notebook: one output holding the live widget, the model's JSON for
JupyterLab's renderer, a static HTML summary and plain text, updated in place (the live widget first, without
waiting for a GPU capture's stages, so a large capture opens fast and a timing shows its progress in the panel)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..model import MIME_TYPE, Capture, Ranks
from ..views.html import report
from ..views.payload import LIVE, live, packing, payload
from ..views.text import summary


def static_bundle(capture: Capture, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """What survives without a kernel, each part sized to what it is for: the panel's data, the whole capture,
    compressed (:func:`~kernelviz.views.payload.saved`), for JupyterLab's renderer; an HTML summary for GitHub and
    nbviewer (``cap.save_html()`` writes the full report); the text summary. Made once the capture's stages and
    repros are in.
    ``data``: the capture's :func:`~kernelviz.views.payload.payload` where it was made already."""
    capture.wait_stages().wait_repros()
    saved = packing(payload(capture) if data is None else data)  # compressed while the report is made
    html, text = report(capture, summary=True), summary(capture)
    return {MIME_TYPE: saved(), "text/html": html, "text/plain": text}


def widget_bundle(capture: Capture, ranks: Ranks | None = None,
                  packed: Callable[[], dict[str, Any]] | None = None) -> tuple[dict[str, Any], Any]:
    """The live widget's part of the bundle (empty where ipywidgets/anywidget are missing); with ``ranks``,
    the panel of a job's ranks (``capture`` is their reference); ``packed``: the widget's payload in the
    making (:func:`~kernelviz.views.payload.packing`), where it was begun already."""
    try:
        from .widget import CaptureWidget, RanksWidget
    except ImportError:
        return {}, None
    if ranks is not None:
        widget = RanksWidget(ranks)
    else:
        widget = CaptureWidget(capture, **({"payload": packed()} if packed is not None else {}))
    bundle = widget._repr_mimebundle_()
    bundle = dict(bundle[0] if isinstance(bundle, tuple) else bundle)
    bundle.pop("text/plain", None)  # the capture's own summary stands for it
    return bundle, widget


def mimebundle(capture: Capture) -> dict[str, Any]:
    """The whole bundle: the saved payload and the live widget's are made from one model JSON, each
    compressed beside the other work."""
    data = payload(capture)
    packed = packing(live(data), LIVE)
    bundle = static_bundle(capture, data)
    bundle.update(widget_bundle(capture, packed=packed)[0])
    return bundle


class LiveDisplay:
    """One notebook output for ``capture``: :meth:`open` shows the live widget at once (the capture as it is, its
    stages perhaps still being read), :meth:`report` shows timing progress in it (a ``bench`` progress callback
    that opens the output first), :meth:`finish` adds the saved parts in a thread, once the stages are in (the
    widget is refreshed then too); the cell waits for that thread at its end, so that what a notebook saves,
    run headless too, holds the whole capture. Timing from the panel's button refreshes the saved parts too."""

    def __init__(self, capture: Capture) -> None:
        self.capture, self.handle, self.widget, self.live = capture, None, None, {}
        self.saving: Future | None = None

    def open(self) -> None:
        from IPython.display import display

        if self.handle is None:
            self.live, self.widget = widget_bundle(self.capture)
            if self.widget is not None:
                self.widget.on_timed = self.refresh
            self.handle = display({**self.live, "text/plain": summary(self.capture)}, raw=True, display_id=True)

    def report(self, done: int, total: int, label: str) -> None:
        self.open()
        if self.widget is not None:
            self.widget.report(done, total, label)

    def refresh(self) -> None:
        """Put the capture as it is now (e.g. timed) in the output's saved parts."""
        self.handle.update({**static_bundle(self.capture), **self.live}, raw=True)

    def finish(self) -> Any:
        """Open the output, then begin its saved parts (:meth:`wait` waits for them); the widget."""
        self.open()
        if self.widget is not None and self.widget.progress:  # opened while timing: show the timed capture
            self.widget.progress = {}
            self.widget.refresh()
        busy = self.capture.busy()
        if busy and self.widget is not None:  # said in the panel until they are in
            self.widget.progress = {"done": 0, "total": 1, "label": f"{' and '.join(busy)}: still worked out in the "
                                    "background"}
        pool = ThreadPoolExecutor(1, thread_name_prefix="kernelviz-saved")
        staged = "compiled stages" in busy
        self.saving = pool.submit(self._saved_parts, staged)
        pool.shutdown(wait=False)
        _at_cell_end(self.wait)
        return self.widget

    def _saved_parts(self, staged: bool) -> None:
        self.capture.wait_stages().wait_repros()
        if self.widget is not None and self.widget.progress:
            self.widget.progress = {}
        if staged and self.widget is not None:  # the stages landed: the live panel gets them
            self.widget.refresh()
        self.refresh()

    def wait(self) -> None:
        """Wait until the saved parts are in the output (a failure to make them is one line on stderr)."""
        if self.saving is not None:
            saving, self.saving = self.saving, None
            try:
                saving.result()
            except Exception as exc:  # noqa: BLE001 - the panel shows; the saved parts are what failed
                print(f"kernelviz: the saved parts of the output could not be made: {type(exc).__name__}: {exc}",
                      file=sys.stderr)


def _at_cell_end(wait: Callable[[], None]) -> None:
    """Call ``wait`` once when the running cell ends (IPython's ``post_run_cell``), still inside the cell's
    execution: what it displays meanwhile is the cell's own output (which a headless run keeps), while the panel
    shows at once."""
    from IPython import get_ipython

    events = getattr(get_ipython(), "events", None)
    if events is None:
        wait()
        return

    def once(*_args: Any) -> None:
        events.unregister("post_run_cell", once)
        wait()

    events.register("post_run_cell", once)


def in_kernel() -> bool:
    """Whether this is a Jupyter kernel (a terminal IPython gets no widget and no display updates)."""
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None


def show(capture: Capture) -> Any:
    """Display the panel of ``capture`` at once (its saved parts follow, see :class:`LiveDisplay`); returns its
    widget (None outside a Jupyter kernel, where the static parts are displayed)."""
    if not in_kernel():
        from IPython.display import display

        display(static_bundle(capture), raw=True)
        return None
    return LiveDisplay(capture).finish()
