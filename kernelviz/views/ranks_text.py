"""Plain text of a job's ranks: who ran what, whether they agree, where each rank's time went, and the
launches whose time spreads most across ranks."""

from __future__ import annotations

from .. import units
from ..model import RankLaunch, Ranks, StepSplit
from .wrap import wrapped_lines

PARTS = (("compute", "compute_ms"), ("overlap", "overlap_ms"), ("comm", "comm_ms"), ("idle", "idle_ms"))


def headline(ranks: Ranks) -> str:
    hosts = sorted({info.host for info in ranks.ranks if info.host})
    mode = ", summarised (percentiles and outliers per launch)" if ranks.summarised else ""
    disagree = [g for g in ranks.graphs if g.mismatch]
    agree = (f"ranks disagree in {len(disagree)} of {len(ranks.graphs)} graphs" if disagree
             else f"{len(ranks.graphs)} graph{'s' * (len(ranks.graphs) != 1)}, the ranks agree")
    return (f"kernelviz: {len(ranks.ranks)} of {ranks.world_size} ranks"
            + (f" on {len(hosts)} host{'s' * (len(hosts) != 1)}" if hosts else "") + f"{mode}; {agree}")


# what a ``repr`` (of a capture, a job's ranks or a diff) says there is more to see
WHOLE = "print() it for the whole summary, .to_html() for the report"


def head(ranks: Ranks) -> str:
    """``repr(ranks)``: the headline and what more there is to see."""
    return f"{headline(ranks)}\n  {WHOLE}"


def split_line(step: StepSplit) -> str:
    """``compute 61.2% · overlap 12.0% · comm 20.3% · idle 6.5% of 12.41 ms (gpu)``."""
    parts = " · ".join(f"{label} {units.share(getattr(step, key) / step.window_ms)}" if step.window_ms else
                       f"{label} -" for label, key in PARTS)
    return f"{parts} of {units.ms(step.window_ms, 3)} ms ({step.unit})"


def launch_line(launch: RankLaunch) -> str:
    s = launch.stats
    figures = (f"p50 {units.ms(s['p50'])} ms, max {units.ms(s['p100'])} ms, spread {units.relative(launch.spread, 0)}"
               if s and launch.spread is not None else "not timed")
    straggler = f", straggler rank {launch.straggler}" if launch.straggler is not None else ""
    outliers = (", outliers " + ", ".join(f"rank {int(r)} {units.ms(ms)} ms" for r, ms in launch.outliers)
                if launch.outliers else "")
    kind = f" [{launch.collective}]" if launch.collective else ""
    return f"{launch.graph} #{launch.index} {launch.name}{kind}: {figures}{straggler}{outliers}"


def summary(ranks: Ranks, top: int = 10, width: int | None = None) -> str:
    """The ranks' headline, their graphs, each rank's block split and the launches whose time spreads most,
    wrapped between words to ``width`` (the terminal's)."""
    lines = [headline(ranks)]
    lines += [f"  warning: {w}" for w in ranks.warnings]
    for graph in ranks.graphs:
        status = ("mismatch: " + graph.mismatch) if graph.mismatch else "kernels and collective order agree" \
            if graph.kernels_agree else "on one rank only"
        lines.append(f"graph {graph.id} [{graph.kind}] ran on {len(graph.ranks)} ranks, compiled on "
                     f"{len(graph.compiled)}" + (f", missing on {graph.missing}" if graph.missing else "")
                     + f": {status}")
    steps = [info for info in ranks.ranks if info.step is not None]
    if steps:
        lines.append("compute vs communication vs idle of the captured block:")
        shown = steps if len(steps) <= 16 else sorted(steps, key=_compute, reverse=True)[:8]
        for info in shown:
            mark = "  <- straggler" if info.rank == ranks.step_straggler else ""
            lines.append(f"  rank {info.rank:>4}: {split_line(info.step)}{mark}")
        if len(shown) < len(steps):
            lines.append(f"  ({len(steps) - len(shown)} more ranks; the 8 with the most compute are shown)")
    spread = sorted((launch for launch in ranks.launches if launch.spread is not None),
                    key=lambda launch: launch.spread, reverse=True)[:top]
    if spread:
        lines.append(f"launches whose time spreads most across ranks (top {len(spread)}):")
        lines += [f"  {launch_line(launch)}" for launch in spread]
    return wrapped_lines(lines, width)


def _compute(info) -> float:
    return info.step.compute_ms + info.step.overlap_ms
