"""Live capture of what Inductor compiles and runs."""

from .session import Recorder

__all__ = ["Recorder"]
