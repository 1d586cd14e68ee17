"""``kernelviz check BASELINE CURRENT``: exit 1 where the current capture regresses against the baseline, 0 where
it does not, 2 on bad input (one line); the verdict printed, and written as Markdown, JUnit XML and the HTML
diff where asked (and to ``$GITHUB_STEP_SUMMARY`` when set). No report is written over an input."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..codec import write_atomically
from ..compare import label
from ..model import Capture, CaptureError
from ..loading import load
from . import check, parse_slower
from .reports import junit, markdown

HELP = """\
Diff CURRENT against BASELINE (captures: kernelviz run --bench --json, cap.save()) and fail (exit 1) when a
graph's or a launch's time grew beyond the threshold and beyond the noise both captures measured (timings
compared only between captures of the same device), launches were added, a fusion was lost, a graph break or
recompile appeared, or a kernel began to spill: each reason one line naming the graph, the launch and your line.
exit status: 0 passed, 1 regressed, 2 bad input (one line on stderr)

examples:
  kernelviz check baseline.json current.json
  kernelviz check baseline.json current.json --slower 10% --junit check.xml --html diff.html
"""


def register(sub) -> None:
    """Add the ``check`` subcommand to the CLI's subparsers."""
    check = sub.add_parser("check", help="fail (exit 1) where a capture regressed against a baseline (for CI)",
                           description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("baseline", metavar="BASELINE", help="the baseline capture (.json)")
    check.add_argument("current", metavar="CURRENT", help="the current capture")
    check.add_argument("--slower", default="5%", metavar="PCT", help="how much a time may grow (default 5%%)")
    check.add_argument("--markdown", metavar="PATH", help="write the verdict as Markdown (a job summary) here")
    check.add_argument("--junit", metavar="PATH", help="write the verdict as JUnit XML here")
    check.add_argument("--html", metavar="PATH", help="write the HTML diff report here")


def run(args) -> int:
    """The subcommand: the verdict on stdout, the reports written; its exit status."""
    try:
        slower = parse_slower(args.slower)
    except ValueError as exc:
        raise CaptureError(str(exc)) from None
    inputs = [Path(args.baseline), Path(args.current)]
    outputs = {"--markdown": args.markdown, "--junit": args.junit, "--html": args.html}
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    _refuse_overwrite(inputs, {flag: Path(p) for flag, p in {**outputs, "$GITHUB_STEP_SUMMARY": summary}.items() if p})
    a, b = (_capture(p) for p in inputs)
    verdict = check(a, b, slower=slower, labels=(label(args.baseline), label(args.current)))
    print("\n".join(verdict.lines()))
    writers = {"--markdown": lambda: markdown(verdict), "--junit": lambda: junit(verdict),
               "--html": verdict.diff.to_html}
    for flag, path in outputs.items():
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            write_atomically(Path(path), writers[flag]())
            print(f"kernelviz: wrote {path}", file=sys.stderr)
    if summary:
        with open(summary, "a", encoding="utf-8") as f:  # the job's summary: other steps write to it too
            f.write(markdown(verdict))
    return 1 if verdict.failed else 0


def _capture(path: Path):
    """The capture at ``path``; CaptureError (one line) for anything else (a diff, a job's ranks)."""
    loaded = load(path)
    if not isinstance(loaded, Capture):
        raise CaptureError(f"{path}: a job's rank files; kernelviz check compares two captures (one rank's file)")
    return loaded


def _refuse_overwrite(inputs: list[Path], outputs: dict[str, Path]) -> None:
    """CaptureError where a report would be written over an input, or two reports over one file."""
    for flag, path in outputs.items():
        if _is_input(path, inputs):
            raise CaptureError(f"{flag} {path}: that is an input; kernelviz check never writes over its inputs")
    seen: dict[Path, str] = {}
    for flag, path in outputs.items():
        if path.resolve() in seen:
            raise CaptureError(f"{flag} and {seen[path.resolve()]} name one file ({path}); give each report its own")
        seen[path.resolve()] = flag


def _is_input(path: Path, inputs: list[Path]) -> bool:
    return any(path.resolve() == p.resolve() or (path.exists() and p.exists() and path.samefile(p)) for p in inputs)
