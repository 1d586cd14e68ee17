"""Which lines of the kernel's own module each line of a compiled stage comes from.

Each stage names source positions its own way: MLIR (TTIR, TTGIR) ``loc(...)`` with ``#locN`` aliases,
names, call sites and fused locations; LLVM IR ``!dbg !N`` with ``!DILocation`` metadata (and
``inlinedAt`` chains); PTX ``.loc`` directives over ``.file`` entries (inlined frames in the comment
after them); SASS from ``nvdisasm -g``/``-gi`` ``//## File "...", line N`` markers. Positions in other
files (Triton's ``standard.py``, Inductor's ``triton_helpers.py``, libdevice) count as kernel lines only
through the kernel-file frame they were inlined at, and are kept as helper positions of their own. Files
are matched by base name (the module's name is a content hash).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable

Lines = list[list[int]]  # per line of a stage's text: the kernel file's lines it comes from
Positions = list[list[tuple[str, int]]]  # per line of a stage's text: every (file, line) it names
MAX_HELPERS = 3  # helper positions kept per stage line


def stage_positions(stage: str, text: str) -> Positions:
    """Every source position (file, line) each line of ``text``, a stage named ``stage``, names: its own and
    those of the frames it was inlined at."""
    parser = _PARSERS.get(stage)
    return parser(text) if parser is not None else [[] for _ in text.splitlines()]


def links(positions: Positions, file: str | None, offset: int = 0,
          count: int | None = None) -> tuple[Lines, list[list[str]]]:
    """Per stage line, from the positions it names: the lines of the kernel source it comes from (line N of
    ``file``, matched by base name, is line N - ``offset`` of the source, of ``count`` lines where given), and the
    positions in other files (Inductor's ``triton_helpers.py``, Triton's ``standard.py``, libdevice) as
    ``"name.py:line"``, innermost first, at most ``MAX_HELPERS``. Stage lines that name the same positions (a SASS
    block's instructions) share one answer."""
    base = os.path.basename(file) if file else None
    named: dict[str, str] = {}
    found: dict[tuple, tuple[list[int], list[str]]] = {}
    lines, helpers = [], []
    for row in positions:
        if not row:
            lines.append([])
            helpers.append([])
            continue
        key = tuple(row)
        if (got := found.get(key)) is None:
            own, other = set(), []
            for path, line in row:
                if line <= 0:
                    continue
                name = named.get(path) or named.setdefault(path, os.path.basename(path))
                if name == base:
                    if 0 < line - offset and (count is None or line - offset <= count):
                        own.add(line - offset)
                elif path:
                    other.append(f"{name}:{line}")
            got = found[key] = (sorted(own), list(dict.fromkeys(other))[:MAX_HELPERS])
        lines.append(got[0])
        helpers.append(got[1])
    return lines, helpers


def guess_file(ttir: str) -> str | None:
    """The kernel's module as the TTIR names it (its function's location), where no one said."""
    m = re.search(r'^#loc\d* = loc\("([^"]+)":\d+:\d+\)', ttir, re.M)
    return m.group(1) if m else None


# MLIR ------------------------------------------------------------------------------------------
_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_FILE_POS = re.compile(r":(\d+):(\d+)(?:\s+to\s+:?\d+(?::\d+)?)?")
_ALIAS_REF = re.compile(r"#loc\d*")
_LOC_START = re.compile(r"(?<![\w#])loc\(")


class _MlirLocs:
    """A small parser of MLIR location attributes, with the module's ``#loc`` aliases resolved."""

    def __init__(self, text: str):
        self.aliases = {m.group(1): m.group(2) for m in map(_ALIAS.match, text.splitlines()) if m}
        self.resolved: dict[str, list[tuple[str, int]]] = {}

    def alias(self, name: str) -> list[tuple[str, int]]:
        if name not in self.resolved:
            self.resolved[name] = []  # a cycle resolves to nothing
            expr = self.aliases.get(name)
            self.resolved[name] = self.parse(expr, 0)[0] if expr is not None else []
        return self.resolved[name]

    def parse(self, s: str, i: int) -> tuple[list[tuple[str, int]], int]:
        """One location starting at ``s[i]``: the (file, line) pairs in it, and where it ends."""
        while i < len(s) and s[i] == " ":
            i += 1
        if m := _ALIAS_REF.match(s, i):
            return self.alias(m.group(0)), m.end()
        if s.startswith("unknown", i):
            return [], i + len("unknown")
        if s.startswith("callsite(", i):
            callee, i = self.parse(s, i + len("callsite("))
            i = self._expect(s, i, " at ")
            caller, i = self.parse(s, i)
            return callee + caller, self._expect(s, i, ")")
        if s.startswith("fused", i):
            return self._fused(s, i + len("fused"))
        if m := _STRING.match(s, i):
            i = m.end()
            if pos := _FILE_POS.match(s, i):
                return [(m.group(1), int(pos.group(1)))], pos.end()
            if s.startswith("(", i):
                inner, i = self.parse(s, i + 1)
                return inner, self._expect(s, i, ")")
            return [], i
        raise ValueError(f"unexpected location at {s[i:i + 20]!r}")

    def _fused(self, s: str, i: int) -> tuple[list[tuple[str, int]], int]:
        if s.startswith("<", i):  # fused<metadata>[...]
            depth = 0
            while i < len(s):
                depth += {"<": 1, ">": -1}.get(s[i], 0)
                i += 1
                if depth == 0:
                    break
        i = self._expect(s, i, "[")
        found: list[tuple[str, int]] = []
        while True:
            part, i = self.parse(s, i)
            found += part
            if s.startswith(",", i):
                i += 1
                continue
            return found, self._expect(s, i, "]")

    @staticmethod
    def _expect(s: str, i: int, token: str) -> int:
        if not s.startswith(token, i):
            raise ValueError(f"expected {token!r} at {s[i:i + 20]!r}")
        return i + len(token)


def _mlir(text: str) -> Positions:
    locs = _MlirLocs(text)
    out: Positions = []
    for line in text.splitlines():
        found: list[tuple[str, int]] = []
        if not _ALIAS.match(line):
            for m in _LOC_START.finditer(line):
                try:
                    found += locs.parse(line, m.end())[0]
                except ValueError:
                    continue
        out.append(found)
    return out


# LLVM IR ---------------------------------------------------------------------------------------
_METADATA = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r'(\w+): (?:!(\d+)|"((?:[^"\\]|\\.)*)"|(-?\d+))')
_DBG = re.compile(r"!dbg !(\d+)")


