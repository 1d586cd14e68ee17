"""What a CUDA binary (cubin, an ELF file) says of its kernels without a GPU or CUDA's tools: each kernel's
name, registers (``EIATTR_REGCOUNT`` of ``.nv.info``, else the ``.text.<name>`` section's ``sh_info`` top byte)
and static shared memory (the ``.nv.shared.<name>`` section's size). An AOTInductor package keeps one per Triton
kernel; its SASS comes from CUDA's disassembler where installed (:func:`kernelviz.ir.stages.disassemble_bytes`)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

_REGCOUNT = 0x2F  # EIATTR_REGCOUNT: (symbol index, registers), an SVAL entry of .nv.info
_SVAL = 0x04  # an entry with a 2-byte size and that many bytes; the other formats are 4 bytes in all
_SYMTAB = 2


class CubinError(ValueError):
    """Bytes that are not a 64-bit little-endian ELF file as CUDA writes them; the message is one line."""


@dataclass
class CubinKernel:
    name: str
    registers: int | None = None
    shared_bytes: int = 0  # static shared memory (Triton's is dynamic: the launch passes it)


def cubin_kernels(data: bytes) -> list[CubinKernel]:
    """The kernels a cubin defines, in section order."""
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
        raise CubinError("not a 64-bit little-endian ELF file")
    try:
        sections = _sections(data)
    except struct.error:
        raise CubinError("its section headers run past the file's end") from None
    names = {name: (offset, size, info, link) for name, _, offset, size, info, link in sections}
    kernels = {name[len(".text."):]: CubinKernel(name[len(".text."):], registers=(info >> 24) or None)
               for name, (_, _, info, _) in names.items() if name.startswith(".text.")}
    for kernel in kernels.values():
        shared = names.get(f".nv.shared.{kernel.name}")
        kernel.shared_bytes = shared[1] if shared else 0
    symbols = _symbols(data, sections)
    info = names.get(".nv.info")
    if info is not None:
        for attribute, payload in _attributes(data[info[0]: info[0] + info[1]]):
            if attribute == _REGCOUNT and len(payload) >= 8:
                index, count = struct.unpack_from("<II", payload)
                if index < len(symbols) and symbols[index] in kernels:
                    kernels[symbols[index]].registers = count
    return list(kernels.values())


def _sections(data: bytes) -> list[tuple[str, int, int, int, int, int]]:
    """(name, type, offset, size, info, link) of each section header."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, count, names_at = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQII", data, shoff + i * entsize) for i in range(count)]
    strtab = raw[names_at][4] if names_at < count else 0
    out = []
    for name, kind, _, _, offset, size, link, info in raw:
        end = data.find(b"\0", strtab + name)
        out.append((data[strtab + name: end].decode("utf-8", "replace"), kind, offset, size, info, link))
    return out


def _symbols(data: bytes, sections: list[tuple[str, int, int, int, int, int]]) -> list[str]:
    """The names of the symbol table's entries, by index."""
    table = next((s for s in sections if s[1] == _SYMTAB), None)
    if table is None or table[5] >= len(sections):
        return []
    strtab = sections[table[5]][2]
    names = []
    for at in range(table[2], table[2] + table[3] - 23, 24):
        name, = struct.unpack_from("<I", data, at)
        end = data.find(b"\0", strtab + name)
        names.append(data[strtab + name: end].decode("utf-8", "replace"))
    return names


def _attributes(info: bytes):
    """(attribute, payload) of each entry of an ``.nv.info`` section."""
    at = 0
    while at + 4 <= len(info):
        form, attribute, value = info[at], info[at + 1], struct.unpack_from("<H", info, at + 2)[0]
        if form == _SVAL:
            yield attribute, info[at + 4: at + 4 + value]
            at += 4 + value
        else:
            yield attribute, info[at + 2: at + 4]
            at += 4
