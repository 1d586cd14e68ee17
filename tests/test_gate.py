"""kernelviz check and the kernelviz_gate fixture: real timed captures of a compiled CPU step, with a slowdown
planted in one kernel (tests/gate_steps.py); a real graph with the times separate processes would give it;
structural regressions from real pairs of captures (tests/fixtures/diff-cpu-torch2.13) and from captures edited
where nothing compiles them (graph breaks, recompiles, spills, another device); bad inputs; the plugin in a
pytester run (its baseline made by pytest processes of its own). Per-process captures of a real training step:
tests/test_gate_processes.py.

One thread per kernel: on the 2 cores that several engineers share here, a kernel's OpenMP threads would be
preempted by the others' work for whole scheduler slices."""

import copy
import importlib.metadata
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

import kernelviz
from conftest import FIXTURES
from gate_steps import CHAIN, compiled_step
from kernelviz.__main__ import main
from kernelviz.gate import check
from kernelviz.gate.repeat import merged, timed_capture
from kernelviz.model import DynamoEvent

pytest_plugins = ["pytester"]
PAIRS = FIXTURES / "diff-cpu-torch2.13"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def timed():
    """(baseline, unchanged, slowed): timed captures of the step, 3 captures behind each, all of this one process
    (so one process a side: the check assumes the noise between processes, and the slowed kernel does 3 times the
    work). Dynamo starts afresh, so that the slowed step (the same function, a longer chain) is its one recompile
    whatever ran before."""
    import torch

    torch._dynamo.reset()
    base, slow = compiled_step(CHAIN), compiled_step(3 * CHAIN)
    return timed_capture(base), timed_capture(base), timed_capture(slow)


def fixture_pair(a: str, b: str):
    return kernelviz.load(PAIRS / f"{a}.json"), kernelviz.load(PAIRS / f"{b}.json")


def test_a_slowdown_is_one_line_naming_graph_launch_and_the_users_line(timed):
    base, same, slow = timed
    assert not check(base, same).failed
    verdict = check(base, slow)
    launch = next(r for r in verdict.reasons if r.check == "launch time")
    fused = next(x for x in slow.graphs[0].launches if x.kernel_name and "sin" in x.kernel_name)
    assert launch.graph == slow.graphs[0].id and launch.launch.startswith(f"#{fused.index} ")
    assert "sin" in launch.launch and "\n" not in launch.line()
    assert launch.change.startswith("alone: ") and "threshold 5%" in launch.change
    first = slow.graphs[0].kernel(fused.kernel_name).locations[0]  # the kernel's lines, in the step
    assert launch.where.startswith(f"{first.where()}  `{first.code.strip()}` (and ")
    assert first.file.endswith("gate_steps.py")
    # the slowed step is the same function with a longer chain: dynamo recompiled it, and that is said too
    assert {"launch time", "recompile"} <= {r.check for r in verdict.reasons} <= {"launch time", "graph time",
                                                                                  "step time", "recompile"}
    [recompile] = [r for r in verdict.reasons if r.check == "recompile"]
    assert "gate_steps.py:" in recompile.where and not check(same, base).failed
    high = check(base, slow, slower="1000%")  # above the threshold: only the recompile is left
    assert [r.check for r in high.reasons] == ["recompile"]


def _processes(cap, times: list[list[float]]):
    """``cap`` timed on a GPU as each process of ``times`` timed it (per process: each launch's in-graph ms), the
    captures merged as captures of separate processes."""
    captures = []
    for ms in times:
        c = copy.deepcopy(cap)
        for launch, t in zip(c.graphs[0].launches, ms):
            launch.timing = kernelviz.model.LaunchTiming(in_graph_ms=t, unit="gpu")
        captures.append(c)
    return merged(captures) if len(captures) > 1 else captures[0]


