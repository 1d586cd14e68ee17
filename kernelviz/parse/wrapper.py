"""Read the wrapper's ``call()``: launches, extern calls, buffer events, inputs and outputs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import BufferEvent, Kernel, Launch, TensorSpec, split_list
from .collectives import message_bytes, read_collective
from .comments import parse_origin
from .kernels import line_of
from .numbers import size

# Definitions in the whole text: (the literal text each starts with, found by str.find: a regex scan of the
# whole module is ~5x slower; the regex matched there, see _matches), then checked to start their line (_defs).
_LINE_END = r"[ \t]*(?=[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]|\Z)"  # where str.splitlines ends a line
_CALL_DEF = ("def call(", re.compile(r"def call\((?:self, )?args\):" + _LINE_END))
_PARTITION_DEF = ("def partition_", re.compile(r"def (partition_\d+)\(args\):" + _LINE_END))
_RAND = (" = rand_strided(",
         re.compile(r" = rand_strided\(\((.*?)\), \((.*?)\), device='([^']*)', dtype=torch\.(\w+)\)"))
_PARTITION_USE = re.compile(r"self\.partitions\[(\d+)\]")
_ASSIGN = re.compile(r"^([\w, ()]+?) = (.*)$")
_CALLEE = re.compile(r"^([\w.]+)\(")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_ALLOC = re.compile(r"^empty_strided(?:_(\w+))?\(\((.*?)\), \((.*?)\), (?:dtype=)?torch\.(\w+)")
_ASSERT = re.compile(r"^assert_size_stride\((\w+), \((.*?)\), \((.*?)\)")
_NESTING = re.compile(r"""[()\[\]{}'"]""")
_QUOTE_OR_BRACKET = re.compile(r"""[\[\]{}'"]""")
_SPECIAL = re.compile(r"""[()\[\]{}'",]""")  # what _split_nested looks at

# Calls in call() that do bookkeeping, not work.
SKIP = {"assert_size_stride", "assert_alignment", "get_raw_stream", "torch.cuda.set_device", "args.clear",
        "reinterpret_tensor", "run_intermediate_hooks", "print", "torch.cuda._DeviceGuard", "len",
        "check_alignment"}

DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "float64": 8, "double": 8,
               "int64": 8, "long": 8, "int32": 4, "int": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
               "complex64": 8, "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1}


@dataclass
class CallBody:
    """What call() does, in order."""

    launches: list[Launch] = field(default_factory=list)
    memory: list[BufferEvent] = field(default_factory=list)
    inputs: list[TensorSpec] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    device: str | None = None
    span: list[int] | None = None  # call()'s def line and last body line, 1-based


def split_args(text: str) -> list[str]:
    """Split a call's argument text at its top-level commas."""
    if not _NESTING.search(text):
        parts = text.split(",")
        tail = parts.pop().strip()
        return [p.strip() for p in parts] + ([tail] if tail else [])
    if not _QUOTE_OR_BRACKET.search(text):  # most calls: "x, stride=(1, 1), size=reinterpret_tensor(y, (8, ), 0)"
        return _split_parenthesised(text)
    return _split_nested(text)


def _split_nested(text: str) -> list[str]:
    """:func:`split_args` in general: brackets of every kind, and strings, whose commas do not split."""
    parts, depth, quote, start = [], 0, "", 0
    for m in _SPECIAL.finditer(text):
        i, ch = m.start(), m.group()
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _split_parenthesised(text: str) -> list[str]:
    """:func:`split_args` of a text whose only nesting is parentheses: split at every comma, then join the
    pieces back where the comma after them is inside parentheses."""
    parts, current, depth = [], [], 0
    for piece in text.split(","):
        current.append(piece)
        depth += piece.count("(") - piece.count(")")
        if depth == 0:
            parts.append(",".join(current).strip())
            current = []
    if current:  # the tail, still inside parentheses
        tail = ",".join(current).strip()
        if tail:
            parts.append(tail)
    elif parts[-1] == "":  # an empty tail
        parts.pop()
    return parts


def _call_args(expr: str) -> list[str]:
    """Arguments of ``callee(...)``; the closing paren is the last one of the expression."""
    close = expr.rfind(")")
    return split_args(expr[expr.index("(") + 1 : close if close > 0 else len(expr)])


def _body(lines: list[str], def_line: int) -> list[tuple[int, str]]:
    """(0-based line, stripped text) of each non-empty line of the function defined at ``def_line``: up to the
    first code line indented no deeper than the ``def`` (comments may be)."""
    inside = len(lines[def_line]) - len(lines[def_line].lstrip()) + 1  # white space before a line of the body
    body = []
    for i, line in enumerate(lines[def_line + 1 :], def_line + 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] != "#" and not line[:inside].isspace():
            break
        body.append((i, stripped))
    return body


def _nbytes(shape: list[str], stride: list[str], dtype: str) -> int | None:
    """The bytes a tensor of that shape and stride spans; None where a size is symbolic."""
    sizes, strides = [size(s, "a size") for s in shape], [size(s, "a stride") for s in stride]
    if None in sizes or None in strides:
        return None
    if any(s == 0 for s in sizes):
        return 0
    return (1 + sum((n - 1) * s for n, s in zip(sizes, strides))) * DTYPE_BYTES.get(dtype, 4)


def _matches(text: str, pattern: tuple[str, re.Pattern]):
    """The matches of a (literal start, regex) pattern in ``text``, without overlaps, as ``finditer`` gives."""
    literal, regex = pattern
    at = text.find(literal)
    while at >= 0:
        m = regex.match(text, at)
        at = text.find(literal, m.end() if m else at + 1)
        if m:
            yield m


class _Reader:
    def __init__(self, text: str, lines: list[str], line_starts: list[int], kernels: dict[str, Kernel],
                 skip: list[tuple[int, int]], warnings: list[str]):
        self.text, self.lines, self.starts = text, lines, line_starts
        self.kernels, self.skip, self.warnings = kernels, skip, warnings
        self.out = CallBody()
        self.known: set[str] = set()  # inputs and buffers defined so far
        self.pending: list[str] = []  # comment lines waiting for the next launch
        self.step = 0
        self.extern_outputs: set[str] = set()
        self.partitions = {m.group(1): i for m, i, indent in self._defs(_PARTITION_DEF) if not indent}
        self.inputs: dict[str, TensorSpec] = {}
        self.entered: set[str] = set()  # partitions read (each once: a module that calls itself is not followed)
        self.params: dict[str, list[str]] = {}  # Kernel.params() of the kernels launched so far

    def _defs(self, pattern: tuple[str, re.Pattern]):
        """(match, 0-based line, text before it on the line) of each match that only white space precedes on
        its line, outside kernel sources."""
        for m in _matches(self.text, pattern):
            i = line_of(self.starts, m.start())
            before = self.text[self.starts[i] : m.start()]
            if not before.strip() and not any(first <= i < end for first, end in self.skip):
                yield m, i, before

    def read(self) -> CallBody:
        for _, i, _ in self._defs(_CALL_DEF):
            body = _body(self.lines, i)
            self.out.span = [i + 1, body[-1][0] + 1 if body else i + 1]
            self._block(body)
            break
        self._input_types()
        self._collective_bytes()
        return self.out

    def _block(self, body: list[tuple[int, str]]) -> None:
        for lineno, text in body:
            if text.startswith("#"):
                if "Source Nodes:" in text:
                    self.pending = [text]
                else:
                    self.pending.append(text)
                continue
            reuse = text.endswith("# reuse")
            code = text.split("  #", 1)[0] if "  #" in text else text
            for stmt in code.split("; "):
                try:
                    self._statement(lineno, stmt.strip(), reuse, text)
                except (ValueError, IndexError, KeyError) as exc:
                    self.warnings.append(f"line {lineno + 1} of call() not understood ({type(exc).__name__}); "
                                         "kept as raw text")
            if "partitions[" in text and (m := _PARTITION_USE.search(text)):
                name = f"partition_{m.group(1)}"
                if name in self.partitions and name not in self.entered:
                    self.entered.add(name)
                    self._block(_body(self.lines, self.partitions[name]))

    def _event(self, **kw) -> None:
        self.out.memory.append(BufferEvent(step=self.step, **kw))
        self.step += 1

    def _statement(self, lineno: int, stmt: str, reuse: bool, text: str) -> None:
        line = lineno + 1
        if stmt.startswith("assert_size_stride(") and (a := _ASSERT.match(stmt)):  # a third of call()'s lines
            self._assert(a, line)
            return
        if stmt.startswith("del "):
            for name in split_args(stmt[4:]):
                self._event(kind="free", buffer=name, line=line)
            return
        if stmt.startswith("return "):
            value = stmt[7:].strip()
            self.out.outputs = split_args(value[1:-1] if value.startswith("(") else value)
            return
        if stmt.startswith(("with ", "if ", "else", "for ", "pass")):
            return
        targets, expr = [], stmt
        if " = " in stmt and (m := _ASSIGN.match(stmt)):
            targets, expr = _IDENT.findall(m.group(1)), m.group(2).strip()
        if expr == "args":  # call()'s inputs; a partition's own unpacking (later, reordered) is not
            if not self.out.inputs:
                self.out.inputs = [TensorSpec(name=t) for t in targets]
                self.inputs = {spec.name: spec for spec in self.out.inputs}
            self.known.update(targets)
            return
        if (a := _ALLOC.match(expr)) and targets:
            shape, stride, dtype = split_list(a.group(2)), split_list(a.group(3)), a.group(4)
            self.out.device = self.out.device or a.group(1)
            self._event(kind="alloc", buffer=targets[0], dtype=dtype, shape=shape, stride=stride,
                        device=a.group(1), nbytes=_nbytes(shape, stride, dtype), line=line)
            self.known.update(targets)
            return
        callee = _CALLEE.match(expr)
        if callee is None or callee.group(1) == "reinterpret_tensor":  # an alias: x = y, x = y[0], a view
            base = next((n for n in _IDENT.findall(expr) if n in self.known), None)
            if reuse and base and targets:
                self._event(kind="reuse", buffer=targets[0], source=base, line=line)
            self.known.update(targets)
            return
        name = callee.group(1)
        if name in SKIP or name.startswith("empty_strided"):
            return
        self._launch(line, name, expr, targets, text)
        self.known.update(targets)
        self.extern_outputs.update(targets)

    def _assert(self, a: re.Match, line: int) -> None:
        name, shape, stride = a.group(1), split_list(a.group(2)), split_list(a.group(3))
        spec = self.inputs.get(name)
        if spec is not None:
            spec.shape, spec.stride = spec.shape or shape, spec.stride or stride
        elif name in self.extern_outputs:  # a buffer an extern call allocated: its size, not its dtype
            self.extern_outputs.discard(name)
            self._event(kind="alloc", buffer=name, shape=shape, stride=stride, line=line)

    def _launch(self, line: int, name: str, expr: str, targets: list[str], text: str) -> None:
        kernel_name = name[: -len(".run")] if name.endswith(".run") else name
        args = _call_args(expr)
        launch = Launch(index=len(self.out.launches), step=self.step, line=line, text=text, args=args)
        origin = parse_origin(self.pending)
        self.pending = []
        if kernel_name in self.kernels:
            kernel = self.kernels[kernel_name]
            launch.kernel_name = kernel_name
            self._kernel_rw(launch, kernel)
            if not origin.found:
                origin.source_nodes, origin.original_aten = kernel.source_nodes, kernel.original_aten
        else:
            launch.op = name[len("torch.ops."):] if name.startswith("torch.ops.") else name
            self._extern_rw(launch, name, targets)
            launch.collective = read_collective(launch)
            if launch.collective is not None:
                self._collective_rw(launch)
        launch.source_nodes, launch.original_aten = list(origin.source_nodes), list(origin.original_aten)
        self.out.launches.append(launch)
        self.step += 1

    def _buffer(self, arg: str) -> str | None:
        if arg in self.known:  # most arguments: a buffer's or an input's name
            return arg
        if arg.startswith("stream="):
            return None
        return next((n for n in _IDENT.findall(arg.split("=", 1)[-1]) if n in self.known), None)

    def _kernel_rw(self, launch: Launch, kernel: Kernel) -> None:
        if kernel.name not in self.params:
            self.params[kernel.name] = kernel.params()
        params = self.params[kernel.name]
        for i, arg in enumerate(launch.args):
            buf = self._buffer(arg)
            if buf is None:
                continue
            param = params[i] if i < len(params) else ""
            if not param.startswith("out_"):
                launch.reads.append(buf)
            if param.startswith(("out_", "in_out_")):
                launch.writes.append(buf)

    def _extern_rw(self, launch: Launch, name: str, targets: list[str]) -> None:
        launch.writes.extend(t for t in targets)
        receiver = name.split(".")[0]
        if receiver in self.known and name.endswith("_"):  # in-place method, e.g. buf1.copy_(buf0)
            launch.writes.append(receiver)
        for arg in launch.args:
            buf = self._buffer(arg)
            if buf is None:
                continue
            (launch.writes if arg.startswith("out=") else launch.reads).append(buf)

    def _collective_rw(self, launch: Launch) -> None:
        """An in-place collective (``all_reduce_``) writes its input; ``wait_tensor`` waits for the latest
        collective that wrote or read its buffer."""
        collective = launch.collective
        if collective.op == "wait_tensor":
            waited = set(launch.reads)
            collective.waits_on = next((earlier.index for earlier in reversed(self.out.launches)
                                        if earlier.collective is not None and earlier.collective.op != "wait_tensor"
                                        and waited & set(earlier.writes + earlier.reads)), None)
        elif launch.op.split(".")[1].endswith("_") and launch.reads:
            launch.writes.append(launch.reads[0])

    def _collective_bytes(self) -> None:
        """Message sizes of the collectives, from the sizes of the buffers and inputs they take."""
        if not any(launch.collective is not None for launch in self.out.launches):
            return
        sizes = {e.buffer: e.nbytes for e in self.out.memory if e.kind == "alloc"}
        sources = {e.buffer: e.source for e in self.out.memory if e.kind == "reuse"}
        for spec in self.out.inputs:
            if spec.shape is not None and spec.stride is not None and spec.dtype:
                sizes[spec.name] = _nbytes(spec.shape, spec.stride, spec.dtype)

        def nbytes(name: str) -> int | None:
            seen = set()
            while name in sources and name not in sizes and name not in seen:
                seen.add(name)
                name = sources[name]
            return sizes.get(name)

        for launch in self.out.launches:
            if launch.collective is not None:
                launch.collective.bytes = message_bytes(launch, nbytes)

    def _input_types(self) -> None:
        """Dtype and device of each input, from the ``rand_strided`` calls of the benchmark harness."""
        for m in _matches(self.text, _RAND):
            name = self.text[self.starts[line_of(self.starts, m.start())] : m.start()].strip()
            if name in self.inputs:
                spec = self.inputs[name]
                spec.device, spec.dtype = m.group(3), m.group(4)
                spec.shape = spec.shape or split_list(m.group(1))
                spec.stride = spec.stride or split_list(m.group(2))


def read_call(text: str, lines: list[str], line_starts: list[int], kernels: dict[str, Kernel],
              skip: list[tuple[int, int]], warnings: list[str]) -> CallBody:
    """Parse ``call()`` (a module function or the ``Runner`` method), skipping kernel sources (the spans of
    lines in ``skip``, first and end)."""
    return _Reader(text, lines, line_starts, kernels, skip, warnings).read()
