"""Renderers of the model: functions of a Capture, no torch or IPython inside."""
