"""The gate as CI sees it: every capture made by its own process (tests/gate_models.py: the CNN training step,
unchanged, with its activation's kernel slower, and with a fusion lost), checked with the noise between processes,
through the API and the CLI. Five processes of a few seconds each; the counts over many pairs are
benchmarks/bench_gate.py --processes's."""

import subprocess
import sys
from pathlib import Path

import pytest

from kernelviz.__main__ import main
from kernelviz.gate import check

ROOT = Path(__file__).resolve().parents[1]
CHAINS = "4,6"  # the slowed kernel: 2 more sin · mul pairs of 4 (its time measured +40% or more here)


def _capture(folder: Path, variant: str, k: int) -> Path:
    out = folder / f"{variant}{k}.json"
    subprocess.run([sys.executable, str(ROOT / "tests" / "gate_models.py"), "cnn", variant, str(out), "--chain",
                    CHAINS], cwd=ROOT, check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(three unchanged processes, one with the slower kernel, one with the lost fusion)"""
    folder = tmp_path_factory.mktemp("processes")
    return [_capture(folder, "base", k) for k in range(3)], _capture(folder, "slow", 0), \
        _capture(folder, "unfused", 0)


def test_unchanged_passes_and_says_the_smallest_change_it_sees(runs):
    base, _, _ = runs
    same = check(base[:2], base[2])
    assert not same.failed, same.lines()
    smallest = same.notes[0]
    assert smallest.startswith("smallest change this check can see: the step ") and \
        smallest.endswith("the noise measured across 2 + 1 processes")
    one = check(base[0], base[2])  # one capture a side: the noise between processes assumed, and said
    assert one.notes[0].endswith("one process a side: the noise between processes unknown, taken as ±8% (give "
                                 "several captures a side to see less)")


def test_a_slower_kernel_fails_alone_named_with_its_line(runs):
    base, slow, _ = runs
    verdict = check(base[:2], slow)
    [reason] = [r for r in verdict.reasons if r.check == "launch time"]
    [slowed] = [x for x in verdict.diff.b.graphs[0].launches if x.kernel_name and "sin" in x.kernel_name]
    assert reason.launch.startswith(f"#{slowed.index} ") and "gelu" in reason.launch  # (its long name is cut)
    assert "over 2 + 1 processes" in reason.change
    assert "gate_models.py:" in reason.where and verdict.failed


def test_a_lost_fusion_fails_naming_the_launches(runs):
    base, _, unfused = runs
    verdict = check(base[:2], unfused)
    added = [r for r in verdict.reasons if r.check in ("added launches", "lost fusion")]
    assert any("barrier" in r.launch for r in added), verdict.lines()


def test_the_cli_takes_several_captures_a_side(runs, capsys):
    base, slow, _ = runs
    assert main(["check", "--baseline", str(base[0]), str(base[1]), "--current", str(base[2])]) == 0
    assert main(["check", "--baseline", str(base[0]), str(base[1]), "--current", str(slow)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("launch time: graph 0_forward; launch #") for line in out)
    assert out[-1].startswith("kernelviz check: FAILED, ")
    folder = base[0].parent
    assert main(["check", str(folder / "nowhere"), str(slow)]) == 2
    assert main(["check", str(base[0])]) == 2
    err = capsys.readouterr().err
    assert "1 paths given; expected two, BASELINE CURRENT" in err
