"""Renderers of the model: pure functions of a Capture, a Ranks or a Diff to text, HTML and the panel's payload.
No torch, IPython, timing or counters inside (:mod:`kernelviz.notebook` shows them in a notebook)."""
