"""sha256 of what every view makes of every capture fixture: the model's JSON, the saved and the live payload,
the HTML report and the text summary; with ``--payload-free`` the payloads' ``view`` annex is left out of their
hash (for a change that adds display data to the annex and nothing else). Run before and after a change that
must not change behaviour, and compare the lines: ``python benchmarks/view_hashes.py > before.txt``."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("COLUMNS", "120")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kernelviz  # noqa: E402
from kernelviz.views import payload as views_payload  # noqa: E402
from kernelviz.views.html import report  # noqa: E402
from kernelviz.views.text import summary  # noqa: E402


def sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text).hexdigest()[:16]


def fixtures() -> list[Path]:
    base = ROOT / "tests" / "fixtures"
    found = sorted(p for p in base.rglob("*") if p.suffix in (".py", ".json", ".code") and p.is_file())
    return [p for p in found if "counters" not in p.parts or p.suffix == ".json"]


def main() -> None:
    payload_free = "--payload-free" in sys.argv
    for path in fixtures():
        try:
            cap = kernelviz.load(path)
        except Exception as exc:  # noqa: BLE001 - a fixture that is not a capture says so
            print(f"{path.relative_to(ROOT)} not-a-capture {type(exc).__name__}")
            continue
        if not isinstance(cap, kernelviz.Capture):
            print(f"{path.relative_to(ROOT)} {type(cap).__name__} json={sha(cap.to_json())}")
            continue
        data = views_payload.payload(cap)
        live = views_payload.live(data)
        if payload_free:
            data, live = ({k: v for k, v in d.items() if k != "view"} for d in (data, live))
        saved = views_payload.pack(data)["data"]
        print(f"{path.relative_to(ROOT)} json={sha(cap.to_json())} saved={sha(saved)} "
              f"live={sha(json.dumps(live, sort_keys=True))} html={sha(report(cap))} text={sha(summary(cap))}")


if __name__ == "__main__":
    main()
