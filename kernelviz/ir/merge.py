"""Many Triton cubins as one ELF file, so that CUDA's disassembler runs once for them all, and its output split back
into each cubin's SASS as ``nvdisasm`` gives it for that cubin alone.

``nvdisasm`` spends about half a second of CPU starting, whatever the cubin, and tens of kernels in one file take
hardly longer than one: one file per kernel would pay that start once per kernel. The merged file keeps what the
disassembly with line markers (``-c -gi``) reads: each kernel's ``.text`` section and symbols, and its DWARF line
tables (``.debug_line``, ``.nv_debug_line_sass``) with their relocations.
A cubin holding anything else that a relocation refers to (its code calls or addresses another symbol) is not
merged: it is disassembled alone. ``nvdisasm`` numbers branch labels across the whole file; each kernel's labels
are renumbered in their order, as the file of that kernel alone numbers them.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from .cubin import CubinError, _sections

_SYMTAB, _RELA, _NOTE, _NOBITS = 2, 4, 7, 8
_LINES = (".debug_line", ".nv_debug_line_sass")  # what -gi reads besides the code
_DROPPED_RELA = (".rela.debug_frame", ".rela.nv.constant4")  # of sections the code listing does not read
_SECTION, _FUNC = 3, 2
_NOTES = (".note.nv.tkinfo", ".note.nv.cuinfo")  # the toolkit and the target (sm_90a's "a")
_NV_INFO, _NV_COMPAT, _EM_CUDA = 0x70000000, 0x70000086, 190
_PARAM_CBANK = 0x0A  # an attribute of .nv.info.<name> that names the parameter bank's symbol
_HEADER = re.compile(r"(?m)^(?=//--------------------- )")
_LABEL = re.compile(r"\.L_x_(\d+)\b")


@dataclass
class Part:
    """One cubin as the merged file holds it."""

    name: str  # the kernel's name (its .text.<name> section)
    text: bytes
    text_flags: int
    text_info: int  # sh_info: registers in the top byte, the function's symbol below
    text_align: int
    function: tuple[int, int, int]  # st_info, st_other, st_size of the kernel's symbol
    lines: dict[str, tuple[bytes, list[tuple[int, int, int, int]]]]  # section -> (bytes, relocations: offset, symbol,
    # type, addend)
    info: bytes  # its .nv.info.<name> (the kernel's attributes)
    constant0: tuple[bytes, int, int] | None  # its .nv.constant0.<name>: bytes, flags, align
    shared_memory: tuple[int, int, int]  # its .nv.shared.<name> (no bytes in the file): size, flags, align
    attributes: bytes  # its entries in the file's .nv.info (each names the kernel's symbol)
    old: dict[int, str]  # its symbols the attributes name: index -> "function" or "constant0"
    key: tuple  # cubins merge only with cubins of the same key (ELF identity, flags, compatibility, target, shared
    # symbols)
    shared: list[tuple[str, int, int, int]]  # the other non-local symbols: name, info, other, size
    notes: dict[str, tuple[bytes, int, int]]  # its notes: bytes, flags, align (the toolkit's: ptxas's options, which
    # the code listing does not read: the first part's stands for all)
    data: bytes = b""  # the cubin itself


def part(data: bytes) -> Part | None:
    """The cubin as a merged file's part; None where it cannot be merged (it is disassembled alone)."""
    try:
        found = _part(data, _sections(data))
    except (CubinError, struct.error, IndexError, ValueError, KeyError):
        return None
    if found is not None:
        found.data = data
    return found


