"""What AOTInductor's C++ wrapper (``<hash>.wrapper.cpp`` of a ``.pt2`` package) says beyond its steps: the
constants it carries (``constants_info_``), its inputs (``inputs_info_`` and the checks ``check_input_N`` makes),
the Triton kernels it embeds as comments (one ``call_<kernel>`` function each, with the ``launchKernel`` line
that gives warps and shared memory, and the cubin it loads), and the C++ kernels of the package's
``<hash>.kernel.cpp``."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ..model import BufferEvent, Kernel, Launch, PackageConstant, TensorSpec
from .comments import parse_origin
from .kernels import find_kernels
from .wrapper import CallBody, _nbytes, split_args

_CONSTANT = re.compile(r"^\s*constants_info_\[(\d+)\]\.(\w+) = (.*);\s*$", re.M)
_INPUT_NAME = re.compile(r'^\s*inputs_info_\[(\d+)\]\.name = "([^"]*)";', re.M)
_DTYPE = re.compile(r"(?:cached_torch_dtype_|aoti_torch_dtype_)(\w+?)(?:\(\))?$")
_CHECK = re.compile(r"^AOTI_NOINLINE static void check_input_(\d+)\(", re.M)
_EXPECTED_DTYPE = re.compile(r"_expected_dtype = aoti_torch_dtype_(\w+)\(\);")
_DIM = re.compile(r"if \((\d+) != \w+_(size|stride)\[(\d+)\]\)")
_DEVICE_TYPE = re.compile(r"_expected_device_type = (\d+);")
_TRITON_CALL = re.compile(r"^static __attribute__\(\(noinline\)\) void call_(\w+)\(", re.M)
_EMBEDDED = re.compile(r"^\s*/\*\n(.*?)^\s*\*/", re.M | re.S)
_LAUNCH = re.compile(r"launchKernel\(([^;]*)\);")
_LOAD = re.compile(r'loadKernel\("([^"]*)"')
_CPP_KERNEL = re.compile(r'^extern "C"\s+void\s+(\w+)\(', re.M)
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
    checks them (a dimension it does not check is symbolic: left as ``s<i>``)."""
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
        rank = max([*dims["size"], *dims["stride"], -1]) + 1
        spec.shape = [dims["size"].get(i, f"s{index}_{i}") for i in range(rank)]
        spec.stride = [dims["stride"].get(i, f"s{index}_{i}") for i in range(rank)]
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
        text = f"{name} = {embedded.group(1).strip()}\n"
        lines = text.splitlines()
        found = find_kernels(text, lines, list(itertools.accumulate((len(x) + 1 for x in lines), initial=0)), warnings)
        kernels.append(found[0].kernel if found else Kernel(name=name, kind="triton", source=embedded.group(1)))
    return kernels, params


def cpp_kernels(source: str) -> list[Kernel]:
    """The C++ kernels of the package's ``<hash>.kernel.cpp``, each as its ``extern "C"`` function."""
    found = list(_CPP_KERNEL.finditer(source))
    out = []
    for m in found:
        end = source.find("\n}\n", m.start())
        text = source[m.start(): end + 2 if end > 0 else len(source)]
        params = text[text.index("(") + 1: text.index(")")]
        out.append(Kernel(name=m.group(1), kind="cpp", source=text,
                          arg_types=[" ".join(p.split()[:-1]) for p in params.split(",") if p.strip()]))
    return out


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




# run_impl's steps, read plainly until the C++ wrapper's reader (parse.cpp_wrapper) takes them over
_RUN_IMPL = re.compile(r"^void AOTInductorModel::run_impl\(", re.M)
_ARRAY = re.compile(r"static constexpr int64_t (\w+)\[\] = \{(.*?)\};")
_EMPTY = re.compile(r"aoti_torch_empty_strided\(\d+, (\w+), (\w+), cached_torch_dtype_(\w+), "
                    r"cached_torch_device_type_(\w+).*&(\w+)_handle\)")
