"""Rules over dynamo's events: graph breaks, recompiles and skipped frames, one finding per place and reason (a
break dynamo hit 3 times at one line is one finding, "3x"), each in a line with what to try; dynamo's whole text
stays on the event (``Capture.dynamo``)."""

from __future__ import annotations

from ..model import Advice, Capture, DynamoEvent

_BREAK = ("remove what dynamo cannot trace at that line (a print, .item(), a data-dependent branch, an unsupported "
          "call), or allow it: torch._dynamo.config.capture_scalar_outputs for .item()")
_IN_LIBRARY = ("the break is in library code your line called: call it outside the compiled function, or compile "
               "a smaller part (torch.compile on the module or function below it)")
_BACKWARD = ("nothing to do: dynamo leaves .backward() to autograd, which runs the backward graph Inductor compiled "
             "(torch._dynamo.config.compiled_autograd compiles the call too)")
_SKIP = "dynamo ran this frame eagerly: nothing in it was compiled"
_RECOMPILE = {
    "size": "mark the size dynamic before the first call (torch._dynamo.mark_dynamic({name}, dim)) or compile with "
            "dynamic=True; or pad to a few fixed sizes",
    "number": "a Python number is compiled in as a constant: pass {name} as a tensor (torch.tensor({name})), or keep "
              "it one value",
    "type": "keep {name} one type from call to call (e.g. always a float: 2.0, not 2)",
    "dtype": "keep {name} one dtype from call to call (cast it before the call): each dtype compiles its own graph",
    "other": "the guard that failed names what changed: keep it the same from call to call",
}
_RULE = {"graph_break": "graph-break", "recompile": "recompile", "skip": "skip"}


def dynamo_findings(capture: Capture) -> list[Advice]:
    """A finding per distinct event (kind, place, reason), its count where dynamo hit it more than once; a
    recompile with its own compile time, what changed and the remedy its guard calls for."""
    recompiles = [e.compile_s for e in capture.dynamo if e.kind == "recompile" and e.compile_s is not None]
    total = f"; the capture spent {sum(recompiles):.2f} s recompiling in all" if recompiles else ""
    found = []
    for events in distinct(capture.dynamo):
        event, times = events[0], len(events)
        where = event.where() if event.file else "unknown place"  # a notebook cell as the notebook names it
        at = (f"{event.caller.where()} ({event.caller.code}) -> {where}" if event.caller
              else f"{where}{f' ({event.code})' if event.code else ''}")
        count = f" ({times}x)" if times > 1 else ""
        if event.kind == "recompile":
            found.append(_recompile(event, at, total))
            continue
        expected = event.kind == "graph_break" and ".backward(" in (event.code or "")
        found.append(Advice(
            _RULE.get(event.kind, event.kind), None, [], None,
            f"{at}{count}: {'expected: ' if expected else ''}{gist(event.reason)}",
            _SKIP if event.kind == "skip" else _BACKWARD if expected else _IN_LIBRARY if event.caller else _BREAK,
            "not timed: dynamo does not time a graph break"))
    return found


def distinct(events: list[DynamoEvent]) -> list[list[DynamoEvent]]:
    """``events`` by kind, place and reason (the gist of it), in the order each first came."""
    groups: dict[tuple, list[DynamoEvent]] = {}
    for event in events:
        groups.setdefault((event.kind, event.file, event.line, gist(event.reason)), []).append(event)
    return list(groups.values())


def _recompile(event: DynamoEvent, at: str, total: str) -> Advice:
    took = f"{event.compile_s:.2f} s" if event.compile_s is not None else "not timed"
    name = event.change.split(":")[0].split(".")[0] if event.change else "it"
    return Advice("recompile", None, [], None, f"{at}: {event.change or gist(event.reason)} (recompiled in {took})",
                  _RECOMPILE.get(event.guard or "other", _RECOMPILE["other"]).format(name=name),
                  "not in the graphs' time: the compile (dynamo and Inductor) of this recompile, from dynamo's "
                  f"CompilationMetrics{total}")


def gist(reason: str) -> str:
    """Dynamo's reason in a line: its first line (the compile id "0/1: " left out), and the next where the first only
    announces it (ends with ':'); the rest is on the event."""
    lines = [line.strip() for line in reason.splitlines() if line.strip()] or [""]
    first = lines[0].split("  #")[0].strip()
    first = first.split(": ", 1)[1] if first[:1].isdigit() and ": " in first and "/" in first.split(": ")[0] else first
    return f"{first} {lines[1]}" if first.endswith(":") and len(lines) > 1 else first
