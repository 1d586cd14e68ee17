"""Repro scripts as text, made from the model alone (so a saved capture gives them too): the kernel's own
source or the graph's output code, the harness (``harness.py``, copied in), the recorded arguments and
expected outputs, and a ``main`` that runs, checks and times."""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path

from ..model import Graph, Kernel, ReproRecord
from .pending import landed

_HEURISTICS = re.compile(r"^@triton_heuristics\.\w+\(.*?^\)\n(?=@triton\.jit)", re.M | re.S)
_MAIN = re.compile(r"^if __name__ == [\"']__main__[\"']:.*", re.M | re.S)


class ReproError(ValueError):
    """No repro can be made (the message says why, in one line)."""


@cache
def harness_source() -> str:
    """The harness's source, as it is copied into scripts."""
    return Path(__file__).with_name("harness.py").read_text()


def module_code(graph: Graph) -> str:
    """The graph's output code without its ``if __name__ == "__main__":`` block."""
    return _MAIN.sub("", graph.code).rstrip()


def _header(what: str, how: str) -> str:
    return (f"# kernelviz repro: {what}.\n"
            f"# {how}\n"
            "# Inputs are made like the recorded ones (dtype, shape, stride, storage; integer values kept from the\n"
            "# run where kernelviz kept them, seeded random floats otherwise), outputs are checked against what the\n"
            "# captured code computed from the same inputs, and the time is measured as kernelviz measures it.\n"
            "# Run: python this_file.py   (edit the kernel or code below and run it again)\n")


def _literal(text: str) -> str:
    """``text`` as a Python string literal, raw and triple-quoted where it can be."""
    return f"r'''{text}'''" if "'''" not in text and not text.endswith("\\") else repr(text)


def _data(rec: ReproRecord) -> str:
    def fmt(items: list) -> str:  # one record per line, fields left at None omitted
        rows = [repr({k: v for k, v in dataclasses.asdict(x).items() if v is not None}) for x in items]
        return "[\n" + "".join(f"    {row},\n" for row in rows) + "]"

    return f"ARGS = {fmt(rec.args)}\nEXPECTED = {fmt(rec.expected)}\n"


def _main(title: str, timer: str) -> str:
    return f'\n\nif __name__ == "__main__":\n    main({title!r}, launch, ARGS, EXPECTED, {timer!r})\n'


def _record(rec: ReproRecord | None, what: str) -> ReproRecord:
    if rec is None:
        raise ReproError(f"no launch of {what} was recorded for a repro: time the capture with repros on, "
                         "cap.bench(repros=True), where its device is (plain cap.bench() records none)")
    if landed(rec).error:
        raise ReproError(rec.error)
    if not rec.expected:
        raise ReproError(f"the expected outputs of {what} were not recorded: time the capture with its tensors "
                         "alive and repros on (cap.bench(repros=True))")
    return rec


def kernel_script(kernel: Kernel) -> str:
    """A script that launches ``kernel`` alone as it was launched in the capture, checks and times it."""
    rec = _record(kernel.repro, kernel.name)
    if kernel.kind.startswith("triton"):
        body = (_HEURISTICS.sub("", kernel.source).rstrip() + "\n\n\n" + harness_source()
                + f"\nGRID = {tuple(rec.grid or ())!r}\nCONSTANTS = {rec.constants!r}\nOPTIONS = {rec.options!r}\n"
                + _data(rec) + "\n\ndef launch(args):\n"
                f"    named = {{spec['name']: arg for spec, arg in zip(ARGS, args)}}\n"
                f"    return {kernel.name}[GRID](**named, **CONSTANTS, **OPTIONS)\n")
        how = f"Launches the Triton kernel alone with the recorded grid {rec.grid} and config; imports torch and triton"
        return _header(f"Triton kernel {kernel.name}, launch #{rec.launch}", how) + body + _main(kernel.name,
                                                                                                  "kernel-gpu")
    if kernel.kind == "cpp":
        body = ("from torch._inductor.async_compile import AsyncCompile\n\nasync_compile = AsyncCompile()\n"
                f"{kernel.name} = async_compile.cpp_pybinding({kernel.arg_types!r}, {_literal(kernel.source)})\n"
                "async_compile.wait(globals())\ndel async_compile\n\n" + harness_source() + "\n" + _data(rec)
                + f"\n\ndef launch(args):\n    return {kernel.name}(*args)\n")
        how = "Builds the C++ kernel as Inductor does (torch's AsyncCompile.cpp_pybinding) and calls it alone"
        return _header(f"C++ kernel {kernel.name}, launch #{rec.launch}", how) + body + _main(kernel.name, "cpu")
    if kernel.kind == "jiterator":
        many = rec.options.get("return_by_ref") or rec.options.get("num_outputs", 1) != 1
        make = (f"_create_multi_output_jit_fn(CODE, {rec.options.get('num_outputs', 1)}, **CONSTANTS)" if many
                else "_create_jit_fn(CODE, **CONSTANTS)")
        body = (harness_source() + f"\nCODE = {_literal(kernel.source)}\nCONSTANTS = {rec.constants!r}\n" + _data(rec)
                + f"\n{kernel.name} = torch.cuda.jiterator.{make}\n\n\ndef launch(args):\n"
                f"    return {kernel.name}(*args)\n")
        how = "Compiles the CUDA code with torch.cuda.jiterator and calls it alone"
        return _header(f"jiterator kernel {kernel.name}", how) + body + _main(kernel.name, "kernel-gpu")
    raise ReproError(f"no repro for {kernel.kind} kernels")


def graph_script(graph: Graph) -> str:
    """A script that runs ``graph``'s output code's ``call()`` on inputs like the recorded ones, checks and
    times it."""
    rec = _record(graph.repro, f"graph {graph.id}'s call()")
    body = (module_code(graph) + "\n\n\n" + harness_source() + "\n" + _data(rec)
            + "\n\ndef launch(args):\n    return call(list(args))\n")
    how = "Runs the graph's whole output code call(), imports torch and triton as that code does"
    timer = "call-gpu" if graph.device == "cuda" else "cpu"
    return _header(f"graph {graph.id}, call()", how) + body + _main(graph.id, timer)
