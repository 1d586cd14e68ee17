"""Every Triton kernel that ran keeps its compiled stages, timed or not, compiled or a cache hit, in a process
as a notebook's kernel is (no TRITON_CACHE_DIR, Inductor's compile workers on): tests/stages_job.py captures
a model plain and with ``bench=True`` and says what each capture kept (run on the GPU machine)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
JOB = Path(__file__).parent / "stages_job.py"
STAGES = ["ttir", "ttgir", "llir", "ptx", "sass"]


JOBS = [("llama", "bench,plain"), ("llama", "plain,bench"), ("gpt2", "bench")]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """The three jobs, started at once (each its own process, Inductor cache and compile workers)."""
    folder = tmp_path_factory.mktemp("stages")
    dump = os.environ.get("KERNELVIZ_STAGES_DUMP")  # where to keep the captures, for a look at them
    started = {}
    for which, order in JOBS:
        env = {k: v for k, v in os.environ.items() if k != "TRITON_CACHE_DIR"}
        env["TORCHINDUCTOR_CACHE_DIR"] = str(folder / f"inductor-{which}-{order}")  # new: the first capture compiles
        started[which, order] = subprocess.Popen([sys.executable, str(JOB), which, order] + ([dump] if dump else []),
                                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield started, dump
    for process in started.values():
        if process.poll() is None:
            process.kill()


def _job(jobs, which: str, order: str) -> list[dict]:
    started, dump = jobs
    stdout, stderr = started[which, order].communicate(timeout=400)
    line = next((x for x in stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, stderr[-3000:]
    if dump:
        Path(dump, f"result_{which}_{order.replace(',', '_')}.json").write_text(line[len("RESULT "):])
    return json.loads(line[len("RESULT "):])


def _assert_every_kernel_has_its_stages(result: dict) -> None:
    assert result["kernels"]
    for name, kernel in result["kernels"].items():
        assert kernel["stages"] == STAGES, (result["bench"], name, kernel["notes"])
        assert kernel["regs"] and kernel["sass"]["instructions"] > 0


@pytest.mark.parametrize("order", ["bench,plain", "plain,bench"])
def test_stages_with_and_without_bench_compiled_and_from_the_cache(jobs, order):
    """A llama-style forward in bf16 autocast (RMSNorm, rotary, SiLU-gated MLP, SDPA): the first capture compiles,
    the second is an FX graph cache hit; both keep the same kernels' stages, and the timed one is timed."""
    first, second = _job(jobs, "llama", order)
    for result in (first, second):
        _assert_every_kernel_has_its_stages(result)
    assert set(first["kernels"]) == set(second["kernels"])
    assert (first if first["bench"] else second)["timed"] > 0


def test_every_triton_kernel_of_a_gpt2_training_step_has_its_stages_and_linked_sass(jobs):
    """A GPT-2-style step (2 layers, dropout, SDPA, bf16 autocast, backward) timed at the capture's end: every
    Triton kernel of the forward and backward keeps its stages, and 80% of each kernel's SASS instruction lines
    link to its source, or a note says which do not and why."""
    (result,) = _job(jobs, "gpt2", "bench")
    _assert_every_kernel_has_its_stages(result)
    assert any("backward" in g for g in result["graphs"])
    for name, kernel in result["kernels"].items():
        sass = kernel["sass"]
        assert sass["linked"] >= 0.8 * sass["instructions"] or any("SASS" in n for n in kernel["notes"]), (name, sass)