def _part(data: bytes, sections: list[tuple[str, int, int, int, int, int]]) -> Part | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    texts = [i for i, s in enumerate(sections) if s[0].startswith(".text.")]
    symtab = next((i for i, s in enumerate(sections) if s[1] == _SYMTAB), None)
    if len(texts) != 1 or symtab is None:
        return None
    text_at = texts[0]
    name = sections[text_at][0][len(".text."):]
    symbols = _symbol_rows(data, sections, symtab)
    function = [i for i, (sym, info, _, shndx, _) in enumerate(symbols) if info & 0xF == _FUNC and shndx == text_at]
    if len(function) != 1 or symbols[function[0]][0] != name:
        return None
    by_name = {s[0]: i for i, s in enumerate(sections)}
    constant_at = by_name.get(f".nv.constant0.{name}")
    old = {function[0]: "function"}
    for i, (_, info, _, shndx, _) in enumerate(symbols):
        if info & 0xF == _SECTION and shndx in (text_at, constant_at):
            old[i] = "text" if shndx == text_at else "constant0"
    own = {i for i, what in old.items() if what != "constant0"}
    lines, names = {}, {s[0] for s in sections}
    for section, kind, offset, size, info, _ in sections:
        if kind != _RELA:
            continue
        if section in _DROPPED_RELA or size == 0:  # an empty one: Triton's reductions have .rela.text.<name>
            continue
        target = sections[info & 0xFFFFFF][0] if (info & 0xFFFFFF) < len(sections) else ""
        if target not in _LINES:
            return None  # the code (or another section it reads) refers to a symbol: not merged
        entries = []
        for at in range(offset, offset + size - 23, 24):
            r_offset, r_info, addend = struct.unpack_from("<QQq", data, at)
            if r_info >> 32 not in own:
                return None
            entries.append((r_offset, r_info >> 32, r_info & 0xFFFFFFFF, addend))
        lines[target] = entries
    out_lines = {}
    for section in _LINES:
        if section in names:
            _, _, offset, size, _, _ = next(s for s in sections if s[0] == section)
            out_lines[section] = (data[offset: offset + size], lines.get(section, []))
    shared = [(sym, info, other, sym_size) for i, (sym, info, other, _, sym_size) in enumerate(symbols)
              if i not in own and info >> 4 != 0]  # the other non-local symbols, as undefined ones
    _, _, offset, size, info, _ = sections[text_at]
    flags, align = _section_flags(data, text_at)
    sym = symbols[function[0]]
    def body(section: str) -> bytes:
        at = by_name.get(section)
        return data[sections[at][2]: sections[at][2] + sections[at][3]] if at is not None else b""

    constant0 = (body(f".nv.constant0.{name}"), *_section_flags(data, constant_at)) if constant_at else None
    shared_at = by_name.get(f".nv.shared.{name}")
    shared_memory = (sections[shared_at][3], *_section_flags(data, shared_at)) if shared_at else (0, 3, 16)
    attributes = b"".join(entry for entry, first in _entries(body(".nv.info")) if first in old)
    notes = {section: (body(section), *_section_flags(data, by_name[section])) for section in _NOTES
             if section in by_name}
    key = (data[4:16], struct.unpack_from("<H", data, 0x10)[0], struct.unpack_from("<I", data, 0x30)[0],
           body(".nv.compat"), notes.get(".note.nv.cuinfo"), tuple(shared))
    return Part(name, data[offset: offset + size], flags, info, align, (sym[1], sym[2], sym[4]), out_lines,
                body(f".nv.info.{name}"), constant0, shared_memory, attributes, old, key, shared, notes)


def _entries(info: bytes):
    """(entry bytes, the symbol index its payload starts with or None) of each entry of an ``.nv.info`` section."""
    at = 0
    while at + 4 <= len(info):
        form, size = info[at], struct.unpack_from("<H", info, at + 2)[0]
        end = at + 4 + size if form == 0x04 else at + 4
        first = struct.unpack_from("<I", info, at + 4)[0] if form == 0x04 and size >= 4 else None
        yield info[at:end], first
        at = end


