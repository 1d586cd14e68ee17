"""Where the command line writes: every command's outputs aimed at each of its inputs (by name, by
another path, a hard link, a symbolic link), a link to a new file, a device node, a FIFO, a socket, a folder, a
read-only folder and a path under a file; a capture kept when its write fails or a script wrote the file; a
`run` ended by SIGTERM, a closed stderr or os._exit; the magic's --diff on a cell that raises; load()'s odd
arguments."""

import contextlib
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.__main__ import main
from kernelviz.run_script import run_script

ROOT = Path(__file__).resolve().parents[1]
OUTPUT_CODE = FIXTURES / "cpu-torch2.13" / "mlp_0.py"
SCRIPT = "open('ran', 'w').write('the script ran')\n"  # a run that compiles nothing: the capture is empty
COMMANDS = {"show code": ["show", "A.py"], "show json": ["show", "A.json"], "show folder": ["show", "code"],
            "show ranks": ["show", "runs/step"], "diff": ["diff", "A.py", "A.json"], "run": ["run", "s.py"]}
READ = {"show folder": ["code/A.py"], "show ranks": ["runs/step.rank0.kvz", "runs/step.rank1.kvz"],
        "diff": ["A.py", "A.json"]}  # the files each command reads, where they are not its argument


def inputs_of(command: str) -> list[str]:
    return READ.get(command, COMMANDS[command][1:])


@contextlib.contextmanager
def read_only_folder(path: Path):
    """``path``, a folder that cannot be written to, and how it was made: a read-only bind mount where
    ``mount`` works, chmod 0o555 for a user other than root, else None (the caller uses a path under a file)."""
    path.mkdir()
    if os.geteuid() != 0:
        path.chmod(0o555)
        yield "chmod 0o555"
        path.chmod(0o755)
        return
    made = subprocess.run(["mount", "--bind", path, path], capture_output=True).returncode == 0
    if made and subprocess.run(["mount", "-o", "remount,bind,ro", path], capture_output=True).returncode == 0:
        try:
            yield "read-only bind mount"
        finally:
            if Path.cwd() == path:  # a test that worked in it (monkeypatch puts the working directory back)
                os.chdir(path.parent)
            subprocess.run(["umount", path], check=True)
        return
    if made:
        subprocess.run(["umount", path], check=True)
    yield None


@contextlib.contextmanager
def tiny_disk(path: Path):
    """``path``, a 4 KiB tmpfs (a write of the report fails with ENOSPC), or None where nothing can be mounted."""
    path.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", path], capture_output=True).returncode:
        yield None
        return
    try:
        yield path
    finally:
        subprocess.run(["umount", path], check=True)


@pytest.fixture(scope="module")
def capture():
    return kernelviz.load(OUTPUT_CODE)


