"""kernelviz runs with what pyproject.toml declares: the whole path with numpy blocked, and a wheel installed in a
fresh venv with no Node.js on PATH (its prebuilt JupyterLab extension, the magic, the demo)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
ROOT = TESTS.parent


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_the_whole_path_runs_with_numpy_blocked(tmp_path, device):
    paths = [str(TESTS / "no_numpy"), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    run = subprocess.run([sys.executable, str(TESTS / "clean_run.py"), str(tmp_path), device], cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(paths)), capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    steps = [line for line in run.stdout.splitlines() if line.startswith("ok: ")]
    assert len(steps) == 9, run.stdout
    assert steps[-1] == "ok: numpy was never imported"


NODE = {"node", "nodejs", "npm", "npx", "corepack", "yarn", "yarnpkg"}


def _path_without_node(shim: Path) -> str:
    """A PATH with every program of this one but Node.js and its package managers (the C++ compiler that
    Inductor's CPU kernels need stays)."""
    shim.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            target = shim / entry.name
            if entry.name not in NODE and not target.exists() and os.access(entry.path, os.X_OK):
                target.symlink_to(entry.path)
    return str(shim)


def test_a_wheel_with_its_lab_extra_works_in_a_fresh_venv_without_node(tmp_path):
    from importlib.metadata import version

    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = next(dist.glob("kernelviz-*.whl"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    path = os.pathsep.join([str(venv / "bin"), _path_without_node(tmp_path / "bin")])
    assert shutil.which("node", path=path) is None
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=path, JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter"), IPYTHONDIR=str(tmp_path / "ipython"))
    python = str(venv / "bin" / "python")

    def run(*argv, timeout=600):
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"{' '.join(argv)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout + done.stderr

    torch = "torch==" + version("torch").split("+")[0]
    run(python, "-m", "pip", "install", "-q", f"{wheel}[lab]", torch)  # JupyterLab through the extra the README names

    listed = run(str(venv / "bin" / "jupyter"), "labextension", "list")
    line = next(x for x in listed.splitlines() if "kernelviz-labextension" in x)
    assert "enabled" in line and "OK" in line, line
    assert (venv / "share/jupyter/labextensions/kernelviz-labextension/static/style.js").is_file()

    magic = run(python, "-c", MAGIC)
    assert "magic: 1 graph" in magic, magic

    run(python, "-m", "kernelviz", "demo")
    assert (tmp_path / "kernelviz_report.html").stat().st_size > 10_000
    run(python, "-m", "kernelviz", "show", "kernelviz_report.json")
    loaded = run(python, "-c", "import kernelviz; print(len(kernelviz.load('kernelviz_report.json').kernels))")
    assert int(loaded.split()[-1]) > 0


MAGIC = """
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "kernelviz")
result = shell.run_cell('''%%kernelviz -o cap
import torch
torch.compile(lambda x: (x.sin() + 1).sum())(torch.randn(64))
''')
result.raise_error()
cap = shell.user_ns["cap"]
assert cap.kernels, cap
print(f"magic: {len(cap.graphs)} graph, {len(cap.kernels)} kernels")
"""
