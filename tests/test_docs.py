"""The documentation site builds with MkDocs in strict mode (any warning fails it), the API pages from the
docstrings included; the README's links into docs/ lead to files that exist."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_links_to_docs_that_exist():
    links = re.findall(r"\]\((docs/[^)]+)\)", (ROOT / "README.md").read_text())
    assert "docs/panel.png" in links and len(links) > 10
    assert [link for link in links if not (ROOT / link).is_file()] == []
    assert (ROOT / "docs" / "panel.png").stat().st_size < 200_000


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("mkdocs", reason="needs the docs extra (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings", reason="needs the docs extra (pip install -e '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    api = (site / "api" / "index.html").read_text()
    assert all(f'id="kernelviz.{name}"' in api for name in ("capture", "load", "diff", "needs", "Capture.save",
                                                              "Kernel.fragment_nodes", "Diff.to_html"))
    assert (site / "panel.png").is_file() and "PEP 668" in (site / "setup" / "index.html").read_text()


def test_the_cli_docs_list_every_subcommand():
    """Every subcommand the parser has is in docs/cli.md's table and examples, and in ``kernelviz --help``."""
    import argparse

    from kernelviz.__main__ import _parser

    parser = _parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = list(sub.choices)
    assert {"show", "diff", "check", "ab", "run", "demo"} <= set(commands)
    text = (ROOT / "docs" / "cli.md").read_text()
    rows = re.findall(r"^\| `(\w+)[ `]", text, re.M)
    examples = set(re.findall(r"^kernelviz (\w+)", text, re.M))
    assert sorted(rows) == sorted(commands) and examples == set(commands), (rows, examples)
    assert "{" + ",".join(commands) + "}" in parser.format_help()