@pytest.fixture
def work(tmp_path, monkeypatch, capture):
    """A folder with each command's inputs, as the working directory."""
    (tmp_path / "A.py").write_text(OUTPUT_CODE.read_text())
    (tmp_path / "A.json").write_text(capture.to_json())
    (tmp_path / "s.py").write_text(SCRIPT)
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "A.py").write_text(OUTPUT_CODE.read_text())
    for rank in range(2):
        capture.rank, capture.world_size = rank, 2
        capture.save(tmp_path / "runs" / "step")
    capture.rank = capture.world_size = None
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def state(path: Path):
    """What is at ``path`` (not following a last link): kind, inode, and a regular file's content."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    body = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else None
    return stat.S_IFMT(st.st_mode), st.st_ino, body, os.readlink(path) if stat.S_ISLNK(st.st_mode) else None


def make_target(work: Path, kind: str, command: str, stack: contextlib.ExitStack) -> tuple[str, bool]:
    """An output path of ``kind`` in ``work``: (the path as given, True where it is written through to a new
    regular file rather than refused)."""
    if kind.startswith("input"):  # input<i>:how
        index, how = kind[5:].split(":")
        name = inputs_of(command)[int(index)]
        if how == "name":
            return name, False
        if how == "other path":
            return f"sub/../{name}", False
        if how == "absolute":
            return str(work / name), False
        link = work / f"{how.replace(' ', '_')}_{index}"
        os.link(work / name, link) if how == "hard link" else link.symlink_to(name)
        return link.name, False
    if kind == "link to a new file":
        (work / "link.out").symlink_to("made/target.out")
        (work / "made").mkdir()
        return "link.out", True
    if kind == "new file in a new folder":
        return "new/deeper/out.file", True
    if kind == "the argument itself":  # a folder; the prefix of a job's rank files
        return COMMANDS[command][1], False
    if kind in ("character device", "link to a device"):
        os.mknod(work / "node", stat.S_IFCHR | 0o600, os.makedev(1, 3))  # a copy of /dev/null's node
        (work / "to-node").symlink_to("node")
        return ("node" if kind == "character device" else "to-node"), False
    if kind == "link to a folder":
        (work / "to-sub").symlink_to("sub")
        return "to-sub", False
    if kind == "FIFO":
        os.mkfifo(work / "fifo")
        return "fifo", False
    if kind == "socket":
        server = stack.enter_context(socket.socket(socket.AF_UNIX))
        server.bind(str(work / "sock"))
        return "sock", False
    if kind == "folder":
        return "sub", False
    if kind == "link loop":
        (work / "loop1").symlink_to("loop2")
        (work / "loop2").symlink_to("loop1")
        return "loop1", False
    if kind == "under a file":
        return "A.py/x.out", False
    assert kind == "read-only folder"
    how = stack.enter_context(read_only_folder(work / "ro"))
    print(f"read-only folder: {how or 'a path under a file'}")
    return ("ro/x.out" if how else "s.py/x.out"), False


KINDS = ["link to a new file", "new file in a new folder", "character device", "link to a device", "FIFO", "socket",
         "folder", "link to a folder", "link loop", "under a file", "read-only folder"]
CASES = [(command, option, kind) for command in COMMANDS for option in ("-o", "--json")
         for kind in [f"input{i}:{how}" for i in range(len(inputs_of(command)))
                      for how in ("name", "other path", "absolute", "hard link", "symbolic link")]
         + KINDS + ["the argument itself"] * (command in READ and command != "diff")]


@pytest.mark.parametrize("command, option, kind", CASES, ids=[" ".join(case) for case in CASES])
def test_outputs_are_only_the_regular_files_asked_for(work, command, option, kind, capsys, fresh_dynamo):
    """Refused: one line, exit 2, before the work (nothing printed, the script not run), nothing changed.
    Written through: the link's target, the link left as it was."""
    with contextlib.ExitStack() as stack:
        given, through = make_target(work, kind, command, stack)
        before = {p: state(p) for p in work.rglob("*") if "ro" not in p.parts}
        capsys.readouterr()
        code = main([*COMMANDS[command], option, given])
        out, err = capsys.readouterr()
        if not through:
            assert code == 2 and err.count("\n") == 1 and err.startswith(f"kernelviz: {option} {given}: "), err
            assert out == "" and not (work / "ran").exists()  # refused before loading or running anything
            assert {p: state(p) for p in before} == before
            return
        assert code == 0, err
        written = Path(os.path.realpath(work / given))
        assert written.is_file() and written.read_text().startswith("{" if option == "--json" else "<!")
        assert all(state(p) == s for p, s in before.items() if p != written.parent)  # the link is still a link


