"""Read a C++ wrapper: what Inductor writes instead of the Python ``call()`` under ``cpp_wrapper = True`` (a C++
string in the output-code module) and in an AOTInductor package (``<hash>.wrapper.cpp``).

Three functions, each given the C++ text alone or the whole module (line numbers are those of the text given):

- :func:`is_cpp_wrapper` -> bool: whether the text holds a C++ wrapper's entry function.
- :func:`cpp_kernels` -> ``list[Kernel]``: the C++ kernels it defines (``extern "C" void cpp_fused_...(...) {...}``
  and the ``#include`` lines right above it), with their argument types. Triton kernels are not defined in C++: the
  module's ``async_compile.triton`` definitions (found by :func:`kernelviz.parse.kernels.find_kernels`) or a
  package's cubins hold them.
- :func:`read_cpp_call` -> :class:`~kernelviz.parse.wrapper.CallBody`: the entry function's steps in order, in the
  structures the Python ``call()`` reader returns: ``launches`` (generated kernels by name: ``cpp_fused_x(...)``,
  ``call_triton_x(...)``, ``kernels.triton_x(...)``, ``launchKernel(triton_x, ...)``, with what they read and
  write where ``kernels`` gives their parameters; extern calls ``aoti_torch_*`` (a ``*_out`` shim's first argument
  is its output, ``&bufN_handle`` an output it allocates), each with its ``// Topologically Sorted Source Nodes``
  comment), ``memory`` (``aoti_torch_empty_strided`` allocations with shape, stride, dtype and device, ``// reuse``
  moves, ``.reset()`` frees), ``inputs`` (``inputs[i]``, sized by ``assert_size_stride``), ``outputs``
  (``output_handles[i] = x.release()``) and ``span`` (the entry function's first and last line, 1-based; None
  where the text has no entry function). Arguments are named as the Python wrapper names them (``buf0``, not
  ``(float*)(buf0.data_ptr())``; sizes without the ``L`` suffix).

The entry function is ``inductor_entry_impl`` (JIT) or ``AOTInductorModel::run_impl`` (AOTInductor).
"""

from __future__ import annotations

import itertools
import re

from ..model import Kernel, TensorSpec, split_list
from .wrapper import CallBody, _nbytes, _Reader, split_args

MARKERS = ("cpp_wrapper_src", "CppWrapperCodeCache", "inductor_entry_impl", "AOTInductorModel::run_impl")
_ENTRY = re.compile(r"^[ \t]*void\s+(?:inductor_entry_impl|AOTInductorModel::run_impl)\s*\(", re.M)
_KERNEL_DEF = re.compile(r'^extern "C"\s+[^(]*?\bvoid\s+(?:\w+\s+)*?(\w+)\s*\(([^)]*)\)\s*(;|\{)?', re.M)
_INPUT = re.compile(r"^(?:\[\[maybe_unused\]\] )?auto (\w+) = std::move\(inputs\[(\d+)\]\)$")
_ARRAY = re.compile(r"^(?:static |constexpr |const )*int64_t\s*\*?\s*(\w+)(?:\[\])?\s*=\s*(?:\{(.*)\}|nullptr)$")
_ASSERT = re.compile(r"^assert_size_stride\((\w+), \{(.*?)\}, \{(.*?)\}")
_CHECKED = re.compile(r"^AOTI_TORCH_ERROR_CODE_CHECK\((.*)\)$")
_CALL = re.compile(r"^(?:([\w:]+)\s*=\s*)?([\w.:]+)\((.*)\)$")
_EMPTY = re.compile(r"^aoti_torch_empty_strided\((\d+), (\w+), (\w+), cached_torch_dtype_(\w+), "
                    r"cached_torch_device_type_(\w+), [^,]+, &(\w+)_handle\)$")
