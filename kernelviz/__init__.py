"""kernelviz: see inside what torch.compile (Inductor) generated, kernel by kernel."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .compare import Diff, diff
from .extras import needs
from .model import (
    MIME_TYPE,
    SCHEMA_VERSION,
    Advice,
    BufferEvent,
    Capture,
    CaptureError,
    DevicePeaks,
    DynamoEvent,
    FragmentNode,
    FusionDecision,
    Graph,
    Kernel,
    Launch,
    Ranks,
)
from .parse import ParseError
from .ranks import load_ranks

if TYPE_CHECKING:
    from .conductor import Capturing

__version__ = "0.1.0"
__all__ = ["Capture", "Graph", "Kernel", "Launch", "BufferEvent", "FragmentNode", "DynamoEvent", "CaptureError",
           "Advice", "FusionDecision",
           "ParseError", "capture", "calibrate", "DevicePeaks", "diff", "Diff", "Ranks", "load_ranks",
           "load", "needs", "MIME_TYPE", "SCHEMA_VERSION", "load_ipython_extension"]


def capture(*, fresh_compile: bool = False, bench: bool = False, repros: bool = False,
            profile: bool | None = None) -> Capturing:
    """Capture every graph Inductor compiles or runs in this thread inside ``with kernelviz.capture() as cap:``.

    Inductor's caches stay on: a graph loaded from the FX graph cache gets its kernels' metadata from
    what kernelviz stored beside the cache when it was compiled (or, where nothing was stored, from
    generating that graph's code again). ``fresh_compile=True`` turns the FX graph cache off inside
    the block, so that every graph goes through code generation. ``bench`` times every graph when
    the block exits, on the tensors it ran with (on every rank of a torch.distributed job at once, where
    graphs hold collectives); with ``repros`` that timing also records what ``kernel.to_repro()`` and
    ``graph.to_repro()`` need (seconds more). ``profile`` runs the block under torch.profiler and splits its
    time into compute, communication and idle (``cap.step``); by default it does so when ``bench`` is set in
    a torch.distributed job. What happens when, step by step: :mod:`kernelviz.conductor`.
    """
    from . import arguments
    from .conductor import Capturing

    for name, value in (("fresh_compile", fresh_compile), ("bench", bench), ("repros", repros)):
        arguments.flag("kernelviz.capture", name, value)
    if profile is not None:
        arguments.flag("kernelviz.capture", "profile", profile)
    return Capturing(fresh_compile=fresh_compile, bench=bench, repros=repros, profile=profile)


def load(source: str | Path) -> Capture | Ranks:
    """A capture from the file ``cap.save()`` wrote (``.kvz``) or a capture's ``.json`` file, from an AOTInductor
    package (``.pt2``: its graphs, kernels, constants and C++ wrapper; ``bench()`` runs it), or from saved Inductor
    output code: a path, a directory, or the code text. ``load("runs/step")`` reads the files
    ``runs/step.rank<N>.kvz`` (or ``.json``) that the ranks of a job saved (``cap.save("runs/step")``) into one
    :class:`Ranks` (see :func:`load_ranks`).

    Raises :class:`ParseError` (a :class:`CaptureError`) with one line naming the file (and for JSON the
    field, or the schema version) and what was expected, for any input that is neither.

    A loaded capture's CUDA graphs are timed in a timing process (``bench()``): where torch is imported here and
    sees a GPU, one starts now, so that its start (seconds of imports) is not on ``bench()``'s path; it takes no
    GPU memory until it times, and ends after 10 minutes unused.
    """
    from .loading import load as _load

    loaded = _load(source)
    torch = sys.modules.get("torch")
    if (isinstance(loaded, Capture) and torch is not None and torch.cuda.is_available()
            and any(g.device == "cuda" and g.package is None for g in loaded.graphs)):
        from .children import Worker

        Worker.warm()
    return loaded


def calibrate(device: str = "cuda") -> DevicePeaks:
    """Measure this GPU's copy bandwidth and matmul rate per dtype, for ``cap.bench(peaks=...)``
    (the % of peak columns then compare with what this device reaches rather than its datasheet)."""
    from .bench.peaks import calibrate as _calibrate

    return _calibrate(device)


def load_ipython_extension(ipython) -> None:
    """``%load_ext kernelviz``: register the ``%%kernelviz`` magic."""
    from .notebook.magic import register

    register(ipython)


def _keep_why() -> None:
    """With torch already imported, graphs compiled from now on keep their why (kernel metadata, fusion decisions,
    autotuning) for a capture that only runs them later (see :func:`kernelviz.recorder.inductor.keep_why`)."""
    if "torch" in sys.modules:
        import warnings

        try:
            from .recorder.inductor import keep_why

            keep_why()
        except Exception as exc:  # noqa: BLE001 - kernelviz imports without them; a capture installs them again
            warnings.warn(f"kernelviz could not hook Inductor at import: {type(exc).__name__}: {exc}", stacklevel=2)


_keep_why()