def test_a_launch_fails_beyond_the_noise_between_processes_and_by_a_real_part_of_the_step():
    """The noise is the spread between the baseline's processes; a launch fails alone only where it grew by 0.5%
    of the step and 2 µs on a GPU at least; one process a side assumes the noise and says what it can see."""
    cap = kernelviz.load(PAIRS / "mlp_gelu.json")
    n = len(cap.graphs[0].launches)
    ones = [1.0] * n
    tight = _processes(cap, [ones, [1.02] * n, [0.98] * n])  # launches 1 ms ±2% between processes
    grown = [1.0, 1.1] + [1.0] * (n - 2)  # launch #1 +10%: 0.1 ms, 1/n of a step of n ms
    [reason] = check(tight, _processes(cap, [grown])).reasons
    assert reason.line().startswith(f"launch time: graph {cap.graphs[0].id}; launch #1 gelu _0; in the graph: 1 → "
                                    "1.1 ms (+10.0%; threshold 5%, noise ±8.2% over 3 + 1 processes); at ")
    wide = _processes(cap, [ones, [1.2] * n, [0.8] * n])
    within = check(wide, _processes(cap, [grown]))
    assert not within.failed and any(note.startswith("within the noise, not failed: launch time: graph ")
                                     for note in within.notes)
    one = check(_processes(cap, [ones]), _processes(cap, [grown]))  # one process a side: ±3% assumed on a GPU
    assert not one.failed and one.notes[0] == (
        f"smallest change this check can see: the step {n} ms +{0.09 * 2 ** 0.5 * n:.4g} ms (+12.7%), a launch "
        f"+{max(0.005 * n, 0.002):.4g} ms beyond its own noise; one process a side: the noise between processes "
        "unknown, taken as ±3% (give several captures a side to see less)")
    small = [0.001] + [1.0] * (n - 1)  # a launch of 1 µs ...
    tiny = _processes(cap, [small, [0.00102] + [1.02] * (n - 1), [0.00098] + [0.98] * (n - 1)])
    doubled = _processes(cap, [[0.002] + [1.0] * (n - 1)])  # ... twice as long: 1 µs more, far beyond its noise
    verdict = check(tiny, doubled)
    under = f"under {max(0.005 * (n - 1), 0.002):.4g} ms (0.5% of the step), not failed alone: launch time: "
    assert not verdict.failed and any(note.startswith(under) for note in verdict.notes)


def test_a_plain_call_fails_only_where_its_launches_account_for_it():
    """A graph whose device waits for the CPU is timed by its plain call(), which moves with the machine's load:
    its growth fails where the launches that grew account for a quarter of it, naming them."""
    cap = kernelviz.load(PAIRS / "mlp_gelu.json")
    n = len(cap.graphs[0].launches)
    base = [_processes(cap, [[1.0] * n]) for _ in range(3)]
    slower = [_processes(cap, [[1.0] * n]), _processes(cap, [[1.0, 3.0] + [1.0] * (n - 2)])]
    for side, plain in ((base, (10.0, 10.2, 9.8)), (slower, (14.0, 14.0))):
        for c, ms in zip(side, plain):
            c.graphs[0].as_run = kernelviz.model.AsRun("gpu", ms, runs=20, spread=0.01, kernels_ms=float(n))
    a = merged(base)
    load_only = check(a, slower[0])  # +40% with no launch grown: the machine
    assert not load_only.failed and any(note.startswith("not failed: launches that grew account for under 25% of "
                                                        "it") for note in load_only.notes)
    [graph, launch] = check(a, slower[1]).reasons
    assert graph.line().startswith(f"graph time: graph {cap.graphs[0].id}; 10 → 14 ms (+40.0%; threshold 5%, noise "
                                   "±") and "; mostly launch #1 gelu _0 (+2 ms); at " in graph.line()
    assert launch.check == "launch time"


def test_a_launch_is_judged_at_the_baseline_machines_speed():
    """A current process that ran every launch 20% slower (a loaded machine, other clocks) fails the graph's time,
    never each launch alone; a launch 60% slower on that machine stands out of it, fails alone, and says so."""
    cap = kernelviz.load(PAIRS / "gpt_2.json")
    n = len(cap.graphs[0].launches)
    base = _processes(cap, [[1.0] * n, [1.02] * n, [0.98] * n])
    loaded = check(base, _processes(cap, [[1.2] * n]))
    assert [r.check for r in loaded.reasons] == ["graph time"], loaded.lines()
    assert "no launch timed alone or in the graph grew by 10% of it" in loaded.reasons[0].change
    one = [1.2] * n
    one[3] = 1.2 * 1.6
    [launch] = [r for r in check(base, _processes(cap, [one])).reasons if r.check == "launch time"]
    assert launch.launch.startswith("#3 ")
    assert launch.change.startswith("in the graph (1.92 ms as measured; every unchanged launch ran +20.0% in this "
                                    "process, the machine's speed, taken out): 1 → 1.6 ms (+60.0%; ")