def test_two_outputs_of_one_file_are_refused(work, capsys):
    os.link(work / "A.json", work / "twin.json")
    for args in (["-o", "r.html", "--json", "r.html"], ["-o", "r.json"], ["-o", "A.json", "--json", "twin.json"]):
        command = ["show", "A.py"] if args != ["-o", "r.json"] else ["run", "s.py"]
        assert main([*command, *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("the same file as" in err), err
    assert not (work / "ran").exists() and not (work / "r.html").exists()


def test_a_write_that_fails_keeps_the_output_beside_the_working_directory(work, capsys, monkeypatch):
    """A full disk (a 4 KiB tmpfs): show and diff write the report under a new name in the working directory,
    or in the temporary folder where that cannot be written either; exit 2 and one line says where."""
    with tiny_disk(work / "full") as full:
        if full is None:
            pytest.skip("tmpfs cannot be mounted here")
        assert main(["show", "A.py", "-o", "full/r.html", "--json", "full/r.json"]) == 2
        err = capsys.readouterr().err
        kept = {p.suffix: p for p in work.glob("r.kept-*")}
        assert sorted(kept) == [".html", ".json"] and len(err.splitlines()) == 2, err
        assert f"did not write full/r.json (No space left on device); wrote it to {kept['.json']} instead" in err
        assert kernelviz.load(kept[".json"]).kernels[0].name == kernelviz.load(work / "A.py").kernels[0].name
        with read_only_folder(work / "ro") as how:
            if how != "read-only bind mount":
                pytest.skip("no read-only working directory here")
            temporary = work / "temporary"
            temporary.mkdir()
            monkeypatch.setattr(tempfile, "tempdir", str(temporary))
            monkeypatch.chdir(work / "ro")
            assert main(["diff", "../A.py", "../A.json", "--json", "../full/d.json"]) == 2
            assert [p.name.startswith("d.kept-") for p in temporary.iterdir()] == [True]
            assert f"wrote it to {next(temporary.iterdir())} instead" in capsys.readouterr().err


def test_a_lone_surrogate_is_written_as_its_escape(work, capture, capsys):
    capture.warnings.append("a name with a lone surrogate \ud800")
    (work / "odd.json").write_text(capture.to_json())
    capture.warnings.pop()
    assert main(["show", "odd.json", "-o", "odd.html"]) == 0
    assert "lone surrogate \\ud800" in (work / "odd.html").read_text()
    assert "lone surrogate \\ud800" in capsys.readouterr().out  # the summary, printed


RUN_SCRIPT = """\
import json, os, shutil, signal
json.dump([getattr(signal.getsignal(signal.SIGTERM), "__qualname__", None), os._exit.__qualname__],
          open("patched.json", "w"))
signal.signal(signal.SIGTERM, lambda *a: None)  # the script's own handler: put back after the run
json.dump({"mine": 1}, open("results.json", "w"))  # what `-o results.html` would derive for the capture
shutil.rmtree("out"); open("out", "w").write("a file where the report's folder was")
os.makedirs("elsewhere", exist_ok=True); os.chdir("elsewhere")  # relative outputs stay where kernelviz started
"""


def test_run_never_replaces_what_the_script_wrote_and_keeps_what_it_cannot_write(work, capsys, fresh_dynamo):
    (work / "bench.py").write_text(RUN_SCRIPT)
    (work / "out").mkdir()
    sigterm, os_exit = signal.getsignal(signal.SIGTERM), os._exit
    assert main(["run", "bench.py", "-o", "results.html"]) == 2
    assert json.loads((work / "results.json").read_text()) == {"mine": 1}
    assert kernelviz.load(next(work.glob("results.kept-*.json"))).graphs == []  # the capture, under a new name
    assert (work / "results.html").is_file() and not list((work / "elsewhere").iterdir())
    assert signal.getsignal(signal.SIGTERM) == sigterm and os._exit is os_exit
    assert json.loads((work / "patched.json").read_text()) == ["_ProcessEnds._sigterm", "_ProcessEnds._exit"]
    capsys.readouterr()
    (work / "out").unlink()
    (work / "out").mkdir()
    assert main(["run", "bench.py", "-o", "out/r.html"]) == 2  # the folder is gone by the time of writing
    err = capsys.readouterr().err
    assert f"did not write out/r.json (its folder {work / 'out'} cannot be made: File exists)" in err
    assert len(list(work.glob("r.kept-*"))) == 2


def test_sigterm_while_the_capture_is_written_waits_for_the_write(work):
    """A SIGTERM that comes while kernelviz writes the capture is noted: the write ends, then status 143."""
    if signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        pytest.skip("SIGTERM is handled in this process")
    written = []

    def finish(capture, failed):
        os.kill(os.getpid(), signal.SIGTERM)
        written.append((capture, failed))
        return 0

    assert run_script(work / "s.py", [], finish=finish) == 143
    assert len(written) == 1 and written[0][1] is None and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


ENDING = """\
import multiprocessing, os, signal, sys, time
import torch

def mlp(x, w):
    return torch.relu(x @ w) @ w.t()

torch.compile(mlp)(torch.randn(8, 16), torch.randn(16, 16))
with multiprocessing.get_context("fork").Pool(1) as pool:  # its worker is ended by SIGTERM, silently
    pool.map(abs, [-1])
os.makedirs("elsewhere", exist_ok=True)
os.chdir("elsewhere")
print("compiled", flush=True)
if sys.argv[1] == "os._exit":
    sys.stderr.close()
    os._exit(3)
if sys.argv[1] == "fd 2 closed":
    os.close(2)
    raise RuntimeError("its traceback goes nowhere")
time.sleep(60)
"""


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    """Three runs of a script that compiles a 2-layer function and runs a pool of forked workers: one closes
    sys.stderr and calls os._exit(3), one closes file descriptor 2 and raises, one is sent SIGTERM from outside
    once it has compiled. Run at once (each starts torch: seconds)."""
    work = tmp_path_factory.mktemp("ended")
    (work / "ending.py").write_text(ENDING)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TORCHINDUCTOR_CACHE_DIR": str(work / "inductor-cache")}
    procs = {how: subprocess.Popen([sys.executable, "-m", "kernelviz", "run", "ending.py", how, "-o", f"{i}/r.html"],
                                   cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i, how in enumerate(("os._exit", "SIGTERM", "fd 2 closed"))}
    line = procs["SIGTERM"].stdout.readline()
    assert line == "compiled\n", procs["SIGTERM"].communicate(timeout=60)
    procs["SIGTERM"].send_signal(signal.SIGTERM)
    return work, {how: (proc.wait(timeout=120), proc.stderr.read()) for how, proc in procs.items()}


@pytest.mark.parametrize("how, folder, status", [("os._exit", "0", 3), ("SIGTERM", "1", 143), ("fd 2 closed", "2", 1)])
def test_run_keeps_the_capture_when_the_script_ends_the_process(ended, how, folder, status):
    work, results = ended
    code, err = results[how]
    assert code == status, err[-3000:]
    assert "Traceback" not in err and (f"kernelviz: wrote {folder}/r.json" in err or how == "fd 2 closed")
    capture = kernelviz.load(work / folder / "r.json")
    assert len(capture.graphs) == 1 and len(capture.kernels) == 1 and (work / folder / "r.html").is_file()
