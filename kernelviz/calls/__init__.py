"""A graph's ``call()`` instrumented (each launch in a range, a hook around it, its arguments recorded) and a
launch's grid: what the timing (:mod:`kernelviz.bench`) and the repros' recording (:mod:`kernelviz.repro`) both run."""

from .grid import launch_grid
from .instrument import Instrumented, instrument, kept_rng

__all__ = ["Instrumented", "instrument", "kept_rng", "launch_grid"]