_MOVE = re.compile(r"^auto (\w+) = (.*)$")
_CONSTANT = re.compile(r"^(?:\[\[maybe_unused\]\]\s*)?auto&?\s*(\w+) = constants_->at\(\d+\)$")  # AOTInductor's
_RESET = re.compile(r"^(\w+)\.reset\(\)$")
_OUTPUT = re.compile(r"^output_handles\[(\d+)\] = (\w+)\.release\(\)$")
_CAST = re.compile(r"^\([\w:<> ]+\*?\s*\*?\)\((.*)\)$")  # (const float*)(x.data_ptr())
_DATA_PTR = re.compile(r"^(\w+)\.(?:data_ptr|get)\(\)$")
_LONG = re.compile(r"(?<![\w.])(-?\d+)L{1,2}\b")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TRAILING = ("stream", "kernels", "this->cubin_dir_", "this->device_idx_")
# extern functions that do bookkeeping, not work
_BOOKKEEPING = ("aoti_torch_empty_strided", "aoti_torch_new_tensor_handle", "aoti_torch_new_uninitialized_tensor",
                "aoti_torch_delete_tensor_object",
                "aoti_torch__reinterpret_tensor", "aoti_torch_get_", "aoti_torch_create_tensor_from_blob",
                "aoti_torch_item_", "aoti_torch_alloc_", "aoti_torch_check_", "aoti_torch_grad_mode")


def is_cpp_wrapper(text: str) -> bool:
    """Whether ``text`` holds a C++ wrapper (a cpp_wrapper module or an AOTInductor ``wrapper.cpp``)."""
    return any(marker in text for marker in MARKERS) and _ENTRY.search(text) is not None


def cpp_kernels(text: str) -> list[Kernel]:
    """The C++ kernels ``text`` defines (not those it only declares), each once, in order; ``source`` runs from
    the ``extern "C"`` line to the brace that closes the body, ``arg_types`` are its parameters' C++ types."""
    found: dict[str, Kernel] = {}
    for m in _KERNEL_DEF.finditer(text):
        name = m.group(1)
        open_at = text.find("{", m.end(2))
        if m.group(3) == ";" or name in found or open_at < 0 or text[m.end(2):open_at].strip(" \t\n)"):
            continue
        end = _closing(text, open_at)
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        types = [" ".join(p.replace("*", "* ").split()[:-1]).replace(" *", "*").strip() for p in params]
        found[name] = Kernel(name=name, kind="cpp", source=text[_includes_before(text, m.start()):end] + "\n",
                             arg_types=types)
    return list(found.values())


def _includes_before(text: str, start: int) -> int:
    """Where the ``#include`` lines right above offset ``start`` begin (a kernel's source starts with them)."""
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text.startswith("#include", previous):
            break
        start = previous
    return start


def _closing(text: str, open_at: int) -> int:
    """The offset just after the brace that closes the one at ``open_at`` (braces in comments and strings counted:
    Inductor's kernels have none unbalanced)."""
    depth = 0
    for m in re.finditer(r"[{}]", text[open_at:]):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return open_at + m.end()
    return len(text)


def read_cpp_call(text: str, kernels: dict[str, Kernel] | None = None,
                  warnings: list[str] | None = None) -> CallBody:
    """The steps of the C++ wrapper's entry function in ``text`` (see the module's docstring); ``kernels`` by name
    (generated kernels: what a launch reads and writes follows their parameters), ``warnings`` gets a line for
    each statement not understood. A text without an entry function gives an empty body (``span`` None)."""
    lines = text.splitlines()
    reader = _CppReader(text, lines, kernels or {}, warnings if warnings is not None else [])
    return reader.read()


