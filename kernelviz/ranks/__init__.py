"""A job's captures side by side: ``kernelviz.load("runs/step")`` reads ``runs/step.rank<N>.kvz`` (each rank
saves its own, ``cap.save("runs/step")``) into one :class:`~kernelviz.model.Ranks`.

Files are read one at a time and reduced as they come: each rank's graphs are compared with the first rank
that has them and its launch times are added to per-launch columns; only the reference rank's capture is
kept (and, up to ``summarise_above`` ranks, every rank's). Above that, each launch keeps its percentiles
and outlier ranks instead of one time per rank, so 1024 ranks cost 1024 small columns, not 1024 captures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..compressed import SUFFIX
from ..model import Capture, CaptureError, Graph, RankGraph, RankInfo, RankLaunch, Ranks
from .agree import Shape, collective_mismatch, kernel_mismatch
from .stats import outliers, spread, stats, straggler

SUMMARISE_ABOVE = 16  # more ranks than this: percentiles and outliers per launch, not a column per rank
STEP_PARTS = ("window_ms", "compute_ms", "overlap_ms", "comm_ms", "idle_ms")
__all__ = ["SUMMARISE_ABOVE", "load_ranks", "rank_files"]


def rank_files(prefix: str | Path) -> list[tuple[int, Path]]:
    """``(rank, path)`` of the files ``prefix.rank<N>.kvz`` (``cap.save()``'s) or ``.json``, by rank."""
    prefix = Path(prefix)
    name = prefix.name[: -len(prefix.suffix)] if prefix.suffix in (".json", SUFFIX) else prefix.name
    pattern = re.compile(re.escape(name) + r"\.rank(\d+)\.(?:json|kvz)")
    parent = prefix.parent
    if not parent.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in parent.iterdir() if (m := pattern.fullmatch(p.name))]
    return sorted(found)


@dataclass
class _Seen:
    """One graph as the ranks report it, reduced as the files are read."""

    id: str
    kind: str
    ref: int  # the first rank that had it: the others are compared with it
    shape: Shape
    has_collectives: bool
    ranks: list[int] = field(default_factory=list)
    compiled: list[int] = field(default_factory=list)
    kernels_agree: bool = True
    collectives_agree: bool = True
    mismatch: str | None = None
    times: dict[int, dict[int, float]] = field(default_factory=dict)  # launch index -> rank -> ms


def load_ranks(prefix: str | Path, *, summarise_above: int = SUMMARISE_ABOVE, progress: bool = True) -> Ranks:
    """Read every rank's capture saved under ``prefix`` and compare them (see the module's docstring)."""
    from ..arguments import path as checked

    files = rank_files(checked("load_ranks", "prefix", prefix))
    if not files:
        raise CaptureError(f"{prefix}: no rank files ({Path(prefix).name}.rank<N>.kvz or .json)")
    summarised = len(files) > summarise_above
    seen: dict[str, _Seen] = {}
    result = Ranks(world_size=0, summarised=summarised)
    for number, path in _progress(files, progress):
        capture = _read(path)
        rank = capture.rank if capture.rank is not None else number
        if rank != number:
            result.warnings.append(f"{path.name} holds the capture of rank {rank}")
        result.world_size = max(result.world_size, capture.world_size or 0, rank + 1)
        result.ranks.append(RankInfo(rank=rank, host=capture.host, device=capture.device, source=str(path),
                                     graphs=len(capture.graphs), step=capture.step, warnings=capture.warnings))
        if result.reference is None:
            result.reference = capture
        if not summarised:
            result.captures.append(capture)
        for key, graph in _keyed(capture.graphs):
            _add(seen, key, graph, rank)
    ranks = [info.rank for info in result.ranks]
    missing = sorted(set(range(result.world_size)) - set(ranks))
    if missing:
        result.warnings.append(f"no file for rank{'s' * (len(missing) > 1)} {_list(missing)} of "
                               f"{result.world_size} ({Path(prefix).name}.rank{missing[0]}.json ...)")
    result.graphs = [_graph(s, ranks) for s in seen.values()]
    mismatches = [g.mismatch for g in result.graphs if g.mismatch]
    if mismatches:
        result.warnings.append(f"ranks disagree in {len(mismatches)} graph{'s' * (len(mismatches) > 1)}: "
                               f"{mismatches[0]}")
    result.launches = [launch for s in seen.values() for launch in _launches(s, ranks, summarised)]
    result.step_straggler = _step_straggler(result.ranks)
    steps = [info.step for info in result.ranks if info.step is not None]
    if steps:
        result.step_stats = {key: stats([getattr(step, key) for step in steps]) for key in STEP_PARTS}
    return result


