"""The kernelviz command line: show a capture, diff two, run a script under a capture, or the demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import get_args

from .gate import ab as ab_cli
from .gate import cli as check_cli
from .model import WhatIfKind
from .outputs import plan, say, write

DESCRIPTION = "See inside what torch.compile (Inductor) generated: every kernel, its origin, source and time."
INPUTS = """\
inputs (anything kernelviz.load reads): output code saved by Inductor (a .py file), a TORCH_COMPILE_DEBUG
folder or any folder of output code, a TORCH_LOGS=output_code log, a TORCH_TRACE (tlparse) log, an
AOTInductor package (.pt2), a capture (.json, or .kvz from cap.save()), or the prefix of a job's rank files
"""
OUTPUTS = """\
outputs (-o, --json) are regular files, relative to the folder where kernelviz started; one that is a device,
a folder or an input is refused before any work, and one that cannot be written where named is written under
a new name here instead (one line says where; exit status 2).
"""
TOP_HELP = """\
examples (kernelviz COMMAND --help says more about each):
  kernelviz show output_code.py -o report.html
  kernelviz diff default.json max_autotune.json -o diff.html
  kernelviz whatif capture.json --budget 60
  kernelviz check baseline.json current.json --junit check.xml
  kernelviz ab ../base . -- bench/step.py
  kernelviz run train.py --epochs 1 --bench
  kernelviz demo

exit status: 0 done; 2 bad input or usage, or an output not written where named (one line on stderr);
kernelviz check and ab: 1 when the current side regressed
"""
SHOW_HELP = INPUTS + """
examples:
  kernelviz show output_code.py
  kernelviz show torch_compile_debug/ -o report.html --json capture.json
  TORCH_LOGS=output_code python train.py 2> train.log && kernelviz show train.log
  kernelviz show runs/step                  # a job's ranks: runs/step.rank0.kvz, runs/step.rank1.kvz ...
  kernelviz show diff.json                  # a diff written by kernelviz diff --json

""" + OUTPUTS
DIFF_HELP = """\
A and B: anything kernelviz show reads (kernelviz show --help lists it).

examples:
  kernelviz diff default.json max_autotune.json
  kernelviz diff before.kvz after.kvz -o diff.html --json diff.json --labels before after

""" + OUTPUTS
DEMO_HELP = """\
Compiles a small MLP's training step (forward and backward) with torch.compile on the CPU under a capture,
times it, prints its summary and writes OUT.json (the capture) and OUT.html (the report).

examples:
  kernelviz demo
  kernelviz demo --out runs/demo            # runs/demo.json and runs/demo.html
"""
RUN_HELP = """\
Runs SCRIPT as `python SCRIPT ARGS` would (sys.argv, __main__, sys.path[0]) inside kernelviz.capture(),
then writes the report (HTML) and the capture (JSON). kernelviz's own options (-o, --json, --bench) may
come before or after SCRIPT; everything else after SCRIPT goes to the script, and everything after `--`
goes to the script untouched (kernelviz run train.py -- -o model.pt). If the script raises, its
traceback is shown as Python shows it, the capture so far is still written, and the exit status is 1.

examples:
  kernelviz run train.py --epochs 1
  kernelviz run train.py --epochs 1 -o train.html --bench
  kernelviz run -o out/report.html --json out/capture.json bench.py -- --json results.json