def _llvm(text: str) -> Positions:
    nodes: dict[str, tuple[str, dict[str, str]]] = {}
    for line in text.splitlines():
        if m := _METADATA.match(line):
            fields = {f.group(1): f.group(2) or f.group(3) or f.group(4) or "" for f in _FIELD.finditer(m.group(3))}
            nodes[m.group(1)] = (m.group(2), fields)

    def file_of(ref: str | None, depth: int = 0) -> str:
        kind, fields = nodes.get(ref or "", ("", {}))
        if kind == "DIFile":
            return fields.get("filename", "")
        if "file" in fields:
            return file_of(fields["file"], depth + 1)
        return file_of(fields.get("scope"), depth + 1) if depth < 32 and "scope" in fields else ""

    def positions(ref: str, depth: int = 0) -> list[tuple[str, int]]:
        if ref in resolved:
            return resolved[ref]
        kind, fields = nodes.get(ref, ("", {}))
        if kind not in ("DILocation", "DISubprogram") or depth > 64:
            return []
        here = [(file_of(fields.get("scope") if kind == "DILocation" else ref), int(fields.get("line", 0)))]
        found = resolved[ref] = here + (positions(fields["inlinedAt"], depth + 1) if "inlinedAt" in fields else [])
        return found

    resolved: dict[str, list[tuple[str, int]]] = {}  # a location's positions, each location's once
    out: Positions = []
    for line in text.splitlines():
        m = _DBG.search(line) if not line.startswith("!") else None
        out.append(positions(m.group(1)) if m else [])
    return out