class _CppReader(_Reader):
    """The Python reader's bookkeeping (launch numbering, reads and writes, buffer events), over C++ statements."""

    def __init__(self, text: str, lines: list[str], kernels: dict[str, Kernel], warnings: list[str]):
        starts = list(itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))
        super().__init__(text, lines, starts, kernels, [], warnings)
        self.arrays: dict[str, list[str]] = {}
        self.handles: dict[str, str] = {}  # a new handle to a tensor -> the tensor's name

    def read(self) -> CallBody:
        entry = _ENTRY.search(self.text)
        if entry is None:
            return self.out
        first = self.text.count("\n", 0, entry.start())
        open_at = self.text.find(") {", entry.end())
        open_at = self.text.find("{", open_at if open_at >= 0 else entry.end())
        end = _closing(self.text, open_at)
        body_first = self.text.count("\n", 0, open_at) + 1
        last = self.text.count("\n", 0, end)
        self.out.span = [first + 1, last + 1]
        for lineno in range(body_first, last):
            text = self.lines[lineno].strip()
            if text:
                self._line(lineno, text)
        self._input_types()
        return self.out

    def _line(self, lineno: int, text: str) -> None:
        if text.startswith("//"):
            comment = "#" + text[2:]
            if "Source Nodes:" in comment:
                self.pending = [comment]
            elif self.pending:
                self.pending.append(comment)
            return
        code, _, note = text.partition("//")
        reuse = note.strip() == "reuse"
        for stmt in _statements(code):
            try:
                self._cpp_statement(lineno, stmt, reuse, text)
            except (ValueError, IndexError, KeyError) as exc:
                self.warnings.append(f"line {lineno + 1} of the C++ wrapper not understood ({type(exc).__name__}); "
                                     "kept as raw text")

    def _cpp_statement(self, lineno: int, stmt: str, reuse: bool, text: str) -> None:
        line = lineno + 1
        if m := _INPUT.match(stmt):
            spec = TensorSpec(name=m.group(1))
            self.out.inputs.append(spec)
            self.inputs[spec.name] = spec
            self.known.add(spec.name)
            return
        if m := _ARRAY.match(stmt):
            self.arrays[m.group(1)] = _cpp_list(m.group(2) or "")
            return
        if m := _ASSERT.match(stmt):
            shape, stride = _cpp_list(m.group(2)), _cpp_list(m.group(3))
            spec = self.inputs.get(m.group(1))
            if spec is not None:
                spec.shape, spec.stride = spec.shape or shape, spec.stride or stride
            elif m.group(1) in self.extern_outputs:  # a buffer an extern call allocated: its size
                self.extern_outputs.discard(m.group(1))
                self._event(kind="alloc", buffer=m.group(1), shape=shape, stride=stride, line=line)
            return
        if m := _CONSTANT.match(stmt):  # a weight the package carries: read as an input is
            self.known.add(m.group(1))
            return
        if m := _RESET.match(stmt):
            if m.group(1) in self.known:
                self._event(kind="free", buffer=m.group(1), line=line)
            return
        if m := _OUTPUT.match(stmt):
            index = int(m.group(1))
            self.out.outputs += ["None"] * (index + 1 - len(self.out.outputs))  # one never set: None, as in Python
            self.out.outputs[index] = m.group(2)
            return
        if (m := _MOVE.match(stmt)) and not m.group(2).startswith("std::move(inputs"):
            base = next((n for n in _IDENT.findall(m.group(2)) if n in self.known), None)
            if reuse and base:
                self._event(kind="reuse", buffer=m.group(1), source=base, line=line)
                if m.group(2) == f"std::move({base})":  # the name moved from is empty from here on
                    self._event(kind="free", buffer=base, line=line)
            self.known.add(m.group(1))
            return
        checked = _CHECKED.match(stmt)
        call = _CALL.match(checked.group(1) if checked else stmt)
        if call is None:
            return
        name, args = call.group(2), split_args(call.group(3))
        if m := _EMPTY.match(f"{name}({call.group(3)})"):
            self._alloc(m, line)
            return
        if checked and name == "aoti_torch_new_tensor_handle" and len(args) == 2:
            self.handles[args[1].lstrip("&")] = _plain(args[0])
        if checked and name.startswith(_BOOKKEEPING):
            return
        kernel = self._kernel_name(name, args)
        if kernel is None and not checked:
            return  # a C++ helper (RAII handles, streams, guards), not a launch
        args = [] if name == "launchKernel" else [self.handles.get(a, a) for a in map(_plain, args)]
        self._cpp_launch(line, kernel or name, args, text, kernel is not None)

    def _kernel_name(self, name: str, args: list[str]) -> str | None:
        """The generated kernel a callee launches: ``cpp_fused_x``, ``call_triton_x``, ``kernels.triton_x``, or
        ``launchKernel(triton_x, ...)`` (older torch, whose launch arguments are set up on the lines before)."""
        if name == "launchKernel" and args and args[0] in self.kernels:
            return args[0]
        for candidate in (name, name.removeprefix("kernels."), name.removeprefix("call_")):
            if candidate in self.kernels:
                return candidate
        if name.startswith("call_triton") or name.startswith("kernels.triton"):  # a Triton kernel defined elsewhere
            return name.removeprefix("kernels.").removeprefix("call_")
        return None

    def _alloc(self, m: re.Match, line: int) -> None:
        shape, stride = self.arrays.get(m.group(2), []), self.arrays.get(m.group(3), [])
        if len(shape) != int(m.group(1)):
            shape = stride = None
        dtype, device, buffer = m.group(4), m.group(5), m.group(6)
        self.out.device = self.out.device or device
        nbytes = _nbytes(shape, stride, dtype) if shape is not None else None
        self._event(kind="alloc", buffer=buffer, dtype=dtype, shape=shape, stride=stride, device=device,
                    nbytes=nbytes, line=line)
        self.known.add(buffer)

    def _cpp_launch(self, line: int, name: str, args: list[str], text: str, generated: bool) -> None:
        """A launch: a generated kernel's arguments as the Python wrapper passes them (no device index, stream or
        AOTInductor kernel table); an extern call's outputs (``&buf3_handle``) as ``out=buf3``."""
        handles = {a: a[1:-len("_handle")] for a in args if a.startswith("&") and a.endswith("_handle")}
        if generated:
            stream = False
            while args and (args[-1] in _TRAILING or args[-1].startswith("stream")):
                stream = stream or args[-1].startswith("stream")
                args = args[:-1]
            if stream and args and args[-1].isdigit():
                args = args[:-1]
        self.known.update(handles.values())
        args = [f"out={handles[a]}" if a in handles else a for a in args]
        if not generated and name.endswith("_out") and args and args[0] in self.known:  # the shim's out= first
            args[0] = f"out={args[0]}"
        self._launch(line, name, f"{name}({', '.join(args)})", [], text)
        launch = self.out.launches[-1]
        if generated and launch.kernel_name is None:  # a Triton kernel the text does not define (AOTInductor)
            launch.kernel_name, launch.op = name, None
        self.extern_outputs.update(handles.values())


