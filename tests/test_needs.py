"""A notebook or benchmark that needs a package kernelviz does not stops with one line naming the extra."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = "import sys, runpy; sys.modules[{module!r}] = None; sys.argv = [{script!r}]; " \
        "runpy.run_path({script!r}, run_name='__main__')"


@pytest.mark.parametrize("script, module, extra", [("benchmarks/bench_diff.py", "pytest", "test"),
                                                   ("benchmarks/bench_panel.py", "pytest", "test"),
                                                   ("benchmarks/bench_cache_gpu.py", "torchvision", "vision")])
def test_a_benchmark_without_its_package_says_which_extra(script, module, extra):
    done = subprocess.run([sys.executable, "-c", BLOCK.format(module=module, script=script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"{script} needs {module}, which kernelviz's '{extra}' extra installs: "
        f".venv/bin/python -m pip install -e '.[{extra}]' in the clone (or 'kernelviz[{extra}]')"]


def test_the_gpu_tour_without_torchvision_says_which_extra_in_one_line():
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(ROOT / "notebooks" / "gpu_tour.ipynb", as_version=4)
    first = next(cell for cell in nb.cells if cell.cell_type == "code")
    first.source = "import sys\nsys.modules['torchvision'] = None\n" + first.source  # as where it is missing
    run = nbformat.v4.new_notebook(cells=[first], metadata=nb.metadata)
    with pytest.raises(nbclient.exceptions.CellExecutionError):
        nbclient.NotebookClient(run, timeout=120, kernel_name="python3").execute()
    error = next(o for o in first.outputs if o.output_type == "error")
    assert error.traceback == ["MissingExtra: gpu_tour.ipynb needs torchvision, which kernelviz's 'vision' extra "
                               "installs: .venv/bin/python -m pip install -e '.[vision]' in the clone "
                               "(or 'kernelviz[vision]')"]
