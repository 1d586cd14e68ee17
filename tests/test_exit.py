"""A capture ends before its background work: the stages' texts and the repro scripts' expected outputs
arrive after the exit, land in the capture, match, and are never lost by a save made before they land; the timing
work runs in one timing process at a time, which ends itself when idle."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

import kernelviz
import zoo
from kernelviz import children, conductor
from kernelviz.ir import StageJob, stages
from kernelviz.model import KernelIR
from kernelviz.repro import record

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _workers() -> list[int]:
    """Process ids of this process's child processes running a kernelviz module (the timing process, or any other
    kernelviz might start for timing or repros) now alive (not yet reaped zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and "\0-m\0kernelviz." in cmdline:
            found.append(int(entry.name))
    return found


@pytest.fixture
def held_back(monkeypatch):
    """The repros' expected outputs held back until the test lets them go (``go.set()``)."""
    go = threading.Event()
    expect = record.expect

    def late(graphs):
        assert go.wait(120)
        expect(graphs)

    monkeypatch.setattr(record, "expect", late)
    yield go
    go.set()


def _train_step():
    torch.manual_seed(0)
    model, x, target = zoo.make_mlp(), torch.randn(64, 32), torch.randn(64, 32)
    compiled = torch.compile(model)

    def step():
        torch.nn.functional.mse_loss(compiled(x), target).backward()

    step()
    return step


def test_the_exit_does_not_wait_for_the_repros_which_land_and_match_after_it(held_back, tmp_path):
    step = _train_step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    records = [k.repro for k in cap.kernels] + [g.repro for g in cap.graphs]
    assert records and all(r is not None and r.error is None for r in records)
    assert all(not r.expected for r in records) and cap.session.repros is not None  # the exit came first
    kernel = cap.kernels[0]
    threading.Timer(0.5, held_back.set).start()
    script = kernel.to_repro()  # waits for its record to land
    assert all(r.expected for r in records)
    path = tmp_path / "kernel.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and f"{kernel.name}: outputs match" in done.stdout, done.stdout + done.stderr[-2000:]
    assert cap.wait_repros() is cap and cap.session.repros is None


def test_a_save_before_the_repros_land_waits_for_them(held_back, tmp_path):
    step = _train_step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    threading.Timer(0.5, held_back.set).start()
    loaded = kernelviz.load(cap.save(tmp_path / "step"))
    assert loaded == cap and all(k.repro.expected for k in loaded.kernels)
    assert all(g.repro.expected for g in loaded.graphs)


def test_the_exit_does_not_wait_for_the_stages_which_land_after_it(monkeypatch):
    go = threading.Event()

    def jobs(graph, compiled):  # one slow kernel's texts, as the disassembler would give them
        kernel = graph.kernels[0]
        kernel.ir = KernelIR()
        return [StageJob(kernel, kernel.ir, lambda: (go.wait(120), ({"ttir": "module {\n}\n"}, {"ttir": "test"},
                                                                     []))[1])]

    monkeypatch.setattr(conductor, "stage_jobs", jobs)
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.make_mlp())(torch.randn(64, 32))
    assert cap.kernels[0].ir.stages == [] and cap.graphs[0].launches[0].timing is not None
    threading.Timer(0.5, go.set).start()
    assert [s.name for s in cap.wait_stages().kernels[0].ir.stages] == ["ttir"]


def test_the_stages_are_read_after_the_exit_s_own_work(monkeypatch):
    """No stage's text is read before the exit has timed, let the held tensors go and worked out the findings (the
    stages' Python would compete with them for the GIL); the reading begins then, without being waited for."""
    began, advised = [], []
    advise = conductor.advise

    def jobs(graph, compiled):
        kernel = graph.kernels[0]
        kernel.ir = KernelIR()
        return [StageJob(kernel, kernel.ir, lambda: (began.append(time.monotonic()), ({"ttir": "module {\n}\n"},
                                                                                       {"ttir": "test"}, []))[1])]

    def slow_advise(capture):
        time.sleep(0.5)
        advised.append(time.monotonic())
        return advise(capture)

    monkeypatch.setattr(conductor, "stage_jobs", jobs)
    monkeypatch.setattr(conductor, "advise", slow_advise)
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.make_mlp())(torch.randn(64, 32))
    assert [s.name for s in cap.wait_stages().kernels[0].ir.stages] == ["ttir"]
    assert cap.graphs[0].launches[0].timing is not None and began[0] >= advised[0]


def test_one_timing_process_at_a_time_gone_when_idle(monkeypatch, tmp_path):
    monkeypatch.setattr(children, "IDLE_S", 3)
    children._close_kept()
    step = _train_step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    cap.save(tmp_path / "step")
    loaded = kernelviz.load(tmp_path / "step.kvz")
    seen, stop = [], threading.Event()

    def watch():
        while not stop.is_set():
            seen.append(len(_workers()))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        children.Worker.warm()  # as load() does where a GPU is seen
        loaded.bench(repros=True, progress=False)  # timed in the timing process, then its expected outputs there
        loaded.wait_repros()
        children.Worker.warm()
    finally:
        stop.set()
        watcher.join()
    assert max(seen) == 1 and loaded.graphs[0].timed_on == "recreated inputs"
    assert all(k.repro.expected for k in loaded.kernels)
    deadline = time.monotonic() + 60
    while _workers() and time.monotonic() < deadline:  # idle for IDLE_S: it ends itself
        time.sleep(0.2)
    assert _workers() == [] and children.Worker._kept is not None
    children._close_kept()


def test_a_cubin_is_disassembled_once_then_its_sass_is_kept(tmp_path, monkeypatch):
    calls = tmp_path / "calls"
    tool = tmp_path / "nvdisasm"
    tool.write_text(f"#!/bin/sh\necho run >> {calls}\necho \"SASS of $(cat \"$3\")\"\n")
    tool.chmod(0o755)
    monkeypatch.setattr(stages, "_tool", lambda name: str(tool) if name == "nvdisasm" else None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = stages.disassemble_bytes(b"kernel one", "k1")
    assert first == ("nvdisasm -c -gi", "SASS of kernel one\n")
    assert stages.disassemble_bytes(b"kernel one", "k1") == first  # kept: the tool does not run again
    assert stages.disassemble_bytes(b"kernel two", "k2")[1] == "SASS of kernel two\n"
    assert calls.read_text().count("run") == 2
    assert len(list((tmp_path / "cache" / "kernelviz" / "sass").iterdir())) == 2


def test_the_repros_are_computed_once_the_stages_are_read(monkeypatch):
    go, began = threading.Event(), []
    expect = record.expect

    def jobs(graph, compiled):
        if not graph.kernels:
            return []
        kernel = graph.kernels[0]
        kernel.ir = KernelIR()
        return [StageJob(kernel, kernel.ir, lambda: (go.wait(120), ({"ttir": "module {\n}\n"}, {"ttir": "test"},
                                                                     []))[1])]

    monkeypatch.setattr(conductor, "stage_jobs", jobs)
    monkeypatch.setattr(record, "expect", lambda graphs: began.append(time.monotonic()) or expect(graphs))
    step = _train_step()
    with kernelviz.capture(bench=True, repros=True) as cap:
        step()
    time.sleep(1)
    assert began == []  # the stages' reading first: they would compete for the CPUs
    released = time.monotonic()
    go.set()
    assert all(k.repro.expected for k in cap.wait_repros().kernels) and began[0] >= released
