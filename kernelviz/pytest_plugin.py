"""The pytest plugin (entry point ``pytest11``): the ``kernelviz_gate`` fixture, a performance gate in a test.

``kernelviz_gate.check(step)`` captures ``step()`` with timing (``repeat`` times, :func:`kernelviz.gate.repeat.
timed_capture`), compares it with the baseline kept in the repo (``kernelviz_baselines/<test name>.json`` beside
the test file) and fails the test with ``kernelviz check``'s lines; the new capture (``<name>.current.json``) and
the HTML diff (``<name>.diff.html``) are written beside the baseline for review. Without a baseline, or with
``--kernelviz-update``, the baseline is made: the test runs again in ``processes - 1`` pytest processes of its
own, and their captures and this one are merged, so that the baseline holds the spread between processes that a
CI job meets; without a baseline the test then fails, asking for it to be committed. Options (command line, else
ini): ``--kernelviz-repeat`` / ``kernelviz_repeat``, ``--kernelviz-processes`` / ``kernelviz_processes``,
``--kernelviz-slower`` / ``kernelviz_slower``, ``kernelviz_baselines`` (the folder). On GitHub Actions every
verdict is added to the job summary. While a test holds the fixture, pytest's captured log leaves out torch's
structured-trace records (``torch.__trace``: empty messages meant for a TORCH_TRACE file), which torch's own
handlers still get.

This module is loaded by every pytest run where kernelviz is installed: it imports kernelviz only when a test
asks for the fixture.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

_VERDICTS = pytest.StashKey[list]()
EMIT = "KERNELVIZ_GATE_EMIT"  # set in a baseline's other processes: the folder their captures are written to
TRACE_LOG = "torch.__trace"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernelviz", "kernelviz performance gate")
    group.addoption("--kernelviz-update", action="store_true", help="write each kernelviz_gate capture as its "
                    "new baseline instead of comparing")
    group.addoption("--kernelviz-repeat", type=int, metavar="N", help="timed captures of each step (ini "
                    "kernelviz_repeat, default 3): their spread is the noise a time must grow beyond")
    group.addoption("--kernelviz-processes", type=int, metavar="N", help="pytest processes whose captures make a "
                    "baseline (ini kernelviz_processes, default 3): their spread is the noise between processes")
    group.addoption("--kernelviz-slower", metavar="PCT", help="how much a time may grow (ini kernelviz_slower, "
                    "default 5%%)")
    parser.addini("kernelviz_repeat", "timed captures of each kernelviz_gate step", default="3")
    parser.addini("kernelviz_processes", "pytest processes whose captures make a kernelviz_gate baseline",
                  default="3")
    parser.addini("kernelviz_slower", "how much a kernelviz_gate time may grow", default="5%")
    parser.addini("kernelviz_baselines", "folder of kernelviz_gate baselines, beside each test file",
                  default="kernelviz_baselines")


class Gate:
    """What the ``kernelviz_gate`` fixture gives a test."""

    def __init__(self, request: pytest.FixtureRequest):
        from .gate import parse_slower

        config = request.config
        self.update = config.getoption("kernelviz_update")
        self.repeat = _option(config, "repeat", _count)
        self.processes = _option(config, "processes", _count)
        self.nodeid, self.rootdir, self.inipath = request.node.nodeid, config.rootpath, config.inipath
        self.slower = _option(config, "slower", parse_slower)
        self.folder = Path(request.path).parent / config.getini("kernelviz_baselines")
        self.name = re.sub(r"[^\w.-]+", "_", request.node.name)
        self.verdicts = config.stash.setdefault(_VERDICTS, [])

    def check(self, step: Any, name: str | None = None) -> Any:
        """Capture ``step()`` (called ``repeat`` times) and fail the test where it regressed against the baseline
        ``name`` (default: the test's name); the :class:`kernelviz.gate.Verdict`, or None where the capture was
        written as the baseline."""
        from .codec import write_atomically
        from .gate import check
        from .gate.repeat import timed_capture

        stem = name or self.name
        baseline = self.folder / f"{stem}.json"
        current = timed_capture(step, self.repeat)
        if os.environ.get(EMIT):  # one of a baseline's other processes
            write_atomically(Path(os.environ[EMIT]) / f"{stem}.json", current.to_json())
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.update or not baseline.exists():
            write_atomically(baseline, self._baseline(current, stem).to_json())
            if self.update:
                return None
            pytest.fail(f"kernelviz: no baseline: wrote {baseline} from {self.processes} processes; review and "
                        "commit it", pytrace=False)
        write_atomically(self.folder / f"{stem}.current.json", current.to_json())
        verdict = check(baseline, current, slower=self.slower, labels=(baseline.name, "current"))
        verdict.diff.save_html(str(self.folder / f"{stem}.diff.html"))
        self.verdicts.append(verdict)
        if verdict.failed:
            pytest.fail("\n".join(verdict.lines()), pytrace=False)
        return verdict

    def _baseline(self, current: Any, stem: str) -> Any:
        """``current`` merged with the captures of this test run again in ``processes - 1`` pytest processes."""
        from .gate.repeat import merged
        from .parse import load

        captures = [current]
        with tempfile.TemporaryDirectory(prefix="kernelviz-baseline-") as folder:
            for k in range(1, self.processes):
                run = subprocess.run(self._command(), cwd=self.rootdir, env=_child_env(folder), capture_output=True,
                                     text=True)
                made = Path(folder) / f"{stem}.json"
                if not made.exists():
                    tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-15:])
                    pytest.fail(f"kernelviz: the baseline's process {k + 1} of {self.processes} (pytest "
                                f"{self.nodeid}) made no capture (exit status {run.returncode}):\n{tail}",
                                pytrace=False)
                captures.append(load(made))
                made.unlink()
        return merged(captures)

    def _command(self) -> list[str]:
        """This test alone in a new pytest, with this plugin, the ini file and the captures per process."""
        plugin = [] if _entry_point() else ["-p", __name__]
        ini = ["-c", str(self.inipath)] if self.inipath else []
        return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *ini, "--rootdir",
                str(self.rootdir), "--kernelviz-repeat", str(self.repeat), self.nodeid]


def _entry_point() -> bool:
    """Whether this plugin is installed as an entry point (then every pytest loads it)."""
    return any(e.value == __name__ for e in importlib.metadata.entry_points(group="pytest11"))


def _child_env(folder: str) -> dict[str, str]:
    """A child's environment (this kernelviz importable) with the folder for its capture."""
    from .children import child_environment

    return {**child_environment(), EMIT: folder}


def _option(config: pytest.Config, name: str, convert: Any) -> Any:
    """An option from the command line, else the ini file; a usage error (one line) where it is wrong."""
    given = config.getoption(f"kernelviz_{name}")
    try:
        return convert(given if given is not None else config.getini(f"kernelviz_{name}"))
    except ValueError as exc:
        raise pytest.UsageError(f"kernelviz_{name}: {exc}") from None


def _count(text: str) -> int:
    if not str(text).strip().isdigit() or int(text) < 1:
        raise ValueError(f"{text!r}: expected a number of captures, 1 or more")
    return int(text)


@pytest.fixture
def kernelviz_gate(request: pytest.FixtureRequest) -> Any:
    """A performance gate: ``kernelviz_gate.check(lambda: model(x))`` (see :mod:`kernelviz.pytest_plugin`)."""
    logs = request.config.pluginmanager.get_plugin("logging-plugin")
    handlers = [h for h in (getattr(logs, "caplog_handler", None), getattr(logs, "report_handler", None)) if h]
    for handler in handlers:
        handler.addFilter(_no_trace)
    try:
        yield Gate(request)
    finally:
        for handler in handlers:
            handler.removeFilter(_no_trace)


def _no_trace(record: logging.LogRecord) -> bool:
    """pytest's captured log without torch's structured-trace records (empty messages, meant for a trace file)."""
    return record.name != TRACE_LOG


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Add every verdict to the GitHub Actions job summary, where there is one."""
    summary, verdicts = os.environ.get("GITHUB_STEP_SUMMARY"), session.config.stash.get(_VERDICTS, [])
    if summary and verdicts:
        from .gate.reports import markdown

        with open(summary, "a", encoding="utf-8") as f:
            f.write("".join(markdown(v) for v in verdicts))