_MOVE = re.compile(r"^auto (\w+) = std::move\((\w+)\);")
_RESET = re.compile(r"^(\w+)\.reset\(\);")
_CALL = re.compile(r"^(\w+)\((.*)\);$")
_CHECKED = re.compile(r"^AOTI_TORCH_ERROR_CODE_CHECK\((aoti_torch_\w+)\((.*)\)\);$")
_OUTPUT = re.compile(r"^output_handles\[(\d+)\] = (\w+)\.release\(\);")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_BUFFER = re.compile(r"(?:buf|arg|primals_|tangents_)\d\w*")
_BOOKKEEPING = ("aoti_torch_empty_strided", "aoti_torch_get_", "aoti_torch_delete", "aoti_torch_new_tensor_handle",
                "aoti_torch_as_strided", "aoti_torch__reinterpret_tensor")


def run_impl(code: str, kernels: dict[str, Kernel]) -> CallBody:
    """``run_impl``'s launches (kernels, ``call_<kernel>`` and ``aoti_torch_*`` ops) with the comments above them,
    buffer allocations, reuses and frees, and outputs, in order."""
    out = CallBody()
    start = _RUN_IMPL.search(code)
    if start is None:
        return out
    lines = code.splitlines()
    first = code.count("\n", 0, start.start())
    arrays: dict[str, list[str]] = {}
    pending: list[str] = []
    for i in range(first + 1, len(lines)):
        text = lines[i].strip()
        if lines[i].startswith("}"):
            out.span = [first + 1, i + 1]
            break
        if text.startswith("//"):
            pending = [text] if "Source Nodes:" in text else pending + [text]
            continue
        step = len(out.launches) + len(out.memory)
        for m in _ARRAY.finditer(text):
            arrays[m.group(1)] = [x.strip().rstrip("L") for x in m.group(2).split(",") if x.strip()]
        if m := _EMPTY.search(text):
            shape, stride, dtype = arrays.get(m.group(1), []), arrays.get(m.group(2), []), m.group(3)
            out.device = out.device or m.group(4)
            out.memory.append(BufferEvent(step=step, kind="alloc", buffer=m.group(5), dtype=dtype, shape=shape,
                                          stride=stride, device=m.group(4), nbytes=_nbytes(shape, stride, dtype),
                                          line=i + 1))
        elif m := _MOVE.match(text):
            if text.endswith("// reuse"):
                out.memory.append(BufferEvent(step=step, kind="reuse", buffer=m.group(1), source=m.group(2),
                                              line=i + 1))
        elif m := _RESET.match(text):
            out.memory.append(BufferEvent(step=step, kind="free", buffer=m.group(1), line=i + 1))
        elif m := _OUTPUT.match(text):
            out.outputs.append(m.group(2))
        elif (m := _CHECKED.match(text)) and not m.group(1).startswith(_BOOKKEEPING) or (
                (m := _CALL.match(text)) and (m.group(1) in kernels or m.group(1)[len("call_"):] in kernels)):
            name, args = m.group(1), split_args(m.group(2))
            kernel = name if name in kernels else name[len("call_"):] if name[len("call_"):] in kernels else None
            origin = parse_origin(pending, "//")
            pending = []
            buffers = [next((n for n in _IDENT.findall(a) if _BUFFER.fullmatch(n)), None) for a in args]
            params = kernels[kernel].params() if kernel else []
            launch = Launch(index=len(out.launches), step=step, kernel_name=kernel, op=None if kernel else name,
                            source_nodes=origin.source_nodes, original_aten=origin.original_aten, args=args,
                            line=i + 1, text=text)
            for n, buffer in enumerate(buffers):
                param = params[n] if n < len(params) else "out_ptr" if not kernel and n == 0 else "in_ptr"
                if buffer and not param.startswith("out_"):
                    launch.reads.append(buffer)
                if buffer and param.startswith(("out_", "in_out_")):
                    launch.writes.append(buffer)
            if kernel and not origin.found:
                launch.source_nodes = list(kernels[kernel].source_nodes)
                launch.original_aten = list(kernels[kernel].original_aten)
            out.launches.append(launch)
    return out