def test_added_launches_and_a_lost_fusion_fail_untimed_captures_too():
    verdict = check(*fixture_pair("gpt_2", "gpt_3"))
    added = [r for r in verdict.reasons if r.check == "added launches"]
    assert len(added) == 11 and verdict.failed and all(r.launch.startswith("#") for r in added)
    assert verdict.notes == ["times not compared: the baseline and the current capture not timed"]
    [lost] = check(*fixture_pair("mlp_autotune", "mlp_frozen")).reasons  # max-autotune's GEMM epilogue unfused
    assert lost.check == "lost fusion" and "addmm" in lost.change and " + " in lost.launch
    assert not check(*fixture_pair("mlp_frozen", "mlp_autotune")).failed  # a fusion gained passes
    assert not check(*fixture_pair("gpt_3", "gpt_2")).failed  # launches removed pass
    a, b = fixture_pair("mlp_gelu", "mlp_gelu")
    new = kernelviz.load(PAIRS / "gpt_2.json").graphs[0]  # a graph the baseline lacks (a graph break's, say)
    new.id = "1_inference"
    b.graphs.append(new)
    [graph] = check(a, b).reasons
    assert graph.line() == (f"added launches: graph 1_inference; a new graph of 23 launch(es), not in the baseline; "
                            f"at {new.caller.where()}  `{new.caller.code}`")


def test_new_graph_breaks_recompiles_and_spills_fail(timed):
    base = timed[0]
    current = copy.deepcopy(base)
    event = dict(file="train.py", line=12, function="step", code="if x.sum() > 0:")
    current.dynamo += [DynamoEvent("graph_break", "data dependent\noperator", **event),
                       DynamoEvent("recompile", "size of x changed", file="train.py", line=30, code="y = f(x)")]
    kernel = next(k for k in current.graphs[0].kernels if "sin" in k.name)
    kernel.timing.num_spills = 3
    lines = [r.line() for r in check(base, current).reasons]
    assert lines == [
        f"spills: graph {base.graphs[0].id}; launch {next(r.launch for r in check(base, current).reasons)}; "
        f"3 register spill(s), the baseline none; at {lines[0].split('; at ')[1]}",
        "graph break: data dependent operator; at train.py:12  `if x.sum() > 0:`",
        "recompile: size of x changed; at train.py:30  `y = f(x)`"]
    base_with = copy.deepcopy(base)
    base_with.dynamo = list(current.dynamo)  # the same break in the baseline: not new
    assert [r.check for r in check(base_with, current).reasons] == ["spills"]


def test_another_device_compares_structure_not_times(timed):
    base, _, slow = timed
    elsewhere = copy.deepcopy(slow)
    elsewhere.device_name = "NVIDIA H100 80GB HBM3"
    verdict = check(base, elsewhere)
    assert [r.check for r in verdict.reasons] == ["recompile"]  # no time compared; the structure still is
    assert verdict.notes == ["times not compared: the baseline ran on cpu, the current capture on NVIDIA H100 80GB "
                             "HBM3"]