exit status: the script's own; 1 when it raises, 143 when it is sent SIGTERM, 2 on bad input
"""
RUN_FLAGS = {"--bench"}
RUN_OPTIONS = {"-o", "--out", "--json"}


def _parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="kernelviz", description=DESCRIPTION, epilog=TOP_HELP, formatter_class=raw)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{show,diff,whatif,check,ab,run,demo}")
    show = sub.add_parser("show", help="summarise a capture (output code, folder, log or .json); write its report",
                          description="Print a summary of a capture; optionally write its HTML report and JSON.\n"
                          "A diff's .json (kernelviz diff --json) is shown as a diff.", epilog=SHOW_HELP,
                          formatter_class=raw)
    show.add_argument("path", help="what to show (the inputs below)")
    show.add_argument("-o", "--out", metavar="REPORT.html", help="write the self-contained HTML report here")
    show.add_argument("--json", metavar="CAPTURE.json", help="write the capture as JSON here")
    diff = sub.add_parser("diff", help="compare two captures: matched kernels, what changed, time deltas",
                          description="Match the graphs and kernels of capture A (before) and B (after) by what "
                          "they compute, not by name,\nand print what changed: fusions and splits, source, config, "
                          "registers, bytes, and time deltas\nwhere both sides are timed.",
                          epilog=DIFF_HELP, formatter_class=raw)
    diff.add_argument("a", metavar="A", help="the capture before (anything `kernelviz show` reads)")
    diff.add_argument("b", metavar="B", help="the capture after")
    diff.add_argument("-o", "--out", metavar="DIFF.html", help="write the self-contained HTML report here")
    diff.add_argument("--json", metavar="DIFF.json", help="write the diff (both captures inside) as JSON here")
    diff.add_argument("--labels", nargs=2, metavar=("A_LABEL", "B_LABEL"), help="names of the two sides in the report")
    whatif = sub.add_parser("whatif", help="measure what each candidate change would save on a capture's graphs",
                            description="Compile the capture's graphs again under each candidate change (CUDA "
                            "graphs, cpp_wrapper, TF32, max-autotune, ...)\nin the timing process, time them beside "
                            "the captured code, compare their outputs, and print the\nchanges best first with the "
                            "patch to apply.", formatter_class=raw)
    whatif.add_argument("path", help="the capture (anything `kernelviz show` reads; its graphs need their FX graphs)")
    whatif.add_argument("--budget", type=float, default=60.0, metavar="SECONDS",
                        help="start no new change after this long (default: 60)")
    whatif.add_argument("--only", nargs="+", metavar="KIND", choices=get_args(WhatIfKind),
                        help="these kinds of change only: " + ", ".join(get_args(WhatIfKind)))
    whatif.add_argument("-o", "--out", metavar="REPORT.html", help="write the self-contained HTML report here")
    whatif.add_argument("--json", metavar="CAPTURE.json", help="write the capture, its what-ifs in it, as JSON here")
    check_cli.register(sub)
    ab_cli.register(sub)
    run = sub.add_parser("run", help="run a Python script under a capture and write its report",
                         usage="kernelviz run [-o REPORT.html] [--json CAPTURE.json] [--bench] SCRIPT [ARGS ...]",
                         description=RUN_HELP, epilog=OUTPUTS, formatter_class=raw)
    run.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    run.add_argument("-o", "--out", metavar="REPORT.html",
                     help="the HTML report (default: SCRIPT's name with _kernelviz.html, here)")
    run.add_argument("--json", metavar="CAPTURE.json", help="the capture's JSON (default: the report's name, .json)")
    run.add_argument("--bench", action="store_true", help="time every launch and kernel after the script ends")
    demo = sub.add_parser("demo", help="capture a small training step on the CPU and write a report",
                          description=DEMO_HELP, formatter_class=raw)
    demo.add_argument("--out", default="kernelviz_report",
                      help="report path without suffix: .json (the capture) and .html (the report) are written")
    return parser


def split_run_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """``run``'s arguments: kernelviz's own (and the script) for argparse, and the script's arguments."""
    own: list[str] = []
    script_args: list[str] = []
    script_seen = False
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            rest = list(tokens)
            if not script_seen and rest:
                own += ["--", rest.pop(0)]
            script_args += rest
            break
        if token.split("=", 1)[0] in RUN_OPTIONS:
            own.append(token)
            value = next(tokens, None) if "=" not in token else None
            own += [value] if value is not None else []
        elif token in RUN_FLAGS or (not script_seen and token.startswith("-")):
            own.append(token)
        elif not script_seen:
            own.append(token)
            script_seen = True
        else:
            script_args.append(token)
    return own, script_args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args: list[str] = []
    if argv[:1] == ["run"]:
        own, script_args = split_run_args(argv[1:])
        argv = ["run", *own]
    elif argv[:1] == ["ab"]:
        argv, script_args = ab_cli.split(argv)
    args = _parser().parse_args(argv)
    from .model import CaptureError

    try:
        if args.command == "run":
            return _run(args, script_args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "show":
            return _show(args)
        if args.command == "whatif":
            return _whatif(args)
        if args.command == "check":
            return check_cli.run(args)
        if args.command == "ab":
            return ab_cli.run(args, script_args)
        return _demo(args)
    except (CaptureError, OSError) as exc:
        say(f"kernelviz: {_one_line(exc)}")
        return 2


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def read(path: str):
    """A :class:`Capture` (or, for a diff's .json, a :class:`Diff`; for the prefix of a job's rank files,
    a :class:`Ranks`) from ``path``; CaptureError names the file."""
    from . import load
    from .codec import loads
    from .compare import Diff
    from .model import Capture, CaptureError
    from .parse import EXPECTED as expected

    if not path:
        raise CaptureError("an empty path; give a file or folder to read")
    p = Path(path)
    if not p.exists():
        return load(p)  # a job's rank files, what cap.save(path) wrote, or one line naming what it reads
    try:
        if p.suffix == ".json" and p.is_file():
            text = p.read_text(encoding="utf-8")
            try:
                data = loads(text)
            except ValueError:
                return Capture.from_json(text)  # refuses it, saying where and why
            if isinstance(data, dict) and data.get("format") == "kernelviz-diff":
                return Diff.from_dict(data)
            return Capture.from_dict(data)  # names the field that is wrong
        return load(p)
    except UnicodeDecodeError:
        raise CaptureError(f"{path}: not UTF-8 text; {expected}") from None
    except (CaptureError, ValueError, TypeError, KeyError, AttributeError) as exc:
        message = _one_line(exc)
        if isinstance(exc, ValueError) and not isinstance(exc, CaptureError):
            message = f"not valid JSON ({message}); {expected}"
        elif not isinstance(exc, CaptureError):
            message = f"not a kernelviz capture ({type(exc).__name__}: {message}); {expected}"
        raise CaptureError(message if path in message else f"{path}: {message}") from None


def _show(args) -> int:
    from .compare import Diff
    from .model import Ranks
    from .views.diff_text import summary as diff_summary
    from .views.ranks_text import summary as ranks_summary
    from .views.text import summary

    start = Path.cwd()
    outputs = plan({"-o": args.out, "--json": args.json}, [args.path], start)
    obj = read(args.path)
    say(diff_summary(obj) if isinstance(obj, Diff) else ranks_summary(obj) if isinstance(obj, Ranks)
        else summary(obj), "stdout")
    return _written(obj, outputs, start)


def _whatif(args) -> int:
    from .model import Capture, CaptureError
    from .views.whatif_text import text_lines

    start = Path.cwd()
    outputs = plan({"-o": args.out, "--json": args.json}, [args.path], start)
    capture = read(args.path)
    if not isinstance(capture, Capture):
        raise CaptureError(f"{args.path}: not a capture; kernelviz whatif measures changes on one capture")
    capture.whatif(budget_s=args.budget, candidates=args.only)
    say("\n".join(text_lines(capture)), "stdout")
    return _written(capture, outputs, start)


def _diff(args) -> int:
    from .compare import Diff, diff, label
    from .model import CaptureError
    from .views.diff_text import summary

    start = Path.cwd()
    outputs = plan({"-o": args.out, "--json": args.json}, [args.a, args.b], start)
    a, b = read(args.a), read(args.b)
    for path, side in ((args.a, a), (args.b, b)):
        if isinstance(side, Diff):
            raise CaptureError(f"{path}: this is a kernelviz diff; kernelviz diff compares two captures")
    say("kernelviz: matching graphs and kernels ...")
    result = diff(a, b, labels=tuple(args.labels) if args.labels else (label(args.a), label(args.b)))
    say(summary(result), "stdout")
    return _written(result, outputs, start)


def _run(args, script_args: list[str]) -> int:
    from .run_script import run_script
    from .views.text import headline

    start, script = Path.cwd(), Path(args.script)
    if not script.is_file():
        say(f"kernelviz: {script}: no such script")
        return 2
    out = args.out or f"{script.stem}_kernelviz.html"
    outputs = plan({"-o": out, "--json": args.json or str(Path(out).with_suffix(".json"))}, [script], start)

    def finish(capture, failed) -> int:
        if failed is not None and args.bench:
            capture.warnings.append(f"not timed: the script did not finish ({failed})")
        say(headline(capture))
        written = _written(capture, outputs, start)
        return failed.status if failed is not None else written

    say(f"kernelviz: running {script} under a capture ...")
    return run_script(script, script_args, bench=args.bench, finish=finish)


def _demo(args) -> int:
    from .demo import run_demo
    from .views.text import summary

    start, out = Path.cwd(), Path(args.out)
    outputs = plan({"-o": str(out.with_suffix(".html")), "--json": str(out.with_suffix(".json"))}, [], start)
    say("kernelviz: compiling and capturing a training step on the CPU ...")
    capture = run_demo()
    say(summary(capture), "stdout")
    return _written(capture, outputs, start)


def _written(obj, outputs, start: Path) -> int:
    """Write ``obj``'s JSON (first: it holds everything) and HTML report; 0 when each is where it was named,
    else 2."""
    first_json = sorted(outputs, key=lambda output: output.option != "--json")
    return 0 if write(first_json, {"--json": obj.to_json, "-o": obj.to_html}, start) else 2


if __name__ == "__main__":
    sys.exit(main())