# PTX -------------------------------------------------------------------------------------------
_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+((?:"[^"]*"\s*,?\s*)+)')
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$")
_PTX_INLINED = re.compile(r"inlined_at\s+(\d+)\s+(\d+)")
_PTX_COMMENT_FRAME = re.compile(r"@\[\s*([^\s:]+):(\d+)")


def _ptx(text: str) -> Positions:
    files = {}
    for line in text.splitlines():
        if m := _PTX_FILE.match(line):
            files[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))[-1]
    out: Positions = []
    current: list[tuple[str, int]] = []
    for line in text.splitlines():
        if m := _PTX_LOC.match(line):
            found = [(files.get(m.group(1), ""), int(m.group(2)))]
            found += [(files.get(f, ""), int(n)) for f, n in _PTX_INLINED.findall(m.group(3))]
            found += [(name, int(n)) for name, n in _PTX_COMMENT_FRAME.findall(m.group(3))]
            current = found
        elif line.startswith("}") or line.lstrip().startswith(".section"):
            current = []
        out.append(current)
    return out


# SASS ------------------------------------------------------------------------------------------
_SASS_MARK = re.compile(r'^\s*//## File "([^"]*)", line (\d+)(.*)$')
_SASS_INLINED = re.compile(r'inlined at "([^"]*)", line (\d+)')
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/")
_SASS_END = re.compile("//----")


def _marked(text: str, instruction: re.Pattern = _SASS_INSTRUCTION, end: re.Pattern = _SASS_END) -> Positions:
    """Positions of a disassembly whose instructions follow ``//## File`` markers of where they come from (SASS by
    ``nvdisasm``; a CPU kernel's assembly as :mod:`kernelviz.ir.cpu` writes it), until a line ``end`` matches."""
    out: Positions = []
    current: list[tuple[str, int]] = []
    in_block = False
    for line in text.splitlines():
        if m := _SASS_MARK.match(line):
            found = [(m.group(1), int(m.group(2)))] + [(f, int(n)) for f, n in _SASS_INLINED.findall(m.group(3))]
            current = list(dict.fromkeys(current + found)) if in_block else found
            in_block = True
            out.append(found)
            continue
        in_block = False
        if end.match(line):
            current = []
        out.append(current if instruction.match(line) else [])
    return out


# x86 assembly as objdump writes it: "    25c0:\tpush   %r13", a function's symbol line "00000000000025c0 <name>:"
_ASM_INSTRUCTION = re.compile(r"^\s+[0-9a-f]+:\t")
_ASM_END = re.compile(r"^[0-9a-f]+ <")
_PARSERS: dict[str, Callable[[str], Positions]] = {
    "ttir": _mlir, "ttgir": _mlir, "llir": _llvm, "ptx": _ptx, "sass": _marked,
    "asm": functools.partial(_marked, instruction=_ASM_INSTRUCTION, end=_ASM_END)}


_OPCODE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
UNLINKED_SHARE = 0.2  # above this share of unlinked SASS instructions a kernel's note says which they are


def unlinked_note(stages: list) -> str | None:
    """One line saying which SASS instruction lines carry no line information, where more than
    ``UNLINKED_SHARE`` of them link neither to the kernel's source nor to a helper module."""
    sass = next((s for s in stages if s.name == "sass"), None)
    if sass is None:
        return None
    rows = sass.text.splitlines()
    helpers = sass.helper_lines or [[] for _ in rows]
    instructions = [i for i, row in enumerate(rows) if _SASS_INSTRUCTION.match(row)]
    bare = [i for i in instructions if not (i < len(sass.source_lines) and sass.source_lines[i])
            and not (i < len(helpers) and helpers[i])]
    if not instructions or len(bare) <= UNLINKED_SHARE * len(instructions):
        return None
    opcodes: dict[str, int] = {}
    for i in bare:
        if m := _OPCODE.match(rows[i]):
            opcodes[m.group(1)] = opcodes.get(m.group(1), 0) + 1
    common = ", ".join(f"{op} {n}" for op, n in sorted(opcodes.items(), key=lambda item: -item[1])[:5])
    return (f"SASS: {len(bare)} of {len(instructions)} instruction lines ({100 * len(bare) / len(instructions):.0f}%) "
            f"carry no line information: the disassembler put them under no //## File marker (code ptxas made "
            f"without a source position); most are {common}")
