"""The command line: diff, show (output code, TORCH_COMPILE_DEBUG folder, TORCH_LOGS and TORCH_TRACE logs,
capture and diff JSON), run (a script as python runs it, under a capture), exit codes and one-line errors."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.__main__ import main, split_run_args
from kernelviz.compare import Diff

PAIRS = FIXTURES / "pairs-h100-torch2.11"
ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """\
import sys
import torch

def f(x):
    return torch.relu(x) * 2 + x.sum(dim=1, keepdim=True)

y = torch.compile(f)(torch.randn(16, 32))
print("ran", __name__, sys.argv[1:], sys.path[0])
if sys.argv[1:2] == ["raise"]:
    def fail(what):
        raise KeyError(what)
    fail(sys.argv[2])
if sys.argv[1:2] == ["exit"]:
    sys.exit(int(sys.argv[2]))
"""


def kernelviz_cli(*args, cwd, env=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "kernelviz", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """One real run: a script compiled on the CPU under `kernelviz run`, with Inductor's own debug folder
    and output-code log written by the same process."""
    work = tmp_path_factory.mktemp("run")
    (work / "script.py").write_text(SCRIPT)
    # A cache of its own: on an FX-cache hit Inductor writes no output code into its debug folder.
    proc = kernelviz_cli("run", "script.py", "a1", "-o", "out/report.html", "--bench", "--", "-o", "x", cwd=work,
                         env={"TORCH_COMPILE_DEBUG": "1", "TORCH_LOGS": "output_code",
                              "TORCHINDUCTOR_CACHE_DIR": str(work / "inductor-cache")})
    return work, proc


def test_run_writes_report_and_capture_and_runs_the_script_as_python_would(ran):
    work, proc = ran
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"ran __main__ ['a1', '-o', 'x'] {work}" in proc.stdout
    cap = kernelviz.load(work / "out" / "report.json")
    assert len(cap.graphs) == 1 and cap.kernels and cap.kernels[0].original_aten
    assert cap.graphs[0].timed_on == "user tensors" and all(x.timing.unit == "cpu" for x in cap.launches)
    assert cap.kernels[0].name in (work / "out" / "report.html").read_text()
    assert "kernelviz: wrote out/report.html" in proc.stderr


def test_show_reads_the_debug_folder_and_both_logs_of_the_same_run(ran, capsys):
    work, proc = ran
    kernels = sorted(k.name for k in kernelviz.load(work / "out" / "report.json").kernels)
    (work / "output_code.log").write_text(proc.stderr)
    traces = list((work / "torch_compile_debug").rglob("*.log"))
    sources = [work / "torch_compile_debug", work / "output_code.log",
               next(p for p in traces if "inductor_output_code" in p.read_text())]
    for source in sources:
        assert main(["show", str(source), "--json", str(work / "again.json")]) == 0, source
        assert sorted(k.name for k in kernelviz.load(work / "again.json").kernels) == kernels, source
        assert kernels[0] in capsys.readouterr().out


def test_run_a_script_that_raises_shows_its_traceback_and_keeps_the_capture(tmp_path, capsys, fresh_dynamo):
    (tmp_path / "script.py").write_text(SCRIPT)
    out = tmp_path / "r.html"
    argv = sys.argv[:]
    assert main(["run", str(tmp_path / "script.py"), "raise", "boom", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    trace = err[err.index("Traceback (most recent call last):"):err.index("KeyError: 'boom'\n")]
    assert trace.splitlines()[1] == f'  File "{tmp_path / "script.py"}", line 12, in <module>'
    assert f'File "{tmp_path / "script.py"}", line 11, in fail' in trace
    assert "kernelviz/" not in trace  # the script's frames only, as python would show them
    assert len(kernelviz.load(out.with_suffix(".json")).graphs) == 1  # the capture so far
    assert sys.argv == argv and sys.modules["__main__"].__name__ == "__main__"


def test_run_passes_the_scripts_exit_status(tmp_path, fresh_dynamo):
    (tmp_path / "script.py").write_text(SCRIPT)
    assert main(["run", str(tmp_path / "script.py"), "exit", "3", "-o", str(tmp_path / "r.html")]) == 3
    assert (tmp_path / "r.json").exists()


def test_run_arguments_split_between_kernelviz_and_the_script():
    assert split_run_args(["t.py", "--epochs", "3", "-o", "r.html", "--bench"]) == (
        ["t.py", "-o", "r.html", "--bench"], ["--epochs", "3"])
    assert split_run_args(["-o", "r.html", "t.py", "--", "-o", "model.pt"]) == (["-o", "r.html", "t.py"],
                                                                                ["-o", "model.pt"])
    assert split_run_args(["--json=c.json", "t.py", "x"]) == (["--json=c.json", "t.py"], ["x"])


def test_diff_command_writes_the_report_and_the_diff(tmp_path, capsys):
    html, out = tmp_path / "d.html", tmp_path / "d.json"
    a, b = PAIRS / "pair_default.json", PAIRS / "pair_max-autotune-no-cudagraphs.json"
    assert main(["diff", str(a), str(b), "-o", str(html), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    # the inputs as given, relative to the working directory where that is shorter
    ra, rb = os.path.relpath(a), os.path.relpath(b)
    assert len(ra) < len(str(a)) and printed.startswith(f"kernelviz diff: {ra} (2 graphs")
    assert "biggest losses:" in printed
    story = "what changed: graph 6_inference → 8_inference: launches 0-1 fused into one"
    assert story in " ".join(printed.split())  # wrapped between words at the terminal's width
    assert max(len(line) for line in printed.splitlines() if " " in line.strip()) <= 120
    d = Diff.from_json(out.read_text())
    assert d.labels == [ra, rb] and "triton_tem_fused_mm_mul_relu_0" in html.read_text()
    assert f"What changed:</b> {d.headline.summary}" in html.read_text()
    assert main(["show", str(out)]) == 0  # a diff's JSON is shown as the diff
    assert capsys.readouterr().out == printed


@pytest.mark.parametrize("content, expected", [
    ('{"name": "not a capture"}', "not a kernelviz capture"),
    ("[1, 2, 3]", "not a kernelviz capture"),
    ("{oops", "not valid JSON"),
    ('{"graphs": 3, "schema_version": 2}', "graphs"),  # the model's reader names the field
])
def test_a_json_that_is_not_a_capture_is_one_line_naming_the_file(tmp_path, content, expected):
    bad = tmp_path / "results.json"
    bad.write_text(content)
    proc = kernelviz_cli("diff", str(bad), str(PAIRS / "pair_edited.json"), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"kernelviz: {bad}: ")
    assert expected in proc.stderr and "expected" in proc.stderr


def test_missing_input_and_usage_errors_exit_2(tmp_path, capsys):
    assert main(["show", str(tmp_path / "nothing.py")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kernelviz: {tmp_path / 'nothing.py'}: no such file or folder; expected ")
    assert err.count("\n") == 1
    assert all(form in err for form in (".json", ".kvz", ".rank<N>.kvz", ".pt2", "output code"))
    assert main(["run", str(tmp_path / "nothing.py")]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["diff", "only_one.json"])
    assert exc.value.code == 2


def test_help_explains_itself_with_examples():
    proc = kernelviz_cli("--help", cwd=ROOT)
    assert proc.returncode == 0
    for text in ("show", "diff", "run", "examples", "kernelviz diff default.json max_autotune.json -o diff.html",
                 "COMMAND --help", "exit status"):
        assert text in proc.stdout
    run_help = kernelviz_cli("run", "--help", cwd=ROOT).stdout
    assert "as `python SCRIPT ARGS` would" in run_help and "--bench" in run_help and "`--`" in run_help


@pytest.mark.parametrize("command", ["show", "diff", "run", "demo", "check"])
def test_each_command_has_its_own_help_with_only_its_own_examples(command):
    text = kernelviz_cli(command, "--help", cwd=ROOT).stdout
    examples = [line.strip() for line in text.splitlines() if line.startswith("  kernelviz ")]
    assert examples and all(line.startswith(f"kernelviz {command}") for line in examples), examples
    others = {"show", "diff", "run", "demo", "check"} - {command}
    assert not [line for line in text.splitlines() if any(f"  kernelviz {o} " in line for o in others)]
    assert len(text.splitlines()) < 40
