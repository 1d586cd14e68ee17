"""Live capture of what Inductor compiles and runs."""

from .session import CaptureSession, live_runs

__all__ = ["CaptureSession", "live_runs"]
