"""``kernelviz check BASELINE CURRENT``: exit 1 where the current capture regresses against the baseline, 0 where
it does not, 2 on bad input (one line); the verdict printed, and written as Markdown, JUnit XML and the HTML
diff where asked (and to ``$GITHUB_STEP_SUMMARY`` when set). A side may be several captures (a folder of them, or
``--baseline``/``--current`` with several files), each of its own process. No report is written over an input."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..codec import write_atomically
from ..compare import label
from ..loading import load
from ..model import Capture, CaptureError
from . import check, parse_slower
from .reports import junit, markdown

HELP = """\
Diff CURRENT against BASELINE (captures: kernelviz run --bench --json, cap.save()) and fail (exit 1) when the
step's or a graph's time grew beyond the threshold and beyond the noise between processes, a launch's time grew
by a real part of the step (0.5% of it, beyond its own noise), launches were added, a fusion was lost, a graph
break or recompile appeared, or a kernel began to spill: each reason one line naming the graph, the launch and
your line (times compared only between captures of the same device). Each side may be several captures, each
made by its own process (a folder of .json captures, or several files after --baseline and --current): their
spread is the noise. With one capture a side that noise is unknown: the check says the smallest change it can
see.
exit status: 0 passed, 1 regressed, 2 bad input (one line on stderr)

examples:
  kernelviz check baseline.json current.json
  kernelviz check baselines/ current/ --slower 10% --junit check.xml --html diff.html
  kernelviz check --baseline base1.json base2.json base3.json --current cur1.json cur2.json
"""


def register(sub) -> None:
    """Add the ``check`` subcommand to the CLI's subparsers."""
    check = sub.add_parser("check", help="fail (exit 1) where a capture regressed against a baseline (for CI)",
                           description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("sides", nargs="*", metavar="BASELINE CURRENT",
                       help="the baseline and the current capture (.json), or a folder of captures each")
    check.add_argument("--baseline", nargs="+", metavar="FILE", help="the baseline's captures, one per process")
    check.add_argument("--current", nargs="+", metavar="FILE", help="the current captures, one per process")
    add_report_options(check)


def add_report_options(parser) -> None:
    """The threshold and the reports, as ``check`` and ``ab`` take them."""
    parser.add_argument("--slower", default="5%", metavar="PCT", help="how much a time may grow (default 5%%)")
    parser.add_argument("--markdown", metavar="PATH", help="write the verdict as Markdown (a job summary) here")
    parser.add_argument("--junit", metavar="PATH", help="write the verdict as JUnit XML here")
    parser.add_argument("--html", metavar="PATH", help="write the HTML diff report here")


def run(args) -> int:
    """The subcommand: the verdict on stdout, the reports written; its exit status."""
    try:
        slower = parse_slower(args.slower)
    except ValueError as exc:
        raise CaptureError(str(exc)) from None
    given = _sides(args)
    inputs = [p for side in given for p in side]
    outputs = {"--markdown": args.markdown, "--junit": args.junit, "--html": args.html}
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    _refuse_overwrite(inputs, {flag: Path(p) for flag, p in {**outputs, "$GITHUB_STEP_SUMMARY": summary}.items() if p})
    a, b = ([_capture(p) for p in side] for side in given)
    verdict = check(a, b, slower=slower, labels=tuple(_label(side) for side in given))
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


def _sides(args) -> tuple[list[Path], list[Path]]:
    """The baseline's and the current side's capture files (a folder: its .json files); CaptureError (one line)
    where the sides are not given once each, or a folder holds no capture."""
    if args.sides and (args.baseline or args.current) or not args.sides and not (args.baseline and args.current):
        raise CaptureError("give BASELINE CURRENT, or --baseline FILE... --current FILE...")
    if args.sides and len(args.sides) != 2:
        raise CaptureError(f"{len(args.sides)} paths given; expected two, BASELINE CURRENT (or --baseline FILE... "
                           "--current FILE... for several captures a side)")
    sides = [[Path(args.sides[0])], [Path(args.sides[1])]] if args.sides else \
        [[Path(p) for p in args.baseline], [Path(p) for p in args.current]]
    out = []
    for side in sides:
        files = []
        for p in side:
            found = sorted(p.glob("*.json")) if p.is_dir() else [p]
            if not found:
                raise CaptureError(f"{p}: a folder without a capture (.json)")
            files += found
        out.append(files)
    return out[0], out[1]


def _label(files: list[Path]) -> str:
    """A side's name in the reports: its file, or its first file and how many more."""
    return label(files[0]) + (f" (+{len(files) - 1} more)" if len(files) > 1 else "")


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
