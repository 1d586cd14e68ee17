"""A capture's expected outputs, computed in the timing process (:mod:`kernelviz.worker`, job ``expect``).

JOBS is a JSON file of ``{"codes": [graph code...], "jobs": [...]}``; each job runs one captured kernel
(Inductor's own launcher, pinned to the recorded config) or one graph's ``call()`` on inputs the harness
makes from the recorded specs, and prints one line ``kernelviz-expected INDEX JSON`` (the summaries of what
it wrote or returned, or ``{"error": ...}``). Made-up inputs can fault a kernel: here that ends this process
only, and kernelviz goes on in a new one (exit status 3 after a CUDA error, which the context cannot survive).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .harness import make_args, outputs_of, seeded, summarize

MARK = "kernelviz-expected"
CUDA_LOST = 3


def _pin(obj: Any, job: dict) -> None:
    """Launch with the recorded config rather than a new autotuning choice (and skip autotuning's time)."""
    launchers = getattr(obj, "launchers", None) or []
    same = [launcher for launcher in launchers
            if all(job["constants"].get(k) == v for k, v in launcher.config.kwargs.items())
            and launcher.config.num_warps == job["options"].get("num_warps", launcher.config.num_warps)]
    if len(launchers) > 1 and same:
        obj.launchers = same[:1]


class _Modules:
    """Each graph's code run once, in its own namespace; a graph whose code fails says why."""

    def __init__(self, codes: list[str]):
        self.codes, self.loaded = codes, {}

    def __getitem__(self, index: int) -> dict:
        if index not in self.loaded:
            namespace: dict[str, Any] = {"__name__": f"kernelviz_expected_{index}"}
            try:
                exec(compile(self.codes[index], f"<kernelviz graph {index}>", "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: the code is the captured module's
                namespace = {"__error__": f"the graph's code does not run in a new process: {exc}"}
            self.loaded[index] = namespace
        return self.loaded[index]


def expected(job: dict, module: dict) -> list[dict]:
    """Summaries of what one job's launch wrote (named outputs) or returned."""
    import torch

    args = make_args(job["args"])
    if job["kernel"] is None:
        result = seeded(lambda: module["call"](list(args)))
    else:
        obj = module[job["kernel"]]
        _pin(obj, job)
        if hasattr(obj, "run"):
            result = obj.run(*args, stream=torch.cuda.current_stream().cuda_stream)
        else:
            result = obj(*args, **job["constants"])
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    found = outputs_of(job["args"], args, result)
    names = job["outputs"] if job["outputs"] is not None else [n for n in found if n.startswith("return[")]
    return [summarize(n, found[n]) for n in names if isinstance(found.get(n), torch.Tensor)]


def main(path: str) -> int:
    spec = json.loads(Path(path).read_text())
    modules = _Modules(spec["codes"])
    print(MARK, "ready", flush=True)
    for index, job in enumerate(spec["jobs"]):
        module = modules[job["graph"]]
        try:
            answer: Any = {"error": module["__error__"]} if "__error__" in module else expected(job, module)
        except Exception as exc:  # noqa: BLE001 - reported in the record; the next job goes on
            text = str(exc).splitlines()[0] if str(exc) else ""
            print(MARK, index, json.dumps({"error": f"the captured code failed on inputs made from the specs: "
                                                    f"{type(exc).__name__}: {text}"}), flush=True)
            if "CUDA error" in str(exc):
                return CUDA_LOST
            continue
        print(MARK, index, json.dumps(answer), flush=True)
    return 0
