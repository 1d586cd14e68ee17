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
CHAINS = "4,10"  # the slowed kernel: 6 more sin · mul pairs of 4 (more than twice its time: a test under a loaded
# machine's noise; the 20% the issue asks for is benchmarks/bench_gate.py's count)


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


STEP = "import torch\nfrom work import f\ng = torch.compile(f)\nx = torch.randn(64, 64)\ng(x)\ng(x)\n"
WORK = {"base": "def f(x):\n    return x.sin().sum(1)\n",
        "current": "import torch\ndef f(x):\n    return (x.sin() + torch.cumsum(x, 1)).sum(1)\n"}


def test_ab_runs_both_checkouts_alternately_and_checks_them(tmp_path, capsys, monkeypatch):
    """Two checkouts of a script whose imported code differs (the current one adds a cumsum): each round runs
    both, each run its own process under kernelviz run --bench, the order alternating; the current side fails
    naming the added launch and the line of the script that ran it."""
    for side, work in WORK.items():
        (tmp_path / side).mkdir()
        (tmp_path / side / "step.py").write_text(STEP)
        (tmp_path / side / "work.py").write_text(work)
    monkeypatch.chdir(tmp_path)
    status = main(["ab", "base", "current", "--rounds", "2", "--out", "ab", "--junit", "ab/check.xml", "--",
                   "step.py"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    rounds = [line for line in err.splitlines() if line.startswith("kernelviz ab: round ")]
    assert rounds == ["kernelviz ab: round 1/2, baseline (base) ...", "kernelviz ab: round 1/2, current (current) ...",
                      "kernelviz ab: round 2/2, current (current) ...", "kernelviz ab: round 2/2, baseline (base) ..."]
    assert {p.name for p in (tmp_path / "ab").glob("*.json")} == {"a1.json", "a2.json", "b1.json", "b2.json"}
    lines = out.splitlines()
    assert any(line.startswith("added launches: graph 0_inference; launch #") and "cumsum" in line and
               "step.py:5" in line for line in lines), out
    assert "across 2 + 2 processes" in lines[0] and (tmp_path / "ab" / "check.xml").is_file()
    assert main(["ab", "base", "current", "--", "missing.py"]) == 2
    assert "missing.py: give a script that both checkouts hold, after --" in capsys.readouterr().err
