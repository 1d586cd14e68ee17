"""What ``kernelviz check`` found: the reasons a current capture fails against its baseline, and notes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..compare import Diff

# the checks, in the order the reports list them
CHECKS = ("step time", "graph time", "launch time", "added launches", "lost fusion", "graph break", "recompile",
          "spills")


@dataclass
class Reason:
    """One reason to fail: which check, the graph (its id in the current capture), the launch as the launch
    table names it, what changed, and the user's line it comes from."""

    check: str  # one of CHECKS
    graph: str = ""
    launch: str = ""
    change: str = ""
    where: str = ""  # "file.py:12  `y = torch.relu(x)`", or "" where unknown

    def line(self) -> str:
        """The reason in one line, as the CLI prints it and the test failure says it."""
        parts = [f"graph {self.graph}" if self.graph else "", f"launch {self.launch}" if self.launch else "",
                 self.change, f"at {self.where}" if self.where else ""]
        return f"{self.check}: " + "; ".join(p for p in parts if p)


@dataclass
class Verdict:
    """The reasons (none: the current capture passes), notes that do not fail it (a different device: timings
    not compared), the threshold, and the diff they were read from."""

    diff: Diff
    slower: float
    reasons: list[Reason] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.reasons)

    def lines(self) -> list[str]:
        """The notes, then one line per reason, then the verdict."""
        verdict = (f"kernelviz check: FAILED, {len(self.reasons)} reason(s)" if self.failed
                   else "kernelviz check: passed")
        return [f"note: {n}" for n in self.notes] + [r.line() for r in self.reasons] + [verdict]
