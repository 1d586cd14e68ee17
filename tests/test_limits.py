"""``limit_s`` bounds a timing of loaded code that spins or faults: seconds past it, not minutes."""

import re
import time

import pytest

import kernelviz
from conftest import FIXTURES

LIMIT_S = 5
BODIES = {"spins": "while True: pass", "faults": "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"}
CASES = [*BODIES, "spins as it loads"]


@pytest.mark.parametrize("what", CASES)
def test_loaded_code_that_spins_or_faults_is_given_up_soon_after_limit_s(what):
    source = (FIXTURES / "cpu-torch2.13" / "mlp_0.py").read_text()
    if what == "spins as it loads":  # a statement of the module that compiles nothing: limit_s, not 10x
        source = source.replace("async_compile = AsyncCompile()", "async_compile = AsyncCompile()\nwhile True: pass", 1)
    else:
        source = re.sub(r"(\n    def call\(self, args\):\n)", r"\1        " + BODIES[what] + "\n", source, count=1)
    cap = kernelviz.load(source)
    start = time.perf_counter()
    cap.bench(progress=False, limit_s=LIMIT_S)
    spent = time.perf_counter() - start
    (graph,) = cap.graphs
    assert any(w.startswith("not timed:") for w in graph.warnings), graph.warnings
    assert spent < LIMIT_S * 5, spent  # was 10x limit_s (spins) and 8 worker starts (faults): 52-55 s here
