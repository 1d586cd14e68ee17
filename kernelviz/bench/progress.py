"""Progress of a timing, to a callback or a text bar."""

from __future__ import annotations

from typing import Any


class Progress:
    """Progress of a timing over ``total`` graphs: to ``report(done, total, label)`` (the panel's progress
    bar), or a text bar on stderr (never a notebook widget, which a saved notebook would keep), or none."""

    def __init__(self, progress: Any, total: int, what: str = "timing graphs", unit: str = "graph"):
        self.report, self.total, self.finished, self.bar = None, total, 0, None
        if callable(progress):
            self.report = progress
        elif progress and total:
            try:
                from tqdm.std import tqdm

                self.bar = tqdm(total=total, desc=f"kernelviz: {what}", unit=unit, leave=False)
            except ImportError:
                pass

    def step(self, label: str) -> None:
        if self.report is not None:
            self.report(self.finished, self.total, label)

    def done(self) -> None:
        self.finished += 1
        if self.bar is not None:
            self.bar.update()

    def close(self) -> None:
        if self.report is not None:
            self.report(self.total, self.total, "timed")
        if self.bar is not None:
            self.bar.close()
