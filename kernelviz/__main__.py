"""Command line: ``kernelviz demo`` runs a demo capture on CPU; ``kernelviz show FILE`` reads saved code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernelviz", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="capture a small training step on the CPU and write a report")
    demo.add_argument("--out", default="kernelviz_report",
                      help="report path without suffix: .json (the capture) and .html (the report) are written")
    show = sub.add_parser("show", help="summarise saved Inductor output code (file, directory) or a capture .json")
    show.add_argument("path")
    show.add_argument("--json", metavar="OUT", help="also write the capture as JSON here (and the report as .html)")
    args = parser.parse_args(argv)

    from . import CaptureError, load
    from .views.text import summary

    try:
        if args.command == "demo":
            from .demo import run_demo

            print("kernelviz: compiling and capturing a training step on the CPU ...", file=sys.stderr, flush=True)
            capture, out = run_demo(), Path(args.out)
        else:
            path = Path(args.path)
            capture = load(path)
            out = Path(args.json).with_suffix("") if args.json else None
    except (CaptureError, OSError, ValueError) as exc:
        print(f"kernelviz: {exc}", file=sys.stderr)
        return 2
    print(summary(capture))
    if out is not None:
        out.with_suffix(".json").write_text(capture.to_json())
        capture.save_html(str(out.with_suffix(".html")))
        print(f"\nwrote {out.with_suffix('.json')} and {out.with_suffix('.html')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
