"""Reversible patches of Inductor internals, each guarded: a missing attribute skips that patch."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

_MISSING = object()


class Patches:
    """Replace attributes and put every one back, in reverse order, even after an error."""

    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any] | Callable[[], None]] = []
        self.skipped: list[str] = []

    def wrap(self, module: str, owner: str, attr: str, make: Callable[[Any], Any]) -> bool:
        """Set ``module.owner.attr = make(old)``; return False (and note it) if it is not there."""
        try:
            target = importlib.import_module(module)
            for part in owner.split(".") if owner else []:
                target = getattr(target, part)
            old = getattr(target, attr)
        except (ImportError, AttributeError) as exc:
            self.skipped.append(f"{module}.{owner}.{attr} ({type(exc).__name__})")
            return False
        self._undo.append((target, attr, target.__dict__.get(attr, _MISSING)))
        setattr(target, attr, make(old))
        return True

    def on_undo(self, step: Callable[[], None]) -> None:
        """Run ``step`` when undoing (in reverse order with the attribute patches)."""
        self._undo.append(step)

    def undo(self) -> None:
        while self._undo:
            step = self._undo.pop()
            try:
                if callable(step):
                    step()
                    continue
                target, attr, old = step
                if old is _MISSING:
                    delattr(target, attr)
                else:
                    setattr(target, attr, old)
            except Exception as exc:  # noqa: BLE001 - pragma: no cover - defensive: undo the rest
                warnings.warn(f"kernelviz could not undo a hook ({step!r}): {exc}", stacklevel=2)
