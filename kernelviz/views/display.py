"""How a capture is shown in a notebook: one MIME bundle with the live widget, the model's JSON for
JupyterLab's renderer, a static HTML report and plain text."""

from __future__ import annotations

from typing import Any

from ..model import MIME_TYPE, Capture
from .html import report
from .payload import saved
from .text import summary


def static_bundle(capture: Capture) -> dict[str, Any]:
    """What survives without a kernel, each part sized to what it is for: the panel's data, compressed
    (:func:`~kernelviz.views.payload.saved`), for JupyterLab's renderer; the HTML report without kernel
    sources for GitHub and nbviewer (``cap.save_html()`` writes the full one); the text summary."""
    return {MIME_TYPE: saved(capture), "text/html": report(capture, sources=False), "text/plain": summary(capture)}


def widget_bundle(capture: Capture) -> tuple[dict[str, Any], Any]:
    """The live widget's part of the bundle (empty where ipywidgets/anywidget are missing)."""
    try:
        from .widget import CaptureWidget
    except ImportError:
        return {}, None
    widget = CaptureWidget(capture)
    bundle = widget._repr_mimebundle_()
    bundle = dict(bundle[0] if isinstance(bundle, tuple) else bundle)
    bundle.pop("text/plain", None)  # the capture's own summary stands for it
    return bundle, widget


def mimebundle(capture: Capture) -> dict[str, Any]:
    bundle = static_bundle(capture)
    bundle.update(widget_bundle(capture)[0])
    return bundle


def show(capture: Capture) -> Any:
    """Display the panel at once, then add the static parts to the same output (the display is
    updated in place), so a large capture opens fast and the saved notebook still has everything."""
    from IPython import get_ipython
    from IPython.display import display

    if getattr(get_ipython(), "kernel", None) is None:  # a terminal: no widget, no display updates
        display(static_bundle(capture), raw=True)
        return None
    live, widget = widget_bundle(capture)
    handle = display({**live, "text/plain": summary(capture)}, raw=True, display_id=True)
    handle.update({**static_bundle(capture), **live}, raw=True)
    return widget
