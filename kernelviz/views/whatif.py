"""The candidate changes measured (``Capture.whatifs``, ``cap.whatif()``) as rows of text, best first, and the
findings that suggest a measured change: one rule for every view (the text summary, the report, the panel, which
shows the payload's strings).

A row's saving is the graphs' time as captured minus their time under the change, its noise the two noises added;
a row saves where that saving is above its noise. A change whose outputs differ from the captured ones beyond the
dtype's tolerance is flagged and ranked below every change that keeps them, whatever it saved; a change that could
not run comes last, with why."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from .. import units
from ..figures import shown, valid
from ..model import Advice, Capture, Rule, WhatIf, WhatIfKind

Status = Literal["saves", "no-gain", "slower", "differs", "not-run"]
_RANK: dict[Status, int] = {"saves": 0, "no-gain": 1, "slower": 1, "differs": 2, "not-run": 3}
FLAG = "changes the outputs: not a win"
NOTE = "cap.whatif(): each change measured on the captured graphs, best first"  # under every view's title


@dataclass(frozen=True)
class WhatIfRow:
    """One candidate change as every view shows it; a figure not measured is ""."""

    kind: WhatIfKind
    status: Status
    change: str  # what it is, in words
    patch: str  # the line(s) to apply
    saving: str  # "saves 1.2 ± 0.05 ms"; "within the noise (saves 10 ± 40 µs)"; "not run: <reason>"
    graphs: str  # "graph 0_forward: 2.4 ± 0.02 ms → 1.2 ± 0.01 ms (-50.0%)"
    step: str  # "step: 12 ms → 10.8 ± 0.03 ms (-10.0%)"
    compile: str  # "compiled in 12.3 s"
    numerics: str  # "outputs as captured within atol ...: max abs diff 3e-06, max rel diff 1e-05"
    flag: str  # FLAG where the outputs differ, else ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def saving_ms(whatif: WhatIf) -> tuple[float, float | None] | None:
    """The graphs' time saved (before - after) and its noise (the two noises added; None where neither was
    measured), or None where the change was not timed."""
    if whatif.reason is not None or not valid(whatif.before_ms) or not valid(whatif.after_ms):
        return None
    noises = [n for n in (whatif.before_noise_ms, whatif.after_noise_ms) if n is not None]
    return whatif.before_ms - whatif.after_ms, sum(noises) if noises else None


def status(whatif: WhatIf) -> Status:
    """Whether the change saves time beyond its noise, keeps the outputs, or could not run."""
    saved = saving_ms(whatif)
    if saved is None:
        return "not-run"
    if whatif.verdict == "differs":
        return "differs"
    ms, noise = saved
    return "saves" if ms > (noise or 0.0) else "slower" if ms < -(noise or 0.0) else "no-gain"


def _saving(whatif: WhatIf, state: Status) -> str:
    saved = saving_ms(whatif)
    if saved is None:
        return f"not run: {whatif.reason or 'no time was measured'}"
    ms, noise = saved
    (less,) = units.ms_noises((abs(ms), noise))
    faster = "faster" if ms >= 0 else "slower"
    return {"saves": f"saves {less}", "slower": f"slower by {less}",
            "no-gain": f"within the noise ({'saves' if ms >= 0 else 'costs'} {less})",
            "differs": f"ran {less} {faster}, but the outputs differ"}[state]


def _graph_names(capture: Capture, whatif: WhatIf) -> str:
    ids = [capture.graphs[i].id for i in whatif.graphs if 0 <= i < len(capture.graphs)]
    if not ids:
        return "the graphs"
    return f"graph {ids[0]}" if len(ids) == 1 else f"graphs {', '.join(ids)}" if len(ids) <= 3 else f"{len(ids)} graphs"


def _change(before: float, after: float) -> str:
    return f" ({units.change(100 * (after - before) / before)})" if before > 0 else ""


def _graphs(capture: Capture, whatif: WhatIf) -> str:
    if saving_ms(whatif) is None:
        return ""
    before, after = units.ms_noises((whatif.before_ms, whatif.before_noise_ms),
                                    (whatif.after_ms, whatif.after_noise_ms))
    return f"{_graph_names(capture, whatif)}: {before} → {after}{_change(whatif.before_ms, whatif.after_ms)}"


def _step(whatif: WhatIf) -> str:
    saved = saving_ms(whatif)
    if saved is None or not valid(whatif.step_ms):
        return ""
    after_ms = whatif.step_ms - saved[0]
    before, after = units.ms_noises((whatif.step_ms, None), (after_ms, saved[1]))
    return f"step: {before} → {after}{_change(whatif.step_ms, after_ms)}"


def _compile(whatif: WhatIf) -> str:
    return "" if whatif.compile_s is None else f"compiled in {units.ms_text(1e3 * whatif.compile_s)}"


def _numerics(whatif: WhatIf) -> str:
    if saving_ms(whatif) is None:
        return ""
    diffs = ", ".join(f"max {what} diff {shown(value)}" for what, value in (
        ("abs", whatif.max_abs_diff), ("rel", whatif.max_rel_diff)) if value is not None)
    within = whatif.tolerance or "the dtype's tolerance"
    head = {"same": f"outputs as captured, within {within}", "differs": f"outputs differ beyond {within}",
            "unchecked": "outputs not compared"}[whatif.verdict]
    return f"{head}: {diffs}" if diffs else head


def row(capture: Capture, whatif: WhatIf) -> WhatIfRow:
    state = status(whatif)
    return WhatIfRow(whatif.kind, state, whatif.change, whatif.patch, _saving(whatif, state), _graphs(capture, whatif),
                     _step(whatif), _compile(whatif), _numerics(whatif), FLAG if whatif.verdict == "differs" else "")


def _rank(whatif: WhatIf) -> tuple[int, float]:
    saved = saving_ms(whatif)
    return _RANK[status(whatif)], -saved[0] if saved is not None else 0.0


def ranked(capture: Capture) -> list[WhatIf]:
    """The capture's what-ifs best first: those that save (most first), those that do not, those whose outputs
    differ, those that could not run."""
    return sorted(capture.whatifs, key=_rank)


def rows(capture: Capture) -> list[WhatIfRow]:
    """:func:`row` of each what-if, best first (:func:`ranked`)."""
    return [row(capture, whatif) for whatif in ranked(capture)]


def headline(capture: Capture) -> str:
    """The what-ifs in a line: how many were measured and the best that saves ("" where none was measured)."""
    listed = rows(capture)
    if not listed:
        return ""
    count = f"What if: {len(listed)} change{'s' * (len(listed) != 1)} measured"
    best = listed[0]
    if best.status == "saves":
        return f"{count}; the best {best.saving}: {best.change}"
    return f"{count}; none saves time beyond the noise with the outputs as captured"


# What a finding suggests, as the what-ifs that measure it: by its rule, and by the options its suggestion names
_BY_RULE: dict[Rule, tuple[WhatIfKind, ...]] = {
    "launch-bound": ("cudagraphs",), "cudagraph-skip": ("cudagraphs",), "wrapper-overhead": ("cpp_wrapper",),
    "spills": ("launch_config",), "occupancy": ("launch_config",), "memory-bound": ("launch_config",)}
_NAMED: dict[str, WhatIfKind] = {  # a word of a suggestion (lower case) -> the what-if of that option
    "reduce-overhead": "cudagraphs", "cpp_wrapper": "cpp_wrapper", "tf32": "tf32", "max_autotune": "max_autotune",
    "coordinate_descent": "coordinate_descent", "channels_last": "channels_last", "freezing": "freezing"}
_KERNEL_KINDS = ("launch_config",)  # what-ifs of one kernel: they match a finding on that kernel's launches


def suggested(finding: Advice) -> list[WhatIfKind]:
    """The kinds of what-if that measure what ``finding`` suggests."""
    text = finding.suggestion.lower()
    return list(dict.fromkeys([*_BY_RULE.get(finding.rule, ()), *(k for word, k in _NAMED.items() if word in text)]))


def _matches(capture: Capture, finding: Advice, whatif: WhatIf) -> bool:
    index = next((i for i, g in enumerate(capture.graphs) if g.id == finding.graph), None)
    if index is None or whatif.graphs and index not in whatif.graphs:
        return False
    if whatif.kind not in _KERNEL_KINDS:
        return True
    launches = capture.graphs[index].launches
    return any(0 <= i < len(launches) and launches[i].kernel_name == whatif.kernel for i in finding.launches)


@dataclass(frozen=True)
class Measured:
    """A finding's figure where a what-if measured what it suggests: ``text`` in place of its estimate, ``how``
    in place of how the estimate was computed; ``status``: the what-if's."""

    text: str  # "measured: saves 1.2 ± 0.05 ms"; "measured: changes the outputs"
    how: str
    status: Status

    def to_json(self) -> dict:
        return asdict(self)


def measured(capture: Capture, finding: Advice) -> Measured | None:
    """The best measured what-if of those ``finding`` suggests (on its graph; a kernel's on its launches), one that
    kept the outputs before one that did not; None where none was measured."""
    kinds = suggested(finding)
    found = [w for w in ranked(capture)
             if w.kind in kinds and saving_ms(w) is not None and _matches(capture, finding, w)]
    if not found:
        return None
    best = row(capture, found[0])
    estimate = f"{units.ms_text(finding.ms)} estimated" if finding.ms is not None and valid(finding.ms) else "estimated"
    how = "; ".join(part for part in (f"measured by cap.whatif(): {best.change}", best.graphs, best.numerics,
                                      f"{estimate} ({finding.how})" if finding.how else estimate) if part)
    differs = best.status == "differs"
    return Measured(f"measured: {'changes the outputs' if differs else best.saving}", how, best.status)


def measured_findings(capture: Capture, found: list[Advice]) -> dict[int, Measured]:
    """:func:`measured` of each of ``found`` (the capture's findings) that has one, by index."""
    if not capture.whatifs:
        return {}
    return {i: m for i, finding in enumerate(found) if (m := measured(capture, finding)) is not None}