def _progress(items: list, enabled: bool):
    if not enabled or len(items) < 32:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return items
    return tqdm(items, desc="kernelviz: reading ranks", unit="rank", leave=False)


def _read(path: Path) -> Capture:
    try:
        return Capture.from_json(path.read_bytes())
    except (CaptureError, ValueError, TypeError, KeyError, AttributeError) as exc:
        text = str(exc).strip().splitlines()
        raise CaptureError(f"{path}: {text[0] if text else type(exc).__name__}") from None


def _keyed(graphs: list[Graph]):
    """Graphs by id; a second graph of the same id becomes ``id#2``."""
    count: dict[str, int] = {}
    for graph in graphs:
        count[graph.id] = count.get(graph.id, 0) + 1
        yield (graph.id if count[graph.id] == 1 else f"{graph.id}#{count[graph.id]}"), graph


def _add(seen: dict[str, _Seen], key: str, graph: Graph, rank: int) -> None:
    shape = Shape.of(graph)
    entry = seen.get(key)
    if entry is None:
        entry = seen[key] = _Seen(id=key, kind=graph.kind, ref=rank, shape=shape,
                                  has_collectives=bool(shape.collectives))
    entry.ranks.append(rank)
    if graph.cache == "compiled" or (graph.cache is None and graph.compile_s is not None):
        entry.compiled.append(rank)
    if rank != entry.ref:
        talk = collective_mismatch(key, entry.ref, entry.shape, rank, shape)
        work = kernel_mismatch(key, entry.ref, entry.shape, rank, shape)
        entry.collectives_agree &= talk is None
        entry.kernels_agree &= work is None
        entry.mismatch = entry.mismatch or talk or work
        if shape.launches != entry.shape.launches:
            return  # launches that do not line up are not compared by time
    for launch in graph.launches:
        ms = launch.timing.in_graph_ms if launch.timing is not None else None
        if ms is not None:
            entry.times.setdefault(launch.index, {})[rank] = ms


def _graph(entry: _Seen, ranks: list[int]) -> RankGraph:
    missing = [r for r in ranks if r not in entry.ranks]
    graph = RankGraph(id=entry.id, kind=entry.kind, ranks=entry.ranks, compiled=entry.compiled, missing=missing,
                      mismatch=entry.mismatch)
    if len(entry.ranks) > 1:
        graph.kernels_agree, graph.collectives_agree = entry.kernels_agree, entry.collectives_agree
    if missing and entry.has_collectives:
        graph.collectives_agree = False
        graph.mismatch = graph.mismatch or (
            f"graph {entry.id} holds collectives but rank{'s' * (len(missing) > 1)} {_list(missing)} never ran it: "
            "its peers wait for them (the job hangs)")
    return graph


def _launches(entry: _Seen, ranks: list[int], summarised: bool) -> list[RankLaunch]:
    out = []
    for index, name in enumerate(entry.shape.launches):
        by_rank = entry.times.get(index, {})
        launch = RankLaunch(graph=entry.id, index=index, name=name, collective=entry.shape.ops.get(index))
        if not summarised:
            launch.ms = [by_rank.get(r) for r in ranks]
        if by_rank:
            who, values = list(by_rank), list(by_rank.values())
            launch.stats, launch.spread = stats(values), spread(values)
            launch.straggler = straggler(who, values, collective=launch.collective is not None)
            launch.outliers = outliers(who, values)
        out.append(launch)
    return out


def _step_straggler(infos: list[RankInfo]) -> int | None:
    """The rank with the most compute in the block, where the ranks' compute spreads by more than 10%."""
    timed = [(info.rank, info.step.compute_ms + info.step.overlap_ms) for info in infos if info.step is not None]
    if len(timed) < 2:
        return None
    return straggler([r for r, _ in timed], [v for _, v in timed], collective=False)


def _list(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks[:8])) + (f" and {len(ranks) - 8} more" if len(ranks) > 8 else "")
