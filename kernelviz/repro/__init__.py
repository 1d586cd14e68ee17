"""Standalone repro scripts: ``kernel.to_repro()`` launches one kernel alone as it ran in the capture
(Triton kernels with the recorded grid and config, importing only torch and triton; C++ kernels built as
Inductor builds them; jiterator kernels through torch), ``graph.to_repro()`` runs the graph's whole
``call()``. Each script makes inputs like the recorded ones, checks its outputs against the captured code's
on the same inputs and prints its time as kernelviz measures it. What they need is recorded while a capture
is timed (:mod:`kernelviz.repro.record`)."""

from .script import ReproError, graph_script, kernel_script

__all__ = ["ReproError", "graph_script", "kernel_script"]
