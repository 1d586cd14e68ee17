"""``limit_s`` bounds a timing of loaded code that spins or faults: the step that spins has limit_s, and a graph
that faults is retried for limit_s only (``benchmarks`` time it: seconds past limit_s, not minutes)."""

import re

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
    cap.bench(progress=False, limit_s=LIMIT_S)
    (graph,) = cap.graphs
    (why,) = [w for w in graph.warnings if w.startswith("not timed:")]
    if what == "faults":  # retried only for limit_s after the first fault, not once per launch (8 starts: 52 s here)
        assert why.startswith("not timed: the timing process stopped early") and f"limit_s={LIMIT_S}" in why, why
    else:  # the step that spins is stopped after limit_s, not after the 10x that compiling kernels may take
        assert f"did not finish within {LIMIT_S} s" in why, why
