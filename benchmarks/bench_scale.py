"""Scale figures: a 2,002-kernel capture built from real output code, and the fuzz counts.

    python benchmarks/bench_scale.py [--graphs 154] [--repeats 5] [--no-fuzz]

The capture is the H100 resnet18 module (148 KB, 13 kernels, 39 launches) repeated as a TORCH_LOGS log of
154 modules, each with its own AOT ID and its kernels renamed, so that every kernel source differs (no cache
helps). Printed: ``load`` of the log, the JSON round trip, and what a notebook saves (the display's static
bundle: the compressed panel data, the HTML report without kernel sources, the text summary) against the
output code it shows, for the big capture and for the one resnet18 graph; then how many inputs each fuzz
test of tests/test_fuzz.py saw and how they ended. Times are the best of ``--repeats`` (CPU time of this
process, so that other work on the machine counts less; the shared 2-core machine's speed still varies by up to
2x from minute to minute), targets in brackets.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESNET = ROOT / "tests" / "fixtures" / "cuda-h100-torch2.11" / "resnet18_0.py"
_KERNEL_NAME = re.compile(r"\b((?:triton|cpp)_\w+?_\d+)\b")


def scale_log(graphs: int) -> str:
    """``graphs`` copies of the resnet18 module, as one log: AOT IDs 0..n-1, kernel names suffixed ``_g<i>``."""
    text = RESNET.read_text()
    return "".join(_KERNEL_NAME.sub(rf"\1_g{i}", text.replace("['8_inference']", f"['{i}_inference']"))
                   for i in range(graphs))


def best(fn, repeats: int):
    """(least CPU seconds over ``repeats`` calls, the last result)."""
    least, result = float("inf"), None
    for _ in range(repeats):
        result = None  # the last call's result is freed outside the timed part
        start = time.process_time()
        result = fn()
        least = min(least, time.process_time() - start)
    return least, result


def saved_size(capture) -> tuple[dict[str, int], float]:
    """Bytes of each part of the static bundle as a notebook stores it (JSON), and the seconds to build it."""
    from kernelviz.notebook.display import static_bundle

    start = time.process_time()
    bundle = static_bundle(capture)
    seconds = time.process_time() - start
    return {mime: len(json.dumps(value)) for mime, value in bundle.items()}, seconds


def report_saved(label: str, capture) -> None:
    code = sum(len(g.code.encode()) for g in capture.graphs)
    parts, seconds = saved_size(capture)
    total = sum(parts.values())
    detail = ", ".join(f"{mime} {size / 1e6:.2f} MB" for mime, size in parts.items())
    print(f"saved output, {label}: {total / 1e6:.2f} MB for {code / 1e6:.2f} MB of output code = {total / code:.2f}x "
          f"[<= 1.5x] ({detail}; built in {seconds:.1f} s)")


def fuzz() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import test_fuzz

    for test in (test_fuzz.test_load_of_mutated_output_code_gives_a_capture_or_a_parse_error,
                 test_fuzz.test_from_json_of_mutated_captures_gives_a_capture_or_a_capture_error):
        start = time.perf_counter()
        test()
        print(f"fuzz: {test.__name__}: {time.perf_counter() - start:.1f} s wall")
    seen = test_fuzz.SEEN
    print(f"fuzz: load saw {seen['load']} mutated modules ({seen['load: ParseError']} refused with ParseError, the "
          f"rest loaded, round-tripped and rendered); from_json saw {seen['from_json']} mutated captures "
          f"({seen['from_json: CaptureError']} refused with CaptureError); {seen['load'] + seen['from_json']} in all "
          f"[>= 2000]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", type=int, default=154)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-fuzz", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import kernelviz
    from kernelviz.model import Capture

    log = scale_log(args.graphs)
    kernelviz.load(RESNET)  # imports and regex caches
    seconds, capture = best(lambda: kernelviz.load(log), args.repeats)
    size = len(log.encode())
    print(f"capture: {len(capture.graphs)} graphs, {len(capture.kernels)} kernels, {len(capture.launches)} launches, "
          f"{size / 1e6:.1f} MB of output code")
    print(f"load: {seconds:.2f} s [<= 1 s] = {seconds * 1e3 / (size / 102400):.1f} ms per 100 KB")
    to_json, text = best(capture.to_json, args.repeats)
    from_json, again = best(lambda: Capture.from_json(text), args.repeats)
    assert again == capture
    print(f"JSON round trip: {to_json + from_json:.2f} s [<= 1 s] (to_json {to_json:.2f} s, "
          f"from_json {from_json:.2f} s, {len(text) / 1e6:.1f} MB)")
    report_saved(f"{len(capture.graphs)} graphs", capture)
    report_saved("one resnet18 graph", kernelviz.load(RESNET))
    if not args.no_fuzz:
        fuzz()


if __name__ == "__main__":
    main()
