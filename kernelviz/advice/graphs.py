"""Rules over a whole graph: launch-bound (GPU), wrapper overhead (CPU), fusions Inductor refused, CUDA graphs that
reduce-overhead skipped."""

from __future__ import annotations

from ..figures import positive
from ..model import Advice, AsRun, FusionDecision, Graph, Launch
from ..units import ms_text, size

IDLE_SHARE = 0.25  # a graph whose device is idle for more than this share of its plain time is launch-bound


def waits_on_cpu(run: AsRun) -> bool:
    """Whether a graph's device stood idle, waiting for the CPU to launch its work, for more than ``IDLE_SHARE``
    of its plain call() on a GPU (its in-graph launch times added up against its plain time)."""
    return (run.unit == "gpu" and run.kernels_ms is not None and run.plain_ms > 0
            and run.plain_ms - run.kernels_ms > IDLE_SHARE * run.plain_ms)


def graph_findings(graph: Graph, twin: Graph | None = None) -> list[Advice]:
    """``twin``: the same kernels under the other wrapper (:func:`wrapper_twins`), whose time measures what
    cpp_wrapper saves. A skipped CUDA graph stands for the launch-bound finding: its cause, same saving."""
    skips = _cudagraph_skips(graph)
    return [*(skips or _launch_bound(graph, twin)), *_wrapper_overhead(graph, twin), *_refused_fusions(graph)]


def wrapper_twins(graphs: list[Graph]) -> dict[str, Graph]:
    """Graph id -> a timed graph of the other wrapper (Python ``call()`` / C++) that launches the same kernels and
    extern calls in the same order on the same device: the same graph compiled with and without cpp_wrapper."""
    def key(graph: Graph) -> tuple:
        return graph.device, tuple(launch.kernel_name or "extern" for launch in graph.launches)

    timed = [g for g in graphs if g.as_run is not None and g.launches]
    return {g.id: twin for g in graphs for twin in timed
            if twin.wrapper != g.wrapper and key(twin) == key(g) and g.as_run is not None}


def cpp_wrapper_saving(graph: Graph, twin: Graph | None) -> tuple[float | None, str]:
    """What cpp_wrapper saves on this graph's plain call(), measured against its twin under the other wrapper, and
    one line saying how (or why it was not measured)."""
    run, other = graph.as_run, twin.as_run if twin is not None else None
    if other is None or run is None:
        if graph.wrapper == "cpp":
            return None, ("this graph already runs a C++ wrapper (an AOTInductor package)" if graph.package is not None
                          else "this graph already runs Inductor's C++ wrapper (cpp_wrapper)")
        return None, ("cpp_wrapper's saving not measured: no graph of the same kernels compiled with "
                      "torch._inductor.config.cpp_wrapper = True was timed in this capture (compile and run it "
                      "in the same capture to measure it)")
    python, cpp = (run, other) if graph.wrapper == "python" else (other, run)
    saving = python.plain_ms - cpp.plain_ms
    return saving, (f"cpp_wrapper measured{' no faster' if saving <= 0 else ''}: the Python call() "
                    f"{ms_text(python.plain_ms)} − the same kernels under the C++ wrapper {ms_text(cpp.plain_ms)} = "
                    f"{ms_text(saving)} (medians of {python.runs} and {cpp.runs} runs)")


def in_step_plain(graph: Graph) -> tuple[float, str]:
    """The plain call()'s time as the user's own step runs it, and how it was made (empty where it is the loop's).

    ``as_run`` times call() in a loop, where the CPU runs it warm; the step runs it among the user's other work,
    often slower (``Graph.in_step_ms``, its wall time in the captured block). Where the device waits on the CPU (GPU)
    or call() is the CPU's own work, what the step's run took beyond the loop's adds to the plain time."""
    run, step = graph.as_run, graph.in_step_ms
    if run is None or step is None:
        return (run.plain_ms if run is not None else 0.0), ""
    if run.unit == "gpu":
        if run.launch_cpu_ms is None or not waits_on_cpu(run):
            return run.plain_ms, ""
        extra, loop, what = step - run.launch_cpu_ms, run.launch_cpu_ms, "to launch it"
    else:
        extra, loop, what = step - run.plain_ms, run.plain_ms, "to run it"
    if extra <= 0:
        return run.plain_ms, ""
    return run.plain_ms + extra, (f" + {ms_text(extra)}: the CPU took {ms_text(step)} {what} in your step (the fastest "
                                  f"of its warm calls in the capture), {ms_text(loop)} in the loop")


