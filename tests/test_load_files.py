"""``load`` of paths that are not plain files: every refusal is one ParseError line naming the file and what it
is; a directory is read from its regular ``*.py`` files only and never blocks; saves are atomic. Arguments that
are not a path (bytes, None, an empty string, a NUL byte) are one line saying what to pass."""

import os
import shutil
import threading
from pathlib import Path

import pytest

import kernelviz
from conftest import FIXTURES

CODE = FIXTURES / "cpu-torch2.13" / "pointwise_0.py"


def _one_line(exc, path):
    assert "\n" not in str(exc) and str(exc).startswith(str(path))
    return str(exc)


def _odd_entries(folder):
    """A FIFO, a symlink loop, a dangling link, a folder and a socket, all named *.py."""
    import socket

    os.mkfifo(folder / "fifo.py")
    os.symlink(folder / "loop_a.py", folder / "loop_b.py")
    os.symlink(folder / "loop_b.py", folder / "loop_a.py")
    os.symlink(folder / "gone", folder / "dangling.py")
    (folder / "folder.py").mkdir()
    (folder / "folder.py" / "inside.txt").write_text("x")
    os.symlink(folder, folder / "self_link")  # a link to the folder itself: not followed
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock.py"))
    return sock


def _in_a_thread(call):
    """What ``call()`` returns or raises, in a thread given 60 s: a read that blocks fails the test, not CI."""
    out = []

    def run():
        try:
            out.append(call())
        except Exception as exc:  # noqa: BLE001 - given back to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert out, "blocked"
    return out[0]


def test_a_directory_is_read_from_its_regular_files_and_never_blocks(tmp_path):
    sock = _odd_entries(tmp_path)
    try:
        exc = _in_a_thread(lambda: kernelviz.load(tmp_path))
        assert isinstance(exc, kernelviz.ParseError)
        text = _one_line(exc, tmp_path)
        assert "no Inductor output code in this directory (passed over:" in text
        shutil.copy(CODE, tmp_path / "graph.py")
        cap = kernelviz.load(tmp_path)  # the odd entries are passed over, the code is read once
        assert len(cap.graphs) == 1 and cap.graphs[0].kernels
    finally:
        sock.close()


@pytest.mark.parametrize("entry, what", [
    ("fifo.py", "a FIFO (named pipe), not a file to read"), ("loop_a.py", "cannot be read (Too many levels of "
                                                                         "symbolic links)"),
    ("folder.py", "a directory, not a file to read"), ("sock.py", "cannot be read (No such device or address)"),
    ("dangling.py", "no such file"), ("missing.json", "no such file")])
def test_a_path_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path, entry, what):
    sock = _odd_entries(tmp_path)
    try:
        path = tmp_path / entry
        if entry == "folder.py":  # a folder is read as a folder: here it holds no code
            what = "no Inductor output code in this directory"
        exc = _in_a_thread(lambda: kernelviz.load(path))
        assert isinstance(exc, kernelviz.ParseError) and _one_line(exc, path).startswith(f"{path}: {what}")
        from kernelviz.__main__ import main

        assert main(["show", str(path)]) == 2  # the CLI: the same line, exit status 2, never a block
    finally:
        sock.close()


def test_concurrent_saves_to_one_path_leave_one_whole_capture(tmp_path):
    a = kernelviz.load(CODE)
    b = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    target = tmp_path / "cap.json"
    texts = {a.to_json(), b.to_json()}
    errors = []

    def save(cap):
        try:
            for _ in range(20):
                cap.save(target)
        except Exception as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(cap,)) for cap in (a, b, a, b)]
    for t in threads:
        t.start()
    seen = []
    while any(t.is_alive() for t in threads):
        if target.exists():
            seen.append(target.read_text())  # a reader during the saves sees one whole capture, never a part
    for t in threads:
        t.join()
    assert not errors and target.read_text() in texts and all(text in texts for text in seen)
    assert kernelviz.load(target).graphs
    assert [p.name for p in tmp_path.iterdir()] == ["cap.json"]  # no temporary file left beside it
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_first_display_leaves_the_hip_reading_to_its_tab_until_the_mapping_is_loaded(monkeypatch):
    """Loading torch's hipify mapping costs seconds: a display does not pay it for a tab that may not open."""
    from kernelviz.ir import hip
    from kernelviz.views.payload import graph_view, payload

    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    monkeypatch.setattr(hip, "_loaded", False)
    assert "hip" not in payload(cap)["view"]
    assert graph_view(cap, "0")["hip"]["error"] is None  # what the live panel asks for when the tab opens
    assert hip.ready() and payload(cap)["view"]["hip"]["0"]["error"] is None


@pytest.mark.parametrize("argument, error, says", [
    ("A.py\x00.json", kernelviz.ParseError, "NUL byte"),
    ("", kernelviz.ParseError, "an empty path"),
    (b"A.py", TypeError, "os.fsdecode"),
    ("A.py\n", kernelviz.ParseError, "'A.py\\n' (no file of that name"),
    ("runs/step\nA.py", kernelviz.ParseError, "'runs/step\\nA.py' (no file of that name"),
    (None, TypeError, "got NoneType; pass a path"),
    (3.5, TypeError, "got float; pass a path"),
    (["A.py"], TypeError, "got list; pass a path"),
    (bytearray(b"A.py"), TypeError, "got bytearray"),
    ("A\ud800.py", kernelviz.ParseError, "no file name can hold '\\ud800'"),
])
def test_load_refuses_what_is_not_a_path_or_code_in_one_line(tmp_path, monkeypatch, argument, error, says):
    monkeypatch.chdir(tmp_path)
    shutil.copy(CODE, tmp_path / "A.py")
    with pytest.raises(error) as raised:
        kernelviz.load(argument)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_load_reads_a_file_whose_name_holds_a_line_break(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(CODE, tmp_path / "two\nlines.py")
    assert kernelviz.load("two\nlines.py").kernels[0].name == kernelviz.load(CODE).kernels[0].name


def test_load_reads_back_what_save_wrote_under_the_same_name(tmp_path, monkeypatch, capsys):
    from kernelviz.__main__ import main

    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    monkeypatch.chdir(tmp_path)
    assert cap.save("runs/step") == Path("runs/step.kvz")
    assert kernelviz.load("runs/step").to_dict() == cap.to_dict()
    assert main(["show", "runs/step"]) == 0 and capsys.readouterr().out.startswith("kernelviz: 1 graph")
    with pytest.raises(kernelviz.ParseError) as exc:
        kernelviz.load("runs/other")
    message = str(exc.value)
    assert message.startswith("runs/other: no such file or folder; expected ") and "\n" not in message
    assert all(form in message for form in ("output code", ".json", ".kvz", ".rank<N>.kvz", ".pt2"))
