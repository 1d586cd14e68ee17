"""The pytest plugin (entry point ``pytest11``): the ``kernelviz_gate`` fixture, a performance gate in a test.

``kernelviz_gate.check(step)`` captures ``step()`` with timing (``repeat`` times, :func:`kernelviz.gate.repeat.
timed_capture`), compares it with the baseline kept in the repo (``kernelviz_baselines/<test name>.json`` beside
the test file) and fails the test with ``kernelviz check``'s lines; the new capture (``<name>.current.json``) and
the HTML diff (``<name>.diff.html``) are written beside the baseline for review. Without a baseline, or with
``--kernelviz-update``, the capture becomes the baseline. Options (command line, else ini):
``--kernelviz-repeat`` / ``kernelviz_repeat``, ``--kernelviz-slower`` / ``kernelviz_slower``,
``kernelviz_baselines`` (the folder). On GitHub Actions every verdict is added to the job summary.

This module is loaded by every pytest run where kernelviz is installed: it imports kernelviz only when a test
asks for the fixture.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

_VERDICTS = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kernelviz", "kernelviz performance gate")
    group.addoption("--kernelviz-update", action="store_true", help="write each kernelviz_gate capture as its "
                    "new baseline instead of comparing")
    group.addoption("--kernelviz-repeat", type=int, metavar="N", help="timed captures of each step (ini "
                    "kernelviz_repeat, default 3): their spread is the noise a time must grow beyond")
    group.addoption("--kernelviz-slower", metavar="PCT", help="how much a time may grow (ini kernelviz_slower, "
                    "default 5%%)")
    parser.addini("kernelviz_repeat", "timed captures of each kernelviz_gate step", default="3")
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
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.update or not baseline.exists():
            write_atomically(baseline, current.to_json())
            if self.update:
                return None
            pytest.fail(f"kernelviz: no baseline: wrote {baseline}; review and commit it", pytrace=False)
        write_atomically(self.folder / f"{stem}.current.json", current.to_json())
        verdict = check(baseline, current, slower=self.slower, labels=(baseline.name, "current"))
        verdict.diff.save_html(str(self.folder / f"{stem}.diff.html"))
        self.verdicts.append(verdict)
        if verdict.failed:
            pytest.fail("\n".join(verdict.lines()), pytrace=False)
        return verdict


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
def kernelviz_gate(request: pytest.FixtureRequest) -> Gate:
    """A performance gate: ``kernelviz_gate.check(lambda: model(x))`` (see :mod:`kernelviz.pytest_plugin`)."""
    return Gate(request)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Add every verdict to the GitHub Actions job summary, where there is one."""
    summary, verdicts = os.environ.get("GITHUB_STEP_SUMMARY"), session.config.stash.get(_VERDICTS, [])
    if summary and verdicts:
        from .gate.reports import markdown

        with open(summary, "a", encoding="utf-8") as f:
            f.write("".join(markdown(v) for v in verdicts))