def _statements(code: str) -> list[str]:
    """The statements of a line (``auto buf3 = ...; buf0.reset();``), each without its semicolon."""
    if code.count(";") <= 1:  # most lines
        return [code.strip().rstrip(";").strip()]
    parts = [p.strip() for p in split_args(code.replace(";", ",;,"))]
    out, current = [], []
    for part in parts + [";"]:
        if part == ";":
            if current:
                out.append(", ".join(current))
            current = []
        elif part:
            current.append(part)
    return out


def _cpp_list(text: str) -> list[str]:
    """``8L, 16L`` -> ``["8", "16"]`` (sizes as the Python wrapper writes them)."""
    return split_list(_LONG.sub(r"\1", text))


def _plain(arg: str) -> str:
    """An argument as the Python wrapper names it: ``(const float*)(buf0.data_ptr())`` -> ``buf0``; a view made
    in place (``wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, ...))``) -> ``buf3`` of it;
    ``1024L`` -> ``1024``."""
    arg = arg.strip()
    if m := _CAST.match(arg):
        arg = m.group(1).strip()
    if m := _DATA_PTR.match(arg):
        return m.group(1)
    if arg.startswith(("wrap_with_raii_handle_if_needed(", "RAIIAtenTensorHandle(")):
        inner = arg[arg.index("(") + 1 : arg.rindex(")")]
        if inner.startswith("reinterpret_tensor_wrapper("):
            return f"reinterpret_tensor({split_args(inner[inner.index('(') + 1 : inner.rindex(')')])[0]})"
        return _plain(inner)
    return _LONG.sub(r"\1", arg)
