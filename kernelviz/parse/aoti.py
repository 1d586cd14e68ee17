"""What AOTInductor's C++ wrapper (``<hash>.wrapper.cpp`` of a ``.pt2`` package) says beyond its steps: the
constants it carries (``constants_info_``), its inputs (``inputs_info_`` and the checks ``check_input_N`` makes)
and the Triton kernels it embeds as comments (one ``call_<kernel>`` function each, with the ``launchKernel`` line
that gives warps and shared memory, and the cubin it loads). Its steps (``run_impl``) and the C++ kernels of the
package's ``<hash>.kernel.cpp`` are read as every C++ wrapper's are (:mod:`kernelviz.parse.cpp_wrapper`)."""

from __future__ import annotations

import itertools
import re
import textwrap
from dataclasses import dataclass

from ..model import Kernel, PackageConstant, TensorSpec
from .kernels import find_kernels
from .wrapper import split_args

_CONSTANT = re.compile(r"^\s*constants_info_\[(\d+)\]\.(\w+) = (.*);\s*$", re.M)
_INPUT_NAME = re.compile(r'^\s*inputs_info_\[(\d+)\]\.name = "([^"]*)";', re.M)
_DTYPE = re.compile(r"(?:cached_torch_dtype_|aoti_torch_dtype_)(\w+?)(?:\(\))?$")
_CHECK = re.compile(r"^AOTI_NOINLINE static void check_input_(\d+)\(", re.M)
_EXPECTED_DTYPE = re.compile(r"_expected_dtype = aoti_torch_dtype_(\w+)\(\);")
_DIM = re.compile(r"if \((\d+) != \w+_(size|stride)\[(\d+)\]\)")
_RANGE = re.compile(r"if \(\w+_size\[(\d+)\] ([<>]) (\d+)\)")  # a dynamic size's bounds
_DEVICE_TYPE = re.compile(r"_expected_device_type = (\d+);")
_TRITON_CALL = re.compile(r"^[ \t]*(?:static\s+)?(?:inline\s+)?(?:__attribute__\(\(\w+\)\)\s+)?void\s+call_(\w+)\(",
                          re.M)
_EMBEDDED = re.compile(r"^\s*/\*\n(.*?)^\s*\*/", re.M | re.S)
_LAUNCH = re.compile(r"launchKernel\(([^;]*)\);")
_LOAD = re.compile(r'loadKernel\("([^"]*)"')
_DEVICE_TYPES = {0: "cpu", 1: "cuda", 12: "xpu", 13: "mps"}  # c10::DeviceType


@dataclass
class LaunchParams:
    """What the wrapper's ``launchKernel`` line of a Triton kernel passes, and the cubin it loads."""

    num_warps: int | None = None
    shared_bytes: int | None = None
    cubin: str | None = None  # the file's base name, as the package holds it


def constants(code: str) -> list[PackageConstant]:
    """The constants of ``constants_info_``, in their order (their values are not read)."""
    fields: dict[int, dict[str, str]] = {}
    for m in _CONSTANT.finditer(code):
        fields.setdefault(int(m.group(1)), {})[m.group(2)] = m.group(3).strip()
    out = []
    for _, f in sorted(fields.items()):
        dtype = _DTYPE.search(f.get("dtype", ""))
        kind = re.search(r"ConstantType::(\w+)", f.get("type", ""))
        out.append(PackageConstant(name=f.get("name", "").strip('"'), fqn=f.get("original_fqn", "").strip('"'),
                                   kind=kind.group(1) if kind else "", dtype=dtype.group(1) if dtype else None,
                                   shape=_ints(f.get("shape")), stride=_ints(f.get("stride")),
                                   bytes=int(f["data_size"]) if f.get("data_size", "").isdigit() else None))
    return out


def inputs(code: str) -> list[TensorSpec]:
    """The model's inputs by ``inputs_info_``, with dtype, size, stride and device where ``check_input_N``
    checks them: a size compiled for a range (dynamic shapes) is its smallest, with the ranges in ``symbols``
    (``["2..1024", "16"]``); one it does not check at all is left as ``s<input>_<dim>``."""
    specs = [TensorSpec(name=m.group(2)) for m in sorted(_INPUT_NAME.finditer(code), key=lambda m: int(m.group(1)))]
    checks = [m.start() for m in _CHECK.finditer(code)]
    for n, start in enumerate(checks):
        index = int(_CHECK.match(code, start).group(1))
        if index >= len(specs):
            continue
        body = code[start: checks[n + 1] if n + 1 < len(checks) else code.find("\n}\n", start)]
        spec = specs[index]
        if m := _EXPECTED_DTYPE.search(body):
            spec.dtype = m.group(1)
        dims: dict[str, dict[int, str]] = {"size": {}, "stride": {}}
        for value, what, at in _DIM.findall(body):
            dims[what][int(at)] = value
        bounds: dict[int, dict[str, str]] = {}
        for at, op, value in _RANGE.findall(body):
            bounds.setdefault(int(at), {})[op] = value
        rank = max([*dims["size"], *dims["stride"], *bounds, -1]) + 1
        spec.shape = [dims["size"].get(i) or bounds.get(i, {}).get("<") or f"s{index}_{i}" for i in range(rank)]
        spec.stride = [dims["stride"].get(i, f"s{index}_{i}") for i in range(rank)]
        if bounds:  # compiled for a range of sizes: shaped at the smallest it takes, the range kept
            spec.symbols = [f"{b.get('<', '?')}..{b.get('>', '?')}" if (b := bounds.get(i)) and i not in dims["size"]
                            else size for i, size in enumerate(spec.shape)]
        if m := _DEVICE_TYPE.search(body):
            spec.device = _DEVICE_TYPES.get(int(m.group(1)))
    return specs


def triton_kernels(code: str, warnings: list[str]) -> tuple[list[Kernel], dict[str, LaunchParams]]:
    """The Triton kernels the wrapper embeds (each in its ``call_<name>`` function, as a comment) read as the
    Python wrapper's are, and what each function's launch passes."""
    kernels, params = [], {}
    for m in _TRITON_CALL.finditer(code):
        name = m.group(1)
        end = code.find("\n}\n", m.end())
        body = code[m.end(): end if end > 0 else len(code)]
        params[name] = _launch_params(body)
        embedded = _EMBEDDED.search(body)
        if embedded is None:
            kernels.append(Kernel(name=name, kind="triton", source=""))
            continue
        text = f"{name} = {textwrap.dedent(embedded.group(1)).strip()}\n"  # the wrapper indents it
        lines = text.splitlines()
        found = find_kernels(text, lines, list(itertools.accumulate((len(x) + 1 for x in lines), initial=0)), warnings)
        kernels.append(found[0].kernel if found else Kernel(name=name, kind="triton", source=embedded.group(1)))
    return kernels, params


def _launch_params(body: str) -> LaunchParams:
    out = LaunchParams()
    if m := _LAUNCH.search(body):
        args = split_args(m.group(1))
        if len(args) >= 6 and args[4].isdigit() and args[5].isdigit():
            out.num_warps, out.shared_bytes = int(args[4]), int(args[5])
    if m := _LOAD.search(body):
        out.cubin = m.group(1).rsplit("/", 1)[-1]
    return out


def _ints(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x.strip().rstrip("L")) for x in text.strip("{}").split(",") if x.strip()]
    except ValueError:
        return None