def _launch_bound(graph: Graph, twin: Graph | None = None) -> list[Advice]:
    run = graph.as_run
    if run is None or not waits_on_cpu(run):
        return []
    idle = run.plain_ms - run.kernels_ms
    launches = len(graph.launches)
    evidence = (f"the GPU is idle {ms_text(idle)} of the plain call()'s {ms_text(run.plain_ms)} "
                f"({100 * idle / run.plain_ms:.0f}%): its {launches} launches keep it busy {ms_text(run.kernels_ms)} "
                f"(in-graph times); the CPU takes {ms_text(run.launch_cpu_ms or 0.0)} to launch them")
    saving, cpp = cpp_wrapper_saving(graph, twin)
    from_cpp = graph.wrapper == "python" and (saving is None or saving > 0)  # not where it runs or measured no faster
    suggestion = ('run it as a CUDA graph: torch.compile(..., mode="reduce-overhead"); '
                  + ("launch from C++: torch._inductor.config.cpp_wrapper = True; " if from_cpp else "")
                  + "or launch less: larger batches, fewer and larger kernels")
    plain, in_step = in_step_plain(graph)
    if run.replay_ms is not None and run.replay_ms < plain:
        ms = plain - run.replay_ms
        how = (f"measured: plain call() {ms_text(run.plain_ms)}{in_step} − the same call() replayed as a CUDA graph "
               f"{ms_text(run.replay_ms)} (CUDA events, medians of {run.runs} runs"
               + (f" and {run.replays} replays)" if run.replays else ")"))
    else:  # the idle time is what is at stake; no saving is claimed
        ms = idle
        if run.replay_ms is not None:
            why = f"the CUDA-graph replay took {ms_text(run.replay_ms)}, no less than the plain call()"
        else:
            why = run.note or "no CUDA-graph replay was timed"
        how = (f"the GPU's idle time, measured: plain call() {ms_text(run.plain_ms)} − its launches' in-graph "
               f"{ms_text(run.kernels_ms)}; the time at stake, not a measured saving ({why})")
    if saving is not None and saving > 0 and graph.wrapper == "python" and (run.replay_ms is None or saving > ms):
        return [Advice("launch-bound", graph.id, [], saving, evidence, suggestion, f"{cpp}; {how}")]  # the larger
    return [Advice("launch-bound", graph.id, [], ms, evidence, suggestion, f"{how}; {cpp}")]


_SKIP_REMEDY = {  # Inductor's skip reason (start) -> what lets the graph run as a CUDA graph
    "mutated inputs": "do not mutate an input in place inside the compiled function (return the new value, or "
                      "mutate a buffer of the module: those are kept in the CUDA graph)",
    "cpu device": "keep every tensor of the graph on the GPU (a CPU tensor or op keeps it out of a CUDA graph)",
    "non gpu ops": "keep every tensor of the graph on the GPU (a CPU tensor or op keeps it out of a CUDA graph)",
    "incompatible op": "move the op Inductor names out of the compiled function, or find one CUDA graphs allow",
    "dynamic shape": "keep the shapes static (or torch._inductor.config.triton.cudagraph_skip_dynamic_graphs=False "
                     "to record one graph per size)",
    "function": "the graph was recorded again too often: keep its inputs' addresses and shapes stable "
                "(torch.compiler.cudagraph_mark_step_begin() between steps)",
}


def _cudagraph_skips(graph: Graph) -> list[Advice]:
    """Each CUDA-graph skip of reduce-overhead, with the time a replay would save where both were timed (on the
    first skip of a graph only)."""
    run = graph.as_run
    found = []
    for event in graph.cudagraphs:
        if event.kind != "skip":
            continue
        where = f" at {event.location.file}:{event.location.line} ({event.location.code})" if event.location else ""
        evidence = f"reduce-overhead ran this graph without a CUDA graph: {event.reason}{where}"
        suggestion = next((w for start, w in _SKIP_REMEDY.items() if event.reason.startswith(start)),
                          "remove what Inductor names as the reason")
        if found and found[0].ms is not None:  # one replay for the whole graph: its saving counted once
            ms, how = None, f"counted on the graph's first skip ({ms_text(found[0].ms)}): one CUDA graph replays all"
        elif run is not None and run.replay_ms is not None and run.replay_ms < in_step_plain(graph)[0]:
            plain, in_step = in_step_plain(graph)
            ms = plain - run.replay_ms
            how = (f"measured: plain call() {ms_text(run.plain_ms)}{in_step} − the same call() replayed as a CUDA "
                   f"graph {ms_text(run.replay_ms)} (CUDA events, medians of {run.runs} runs), per call")
        elif (run is None and graph.gpu_busy_ms is not None and graph.cudagraph_ms is not None
              and graph.cudagraph_ms < graph.gpu_busy_ms):  # timed in CUDA-graph mode: call() end to end, replayed
            ms = graph.gpu_busy_ms - graph.cudagraph_ms
            how = (f"measured: call() end to end {ms_text(graph.gpu_busy_ms)} − call() replayed as a CUDA graph "
                   f"{ms_text(graph.cudagraph_ms)} (CUDA events), per call")
        else:
            ms = None
            how = ("not measured: " + (f"the replay took {ms_text(run.replay_ms)}, no less than the plain call()"
                                       if run is not None and run.replay_ms is not None
                                       else (run.note if run is not None and run.note else "the graph was not "
                                             "timed (cap.bench() times it plain and replayed)")))
        found.append(Advice("cudagraph-skip", graph.id, [], ms, evidence, suggestion, how))
    return found


