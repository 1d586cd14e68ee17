"""``kernelviz ab BASE CURRENT -- SCRIPT [ARGS]``: the baseline's code and the current code, each in its own
checkout, run alternately in separate processes of one job, then checked one against the other.

A stored baseline was timed on another machine or another day; an A/B run times both sides on this machine now,
so that what differs between them is the code. Each round runs SCRIPT once per side (``kernelviz run --bench``:
its own process, its capture written to ``--out``), A then B, and B then A in the next round, so that a drift of
the machine over the job falls on both sides alike. The check then compares the rounds' captures of A with those
of B as captures of separate processes (:func:`kernelviz.gate.check`): their spread is the noise.

A side's checkout is first on ``PYTHONPATH`` and its working directory, so that SCRIPT (a path relative to each
checkout) imports that side's code; kernelviz itself is the one running this command.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ..children import child_environment
from ..model import CaptureError
from . import cli

HELP = """\
Run SCRIPT (a path inside each checkout) under kernelviz run --bench, alternately in BASE's checkout and in
CURRENT's, each run its own process (A B, then B A, ...), ROUNDS times a side; then check the current side's
captures against the baseline's, as kernelviz check does with several captures a side (their spread between
processes is the noise). For CI where a stored baseline cannot be trusted (another machine, another day): make
the baseline's checkout in the job (git worktree add ../base origin/main).
exit status: 0 passed, 1 regressed, 2 bad input or a run that made no capture (one line on stderr)

examples:
  git worktree add ../base origin/main
  kernelviz ab ../base . -- bench/step.py --steps 3
  kernelviz ab ../base . --rounds 5 --out ab/ --junit ab/check.xml --html ab/diff.html -- bench/step.py
"""


def register(sub) -> None:
    """Add the ``ab`` subcommand to the CLI's subparsers."""
    ab = sub.add_parser("ab", help="run the baseline's and the current code alternately, each run its own "
                        "process, and check one against the other (for CI)", description=HELP,
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        usage="kernelviz ab BASE CURRENT [options] -- SCRIPT [ARGS ...]")
    ab.add_argument("base", metavar="BASE", help="the baseline's checkout (a folder)")
    ab.add_argument("current", metavar="CURRENT", help="the current checkout (a folder)")
    ab.add_argument("--rounds", type=int, default=3, metavar="N", help="runs a side (default 3)")
    ab.add_argument("--out", default="kernelviz_ab", metavar="DIR",
                    help="where each run's capture is written (default kernelviz_ab/)")
    cli.add_report_options(ab)


def split(argv: list[str]) -> tuple[list[str], list[str]]:
    """``ab``'s own arguments, and SCRIPT with its arguments (everything after the first ``--``)."""
    if "--" not in argv:
        return argv, []
    at = argv.index("--")
    return argv[:at], argv[at + 1:]


def run(args, script: list[str]) -> int:
    """The subcommand: the rounds run, then the check; its exit status."""
    sides = [Path(args.base), Path(args.current)]
    for side in sides:
        if not side.is_dir():
            raise CaptureError(f"{side}: not a folder; give the baseline's and the current checkout")
    if not script or not all((side / script[0]).is_file() for side in sides):
        raise CaptureError(f"{script[0] if script else 'SCRIPT'}: give a script that both checkouts hold, "
                           "after --")
    if args.rounds < 2:
        raise CaptureError(f"--rounds {args.rounds}: expected 2 or more (their spread is the noise)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    made: dict[str, list[Path]] = {"a": [], "b": []}
    for r in range(args.rounds):
        for name, side in (("a", sides[0]), ("b", sides[1]))[::1 if r % 2 == 0 else -1]:
            capture = (out / f"{name}{r + 1}.json").resolve()
            print(f"kernelviz ab: round {r + 1}/{args.rounds}, {'baseline' if name == 'a' else 'current'} "
                  f"({side}) ...", file=sys.stderr, flush=True)
            status = subprocess.run(_command(capture, script), cwd=side, env=_env(side)).returncode
            if not capture.exists():
                raise CaptureError(f"{side / script[0]} made no capture (exit status {status}) in round {r + 1}")
            made[name].append(capture)
    args.baseline, args.current, args.sides = [str(p) for p in made["a"]], [str(p) for p in made["b"]], []
    return cli.run(args)


def _command(capture: Path, script: list[str]) -> list[str]:
    return [sys.executable, "-m", "kernelviz", "run", "--bench", "--json", str(capture), "-o",
            str(capture.with_suffix(".html")), *script]


def _env(side: Path) -> dict[str, str]:
    """A child's environment (this kernelviz importable) with the side's checkout first on the path."""
    env = child_environment()
    env["PYTHONPATH"] = os.pathsep.join([str(side.resolve()), env["PYTHONPATH"]])
    return env
