"""The model's front doors: ``cap.bench()``, ``cap.counters()``, ``cap.advice()``, ``kernel.to_repro()`` and
``graph.to_repro()`` are actions of the layers downstream of the model (timing, counters, advice, repros), and
``to_html()``, the notebook's MIME bundle and ``str()`` are its views. :func:`attach` (called when kernelviz is
imported) puts them on the model's classes, so the model imports nothing downstream of it; each imports its
layer only when called."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .compare.model import Diff
from .model import Advice, Capture, Document, Graph, Kernel, Ranks

# each document's views: the modules (relative to this package) of its HTML page, MIME bundle and text summary
VIEWS: dict[type[Document], tuple[str, str, str]] = {
    Capture: (".views.html", ".views.display", ".views.text"),
    Ranks: (".views.ranks_html", ".views.ranks_display", ".views.ranks_text"),  # the ranks compared, then the reference
    Diff: (".views.diff_html", ".views.diff_display", ".views.diff_text"),
}


def bench(self: Capture, **options: Any) -> Capture:
    """Time every graph in place (see :func:`kernelviz.bench.bench`)."""
    from .bench import bench as run

    return run(self, **options)


def counters(self: Capture, top: int = 10, launches: Any = None, **options: Any) -> Capture:
    """Measure hardware counters of the launches with the most in-graph time (or ``launches``) under
    Nsight Compute, in a child process (see :func:`kernelviz.counters.measure`)."""
    from .counters import measure

    return measure(self, top=top, launches=launches, **options)


def advice(self: Capture) -> list[Advice]:
    """The findings of every rule over this capture, the most time at stake first (kept in ``findings``,
    so they travel with the JSON; see :mod:`kernelviz.advice`)."""
    from .advice import advise

    self.findings = advise(self)
    return self.findings


def kernel_repro(self: Kernel) -> str:
    """A standalone script that launches this kernel alone on inputs like the recorded ones, checks its
    outputs and prints its time (see :mod:`kernelviz.repro`)."""
    from .repro import kernel_script

    return kernel_script(self)


def graph_repro(self: Graph) -> str:
    """A standalone script that runs this graph's whole ``call()`` on inputs like the recorded ones, checks
    its outputs and prints its time (see :mod:`kernelviz.repro`)."""
    from .repro import graph_script

    return graph_script(self)


def _views(html: str, bundle: str, text: str) -> dict[str, Callable]:
    def view(module: str, function: str) -> Callable:
        return getattr(importlib.import_module(module, __package__), function)

    def to_html(self: Document) -> str:
        """A self-contained HTML page (no script, no network)."""
        return view(html, "page")(self.wait_stages())

    def _repr_mimebundle_(self: Document, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return view(bundle, "mimebundle")(self.wait_stages())

    def __str__(self: Document) -> str:
        """The text summary, at the terminal's width (what ``kernelviz show`` prints)."""
        return view(text, "summary")(self.wait_stages())

    return {"to_html": to_html, "_repr_mimebundle_": _repr_mimebundle_, "__str__": __str__}


def attach() -> None:
    """Give the model's classes their front doors."""
    Capture.bench, Capture.counters, Capture.advice = bench, counters, advice
    Kernel.to_repro, Graph.to_repro = kernel_repro, graph_repro
    for cls, modules in VIEWS.items():
        for name, method in _views(*modules).items():
            setattr(cls, name, method)