def _wrapper_overhead(graph: Graph, twin: Graph | None = None) -> list[Advice]:
    """On the CPU, the time the plain ``call()`` spends outside its launches (Python or C++ between the kernels)."""
    run = graph.as_run
    if graph.device != "cpu" or run is None or run.kernels_ms is None or run.plain_ms <= 0:
        return []
    outside = run.plain_ms - run.kernels_ms
    if outside <= IDLE_SHARE * run.plain_ms:
        return []
    saving, cpp = cpp_wrapper_saving(graph, twin)
    if graph.wrapper == "cpp":
        between, suggestion = "the C++ wrapper between the kernels", "fewer, larger launches: larger batches"
    else:
        between = "Python between the kernels"
        suggestion = ("fewer, larger launches: larger batches (Inductor's C++ wrapper, measured, is no faster here)"
                      if saving is not None and saving <= 0 else
                      "Inductor's C++ wrapper runs call() without Python: torch._inductor.config.cpp_wrapper = True")
    return [Advice(
        "wrapper-overhead", graph.id, [], saving if saving is not None and saving > 0 else outside,
        f"call() spends {100 * outside / run.plain_ms:.0f}% of its time outside its {len(graph.launches)} "
        f"launches ({between})", suggestion,
        f"measured: the plain call()'s wall time {ms_text(run.plain_ms)} (median of its fastest quarter of "
        f"{run.runs} runs) − its launches' in-graph {ms_text(run.kernels_ms)}; {cpp}; CUDA graphs do not apply "
        "on the CPU")]


_WHY = {  # Inductor's reason (start) -> what stands in the way, in the user's terms
    "intermediate nodes between": "another op between the two needs the first's output (often an extern call "
                                  "such as a matmul, a scan or a fallback op): reorder so it does not sit between",
    "exceeds max fusion": "the fused kernel would be too large: torch._inductor.config.max_fusion_size",
    "will create cycle": "fusing them would make a cycle in the graph (an op between depends on one and feeds "
                         "the other)",
    "different devices": "they run on different devices",
    "invalid loop body": "their loops do not match (different iteration spaces or reductions)",
    "numel/rnumel mismatch": "they loop over different shapes (a reduction beside a pointwise op of another size): "
                             "Inductor fuses kernels over matching (numel, rnumel) only",
    "nodes numel incompatibility": "they loop over different numbers of elements",
    "no shared data": "Inductor found no access the two share in the same pattern: the second reads the first's "
                      "output with other indexing (transposed, broadcast, sliced); a matching layout lets them fuse",
}
MIN_SHARE = 0.005  # a timed refusal whose estimate is below this share of the graph's launch time is left out


def _suggestion(reason: str) -> str:
    for start, words in _WHY.items():
        if start in reason:
            return words
    return "Inductor's reason names what stands in the way"


def _refused_fusions(graph: Graph) -> list[Advice]:
    """Refusals between two launched kernels with a buffer between them: the latest per pair of kernels."""
    first_launch: dict[str, Launch] = {}
    for launch in graph.launches:
        if launch.kernel_name:
            first_launch.setdefault(launch.kernel_name, launch)
    pairs: dict[tuple[str, str], FusionDecision] = {}
    for d in graph.fusions:
        if (not d.fused and positive(d.bytes) and d.first_kernel in first_launch and d.second_kernel in first_launch
                and d.first_kernel != d.second_kernel):
            pairs[(d.first_kernel, d.second_kernel)] = d
    rate, launched = _achieved_gb_per_s(graph)
    found = []
    for (k1, k2), d in pairs.items():
        a, b = first_launch[k1], first_launch[k2]
        if rate is not None:
            ms = 2 * d.bytes / (rate * 1e9) * 1e3
            if ms < MIN_SHARE * launched:
                continue
            how = (f"estimated from measured figures: the {size(d.bytes)} between them written once and read "
                   f"once (2 × {size(d.bytes)}) at the graph's achieved {rate:.3g} GB/s (its timed launches' "
                   "bytes over their in-graph time)")
        else:
            ms, how = None, "not estimated: the graph was not timed (no achieved bandwidth)"
        evidence = (f"Inductor: cannot fuse {_names(d.first)} with {_names(d.second)}: {d.reason}; "
                    f"{size(d.bytes)} go through memory from {k1} (launch {a.index}) to {k2} (launch {b.index})")
        found.append(Advice("refused-fusion", graph.id, [a.index, b.index], ms, evidence, _suggestion(d.reason), how))
    return found


def _names(nodes: list[str], shown: int = 6) -> str:
    return ", ".join(nodes[:shown]) + (f" (+{len(nodes) - shown} more)" if len(nodes) > shown else "")


def _achieved_gb_per_s(graph: Graph) -> tuple[float | None, float]:
    """The graph's achieved bandwidth (its timed launches' bytes over their in-graph time), and that time; None
    where the figures give no sensible rate (a time of 5e-324 ms, bytes beyond any device)."""
    timed = [t for t in (launch.timing for launch in graph.launches)
             if t and positive(t.in_graph_ms) and positive(t.bytes)]
    ms = sum(t.in_graph_ms for t in timed)
    rate = sum(t.bytes for t in timed) / ms / 1e6 if timed else None
    return (rate if positive(rate) else None), ms