def _renamed(info: bytes, names: dict[int, int], attributes: tuple[int, ...] | None = None) -> bytes:
    """``info`` with the symbol index each entry starts with renamed by ``names`` (only in ``attributes``)."""
    out = b""
    for entry, first in _entries(info):
        if first in names and (attributes is None or entry[1] in attributes):
            entry = entry[:4] + struct.pack("<I", names[first]) + entry[8:]
        out += entry
    return out


def _symbol_rows(data: bytes, sections, symtab: int) -> list[tuple[str, int, int, int, int]]:
    """(name, info, other, shndx, size) of each symbol."""
    _, _, offset, size, _, link = sections[symtab]
    strtab = sections[link][2]
    rows = []
    for at in range(offset, offset + size - 23, 24):
        name, info, other, shndx, _, sym_size = struct.unpack_from("<IBBHQQ", data, at)
        end = data.find(b"\0", strtab + name)
        rows.append((data[strtab + name: end].decode("utf-8", "replace"), info, other, shndx, sym_size))
    return rows


def _section_flags(data: bytes, index: int) -> tuple[int, int]:
    """sh_flags and sh_addralign of section ``index``."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, = struct.unpack_from("<H", data, 0x3A)
    at = shoff + index * entsize
    flags, = struct.unpack_from("<Q", data, at + 8)
    align, = struct.unpack_from("<Q", data, at + 48)
    return flags, align


def merged(parts: list[Part]) -> bytes:
    """One ELF file holding ``parts`` (all of one ``key``): their code, attributes, parameter banks, symbols and
    line tables, each symbol an attribute or relocation names renamed to its place in this file."""
    count = len(parts)
    # sections: 0 null, 1 .shstrtab, 2 .strtab, 3 .symtab, 4-5 line tables, 6-7 their relocations, 8 .nv.info,
    # 9 .nv.compat, 10-11 the notes, then per part: its .nv.info.<name>, its code, its parameter bank, its static
    # shared memory
    at = [12 + 4 * i for i in range(count)]  # each part's .nv.info.<name>; its code, bank and shared memory follow
    strtab, symbols = [b"\0"], [struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)]

    def symbol(name: str, info: int, other: int, shndx: int, size: int) -> int:
        strtab.append(name.encode() + b"\0")
        symbols.append(struct.pack("<IBBHQQ", sum(map(len, strtab[:-1])), info, other, shndx, 0, size))
        return len(symbols) - 1

    names: list[dict[int, int]] = []
    for i, p in enumerate(parts):  # locals first: each code section's and parameter bank's own symbol
        text = symbol(f".text.{p.name}", _SECTION, 0, at[i] + 1, 0)
        renamed = {old: text for old, what in p.old.items() if what == "text"}
        if p.constant0 is not None:
            bank = symbol(f".nv.constant0.{p.name}", _SECTION, 0, at[i] + 2, 0)
            renamed.update({old: bank for old, what in p.old.items() if what == "constant0"})
        names.append(renamed)
    locals_count = len(symbols)
    for i, p in enumerate(parts):
        info, other, size = p.function
        function = symbol(p.name, info, other, at[i] + 1, size)
        names[i].update({old: function for old, what in p.old.items() if what == "function"})
    for sym, info, other, size in parts[0].shared:
        symbol(sym, info, other, 0, size)
    headers = [("", 0, 0, b"", 0, 0, 0, 0)]  # name, type, flags, data, link, info, align, entsize
    headers += [(".shstrtab", 3, 0, b"", 0, 0, 1, 0), (".strtab", 3, 0, b"".join(strtab), 0, 0, 1, 0),
                (".symtab", _SYMTAB, 0, b"".join(symbols), 2, locals_count, 8, 24)]
    relas = []
    for section in _LINES:
        body, entries = b"", []
        for i, p in enumerate(parts):
            data, own = p.lines.get(section, (b"", []))
            entries += [struct.pack("<QQq", len(body) + r_offset, (names[i][sym] << 32) | kind, addend)
                        for r_offset, sym, kind, addend in own]
            body += data
        headers.append((section, 1, 0, body, 0, 0, 1, 0))
        relas.append(b"".join(entries))
    headers += [(f".rela{section}", _RELA, 0x40, relas[i], 3, 4 + i, 8, 24) for i, section in enumerate(_LINES)]
    headers.append((".nv.info", _NV_INFO, 0, b"".join(_renamed(p.attributes, names[i]) for i, p in enumerate(parts)),
                    3, 0, 4, 0))
    headers.append((".nv.compat", _NV_COMPAT, 0, parts[0].key[3], 0, 0, 4, 0))
    for i, name in enumerate(_NOTES):  # the target's note links to the toolkit's, as Triton's cubins have it
        data, flags, align = parts[0].notes.get(name, (b"", 0, 4))
        headers.append((name, _NOTE, flags, data, 10 if i else 0, 9 if i else 0, align, 0))
    for i, p in enumerate(parts):
        headers.append((f".nv.info.{p.name}", _NV_INFO, 0x40, _renamed(p.info, names[i], (_PARAM_CBANK,)), 3,
                        at[i] + 1, 4, 0))
        headers.append((f".text.{p.name}", 1, p.text_flags, p.text, 3,
                        (p.text_info & 0xFF000000) | names[i][next(o for o, w in p.old.items() if w == "function")],
                        p.text_align, 0))
        bank, flags, align = p.constant0 if p.constant0 is not None else (b"", 0, 4)
        headers.append((f".nv.constant0.{p.name}", 1, flags, bank, 0, at[i] + 1, align, 0))
        size, flags, align = p.shared_memory
        headers.append((f".nv.shared.{p.name}", _NOBITS, flags, size, 0, at[i] + 1, align, 0))
    shstrtab = b"".join(name.encode() + b"\0" for name, *_ in headers)
    headers[1] = headers[1][:3] + (shstrtab,) + headers[1][4:]
    body, offsets, name_at = bytearray(64), [], 0
    for _, kind, _, data, _, _, align, _ in headers:
        body += b"\0" * (-len(body) % max(align, 1))
        offsets.append(len(body))
        body += data if kind != _NOBITS else b""
    body += b"\0" * (-len(body) % 8)
    shoff = len(body)
    for (name, kind, flags, data, link, info, align, entsize), offset in zip(headers, offsets):
        size = data if kind == _NOBITS else len(data)
        body += struct.pack("<IIQQQQIIQQ", name_at, kind, flags, 0, offset if kind else 0, size, link, info, align,
                            entsize)
        name_at += len(name.encode()) + 1
    ident, e_type, e_flags = parts[0].key[:3]
    body[0:64] = b"\x7fELF" + ident + struct.pack("<HHIQQQIHHHHHH", e_type, _EM_CUDA, 1, 0, 0, shoff, e_flags, 64,
                                                     0, 0, 64, len(headers), 1)
    return bytes(body)


def split(text: str, parts: list[Part]) -> dict[str, str]:
    """Each part's SASS from the disassembly of their merged file, as that of its cubin alone reads: the file's
    head, the kernel's own section (its labels renumbered from 0 in their order), then the file's tail (its
    shared symbols); a kernel whose section is not found is left out."""
    blocks = _HEADER.split(text)
    head, sections = blocks[0], blocks[1:]
    tail = "".join(b for b in sections if not b.startswith("//--------------------- .text."))
    found = {}
    for block in sections:
        first = block.split("\n", 1)[0]
        if first.startswith("//--------------------- .text."):
            found[first[len("//--------------------- .text."):].split(" ", 1)[0]] = block
    out = {}
    for p in parts:
        block = found.get(p.name)
        if block is None:
            continue
        order = {n: f".L_x_{i}" for i, n in enumerate(sorted({int(m) for m in _LABEL.findall(block)}))}
        out[p.name] = head + _LABEL.sub(lambda m, order=order: order[int(m.group(1))], block) + tail
    return out
