"""Every example in docs/*.md runs as written, page by page, in a fresh folder, as a reader would run it: the
page's Python blocks in order in one IPython shell (the cells of one notebook: the magics run too), its bash blocks
in bash with this venv as ``.venv``. A Python block whose first line is ``# NAME.py`` is that file: it is written
to the folder for the blocks after it. A CI job's YAML is not run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
FILE = re.compile(r"# ([\w/]+\.py)\n")
# The cells in one shell; at the end the process leaves without tearing the shell down (torch's weak-key
# dictionaries of dynamo then print "Exception ignored" tracebacks as a kernel's shutdown does, which no reader sees)
RUN = """\
import os, sys
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
for i, cell in enumerate(sys.argv[1:]):
    result = shell.run_cell(cell)
    if not result.success:
        sys.exit(f"block {i + 1} of the page failed:\\n{cell}")
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
"""


def blocks(page: Path) -> list[tuple[str, str]]:
    """(language, text) of each fenced block of ``page`` that is run (Python and bash), in order."""
    return [(lang, text) for lang, text in BLOCK.findall(page.read_text()) if lang in ("python", "bash")]


PAGES = [page for page in sorted(DOCS.glob("*.md")) if blocks(page)]


def test_the_pages_with_examples_are_these():
    assert {page.name for page in PAGES} == {"aoti.md", "cli.md", "compare.md", "perf-gate.md", "ranks.md", "use.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.stem)
def test_a_pages_examples_run_as_written(page, tmp_path):
    (tmp_path / ".venv").symlink_to(sys.prefix, target_is_directory=True)  # `source .venv/bin/activate`
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]), COLUMNS="100")
    cells: list[str] = []

    def run_cells() -> None:
        if cells:
            done = subprocess.run([sys.executable, "-c", RUN, *cells], cwd=tmp_path, env=env, capture_output=True,
                                  text=True, timeout=900)
            assert done.returncode == 0, f"{page.name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            assert "Traceback" not in done.stdout + done.stderr, f"{page.name}:\n{done.stdout[-3000:]}"

    for lang, text in blocks(page):
        if lang == "python" and (name := FILE.match(text)):
            (tmp_path / name.group(1)).write_text(text)
        elif lang == "python":
            cells.append(text)
        else:  # the Python before it runs first
            run_cells()
            cells.clear()
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, f"{page.name}: {text}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    run_cells()