def test_cli_exit_status_lines_and_reports(timed, tmp_path, capsys, monkeypatch):
    base, same, slow = timed
    for name, cap in (("base", base), ("same", same), ("slow", slow)):
        cap.save(tmp_path / f"{name}.json")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["check", str(tmp_path / "base.json"), str(tmp_path / "same.json")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "kernelviz check: passed"
    reports = [tmp_path / "out" / n for n in ("check.md", "check.xml", "diff.html")]
    assert main(["check", str(tmp_path / "base.json"), str(tmp_path / "slow.json"), "--slower", "5%",
                 "--markdown", str(reports[0]), "--junit", str(reports[1]), "--html", str(reports[2])]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("kernelviz check: FAILED") and any(x.startswith("launch time: graph ") for x in out)
    md = reports[0].read_text()
    assert md.startswith("### kernelviz check: ❌ failed") and "| launch time |" in md
    assert summary.read_text().startswith("earlier step\n### kernelviz check: ✅ passed") and md in summary.read_text()
    suite = ET.parse(reports[1]).getroot().find("testsuite")
    failed = {c.get("name"): c.find("failure") for c in suite.iter("testcase")}
    assert failed["launch time"] is not None and failed["spills"] is None and suite.get("tests") == "8"
    assert "<html" in reports[2].read_text()[:200].lower()


@pytest.mark.parametrize("args, message", [
    (["missing.json", "base.json"], "missing.json: no such file"),
    (["notjson.json", "base.json"], "notjson.json"),
    (["base.json", "base.json", "--slower", "fast"], "--slower 'fast': expected a percentage"),
    (["base.json", "base.json", "--slower=-5%"], "expected a percentage above 0"),
    (["base.json", "other.json", "--junit", "other.json"], "--junit other.json: that is an input"),
    (["base.json", "other.json", "--markdown", "r.md", "--junit", "r.md"], "name one file"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    capture = (PAIRS / "mlp_gelu.json").read_text()
    Path("base.json").write_text(capture)
    Path("other.json").write_text(capture)
    Path("notjson.json").write_text("{not json")
    assert main(["check", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert Path("other.json").read_text() == capture and not Path("r.md").exists()


def test_the_plugin_is_an_entry_point_and_gates_a_test(pytester, monkeypatch, timed):
    """In pytester's in-process runs (``timed``: the compiler is loaded here already, as they need: modules a run
    imports are unloaded after it)."""
    pyproject = (ROOT / "pyproject.toml").read_text()  # (tomllib is 3.11's; kernelviz runs on 3.10)
    assert '[project.entry-points.pytest11]\nkernelviz = "kernelviz.pytest_plugin"\n' in pyproject
    installed = any(e.value == "kernelviz.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "kernelviz.pytest_plugin"]
    pytester.makeini("[pytest]\nkernelviz_repeat = 2\nkernelviz_processes = 2\nkernelviz_slower = 20%\n")
    pytester.makepyfile(test_step="""
        import os, pytest, torch
        CHAIN = int(os.environ.get("CHAIN", "1"))
        def step(x):
            for _ in range(CHAIN):
                x = torch.sin(x) * 1.01
            return x.sum()
        f, x = torch.compile(step), torch.randn(1 << 16)
        @pytest.mark.parametrize("scale", [1.5])  # the files are named test_step_1.5_.json, ...
        def test_step(kernelviz_gate, scale):
            verdict = kernelviz_gate.check(lambda: f(x))
            assert verdict is None or not verdict.failed
    """)
    first = pytester.runpytest(*plugin)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*kernelviz: no baseline: wrote *kernelviz_baselines/test_step_1.5_.json from 2 "
                                "processes; review and commit it*"])
    assert "torch.__trace" not in first.stdout.str()  # no empty trace records in the failure's captured log
    baseline = pytester.path / "kernelviz_baselines" / "test_step_1.5_.json"
    before = baseline.read_text()
    pytester.runpytest(*plugin).assert_outcomes(passed=1)
    assert {p.name for p in baseline.parent.iterdir()} == {baseline.name, "test_step_1.5_.current.json",
                                                           "test_step_1.5_.diff.html"}
    monkeypatch.setenv("CHAIN", "3")  # a longer chain in the one kernel: 3 times the work
    slowed = pytester.runpytest(*plugin, "--kernelviz-slower", "25%")
    slowed.assert_outcomes(failed=1)
    slowed.stdout.fnmatch_lines(["*launch time: graph *; launch #0 mul · sin*; alone: *threshold 25%*",
                                 "*kernelviz check: FAILED*"])
    assert baseline.read_text() == before  # a failure never rewrites the baseline
    pytester.runpytest(*plugin, "--kernelviz-update").assert_outcomes(passed=1)
    assert json.loads(baseline.read_text()) != json.loads(before)
    bad = pytester.runpytest(*plugin, "--kernelviz-repeat", "0")
    bad.assert_outcomes(errors=1)
    bad.stdout.fnmatch_lines(["*UsageError: kernelviz_repeat: 0: expected a number of captures, 1 or more*"])


def test_the_diff_headline_agrees_with_its_own_times(timed):
    """Launches the same, their time 2.4 times as long: the headline says both, with the figures it shows."""
    base = timed[0]
    slower = copy.deepcopy(base)
    for launch in slower.launches:
        launch.timing.in_graph_ms *= 2.4
    d = kernelviz.diff(base, slower)
    total = d.headline.measures[0]
    assert total.name == "time of launches" and total.b == pytest.approx(2.4 * total.a)
    assert d.headline.summary == f"the same launches; time of launches {total.a:.4g} → {total.b:.4g} ms (+140.0%)"
    assert f"What changed:</b> {d.headline.summary}" in d.to_html()
    assert kernelviz.diff(base, copy.deepcopy(base)).headline.summary == "no launch changed"
