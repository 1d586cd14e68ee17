"""Read a Triton kernel's compiled stages from Triton's cache folder, and its SASS from the cubin.

The folder is named by the chosen launcher's ``cache_hash``; the ``.json`` beside the stages is Triton's
metadata of that binary, whose ``hash`` encodes the folder's name (base32), which is checked before any
file is trusted. SASS comes from CUDA's ``nvdisasm`` (``-gi``, else ``-g``: with line markers), else
``cuobjdump --dump-sass``, where either tool exists; a capture's cubins are disassembled a group at a time, merged
into one file (:mod:`kernelviz.ir.merge`: the tool's start costs more than a kernel); each cubin's SASS is kept
(compressed) in kernelviz's cache folder by the cubin's content and the tool, so a kernel seen again is not
disassembled again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import zlib
from pathlib import Path

from ..children import cache_folder
from ..model import IRStage
from . import merge
from .lines import Lines

FILE_STAGES = ("ttir", "ttgir", "llir", "ptx")
STAGES = FILE_STAGES + ("sass",)
MAX_STAGE_BYTES = 64 * 1024  # per stage; the rest is left out with a visible marker
OPTION_KEYS = ("name", "num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl",
               "debug", "arch", "shared", "ptx_version", "triton_version")
_TOOL_TIMEOUT_S = 60
_NVDISASM = ("-c", "-gi")  # code only, with line markers of inlined frames


class StageError(RuntimeError):
    """A stage could not be read (the message says why, in one line)."""


def cache_root() -> str:
    """Triton's cache folder in this process now (its knob, else its environment variable and default)."""
    try:
        from triton import knobs

        return knobs.cache.dir
    except (ImportError, AttributeError):
        pass
    try:
        from triton.runtime.cache import default_cache_dir
    except ImportError:
        raise StageError("Triton is not installed here") from None
    return os.getenv("TRITON_CACHE_DIR", "").strip() or default_cache_dir()


def cache_roots(device: int = 0, seen: str | None = None) -> list[str]:
    """Where a binary Inductor built may be, first the likeliest: the ``TRITON_CACHE_DIR`` seen when the
    capture ended, Inductor's Triton folder for ``device`` (where its compile workers and its static launcher
    put and load binaries: ``TRITON_CACHE_DIR`` is set only in processes that built an autotuner, so the one
    that ran the kernel may not have it), Triton's own folder now, and Triton's default one."""
    roots = [seen] if seen else []
    try:
        from torch._inductor.runtime.cache_dir_utils import triton_cache_dir

        roots.append(triton_cache_dir(device))
    except Exception:  # noqa: BLE001 - an older or newer torch: the other folders still count
        pass
    try:
        roots.append(cache_root())
        from triton.runtime.cache import default_cache_dir

        roots.append(default_cache_dir())  # where a binary built while TRITON_CACHE_DIR was unset went
    except (StageError, ImportError, AttributeError):
        pass
    return list(dict.fromkeys(roots))


def folder_hash(metadata_hash: str) -> str:
    """The folder name Triton's cache gives a binary whose metadata ``hash`` (hex) is this."""
    return base64.b32encode(bytes.fromhex(metadata_hash)).decode().rstrip("=")


def folder_key(value: object) -> str | None:
    """:func:`folder_hash` of a metadata ``hash`` of any type; None where it is not hex."""
    try:
        return folder_hash(str(value))
    except ValueError:
        return None


def binary_folder(cache_hash: str, name: str, roots: list[str] | None = None) -> tuple[Path, dict]:
    """The cache folder of ``cache_hash`` (in the first of ``roots`` that has it, by default
    :func:`cache_roots`) and the metadata of kernel ``name`` in it, once checked."""
    roots = cache_roots() if roots is None else roots
    for root in roots:
        folder = Path(root) / cache_hash
        meta_path = folder / f"{name}.json"
        if meta_path.is_file():
            break
    else:
        where = " or ".join(str(Path(root) / cache_hash) for root in roots) or "no cache folder"
        raise StageError(f"Triton's cache has no {name}.json in {where} (the binary's files were removed "
                         "or written elsewhere); the binary facts come from the launcher")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as exc:
        raise StageError(f"{meta_path} could not be read: {type(exc).__name__}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("name", name) != name or (
            "hash" in meta and folder_key(meta["hash"]) != cache_hash):
        raise StageError(f"{meta_path} describes another binary than the launcher's ({cache_hash})")
    return folder, meta


def read_stage(folder: Path, name: str, stage: str) -> str:
    path = folder / f"{name}.{stage}"
    if not path.is_file():
        raise StageError(f"no {stage} in Triton's cache folder {folder}")
    return path.read_text(errors="replace")


def _tool(name: str) -> str | None:
    """CUDA tool ``name``: Triton's own copy (its knob), else on PATH, else CUDA's bin folder."""
    try:
        from triton import knobs

        return getattr(knobs.nvidia, name).path
    except Exception:  # noqa: BLE001 - Triton raises RuntimeError when it has no such tool
        pass
    found = shutil.which(name)
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", name), os.X_OK):
            return os.path.join(root, "bin", name)
    return None


def disassemble(cubin: Path) -> tuple[str, str]:
    """The command and the SASS of a cubin with line markers: ``nvdisasm -c -gi`` (``-g`` where -gi fails),
    else ``cuobjdump --dump-sass``."""
    commands = []
    if nvdisasm := _tool("nvdisasm"):
        commands += [[nvdisasm, *_NVDISASM, str(cubin)], [nvdisasm, "-c", "-g", str(cubin)]]
    if cuobjdump := _tool("cuobjdump"):
        commands.append([cuobjdump, "--dump-sass", str(cubin)])
    if not commands:
        raise StageError("no SASS: neither nvdisasm nor cuobjdump (CUDA's tools) is installed here")
    try:
        data = cubin.read_bytes()
    except OSError:
        data = None
    kept = _kept_sass(data, commands[0][0])
    if kept is not None:
        return kept
    errors = []
    for command in commands:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=_TOOL_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            errors.append(f"{os.path.basename(command[0])}: {type(exc).__name__}")
            continue
        if done.returncode == 0 and done.stdout.strip():
            tool = " ".join([os.path.basename(command[0])] + command[1:-1])
            _keep_sass(data, commands[0][0], tool, done.stdout)
            return tool, done.stdout
        errors.append(f"{os.path.basename(command[0])} {command[-2]}: {done.stderr.strip().splitlines()[-1:]}")
    raise StageError("no SASS: " + "; ".join(errors))


def batches(cubins: list[bytes | Path | None], workers: int) -> list[list[tuple[int, merge.Part]]]:
    """The cubins whose SASS is not kept yet, in groups to disassemble together (:func:`disassemble_batch`) spread
    over ``workers``, each with its position in ``cubins``; a cubin that cannot be merged or read is left out (to
    :func:`disassemble`)."""
    nvdisasm = _tool("nvdisasm")
    if nvdisasm is None:
        return []
    groups: dict[tuple, list[tuple[int, merge.Part]]] = {}
    for position, cubin in enumerate(cubins):
        try:
            data = cubin if isinstance(cubin, bytes | None) else cubin.read_bytes()
        except OSError:
            continue
        if data is not None and not _sass_path(data, nvdisasm).is_file() and (part := merge.part(data)) is not None:
            groups.setdefault(part.key, []).append((position, part))
    size = max(1, -(-sum(map(len, groups.values())) // max(workers, 1)))
    out: list[list[tuple[int, merge.Part]]] = []
    for group in groups.values():
        chunks: list[list[tuple[int, merge.Part]]] = []
        for item in group:  # two kernels of one name (of two graphs) never share a file
            chunk = next((c for c in chunks if len(c) < size and all(p.name != item[1].name for _, p in c)), None)
            if chunk is None:
                chunks.append(chunk := [])
            chunk.append(item)
        out += chunks
    return out


def disassemble_batch(parts: list[merge.Part]) -> None:
    """Disassemble ``parts`` in one run of ``nvdisasm`` (their cubins merged into one file) and keep each one's SASS
    as :func:`disassemble` keeps it; what fails is left to :func:`disassemble`, cubin by cubin."""
    nvdisasm = _tool("nvdisasm")
    if nvdisasm is None or not parts:
        return
    with tempfile.TemporaryDirectory(prefix="kernelviz-sass-") as folder:
        path = Path(folder) / "merged.cubin"
        path.write_bytes(merge.merged(parts))
        try:
            done = subprocess.run([nvdisasm, *_NVDISASM, str(path)], capture_output=True, text=True,
                                  timeout=_TOOL_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return
    if done.returncode != 0:
        return
    texts = merge.split(done.stdout, parts)
    for part in parts:
        if texts.get(part.name, "").strip():
            _keep_sass(part.data, nvdisasm, " ".join(["nvdisasm", *_NVDISASM]), texts[part.name])


def _sass_path(cubin: bytes | None, tool: str) -> Path | None:
    """Where the SASS of ``cubin`` (its bytes) as ``tool`` gives it is kept (by their contents' hash)."""
    if cubin is None:
        return None
    digest = hashlib.sha256(cubin + b"\0" + tool.encode()).hexdigest()
    return cache_folder("sass") / f"{digest}.z"


def _kept_sass(cubin: bytes | None, tool: str) -> tuple[str, str] | None:
    """The command and SASS kept for this cubin and tool, where they were kept before."""
    path = _sass_path(cubin, tool)
    if path is None:
        return None
    try:
        command, _, text = zlib.decompress(path.read_bytes()).decode().partition("\n")
    except (OSError, zlib.error, UnicodeDecodeError):
        return None
    return (command, text) if text else None


def _keep_sass(cubin: bytes | None, tool: str, command: str, text: str) -> None:
    """Keep the SASS for the next time (written whole or not at all; a folder that cannot be written keeps none)."""
    path = _sass_path(cubin, tool)
    if path is None:
        return
    part = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(zlib.compress(f"{command}\n{text}".encode(), 1))
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)


def disassemble_bytes(cubin: bytes, name: str) -> tuple[str, str]:
    """:func:`disassemble` of a cubin held in memory (written to a temporary folder for the tool)."""
    with tempfile.TemporaryDirectory(prefix="kernelviz-sass-") as folder:
        path = Path(folder) / f"{name}.cubin"
        path.write_bytes(cubin)
        return disassemble(path)


def _metadata(stage: str, rows: list[str]) -> set[int]:
    """Rows that only carry line information, which the links already hold: MLIR's ``#loc`` aliases and
    PTX's DWARF sections."""
    if stage in ("ttir", "ttgir"):
        return {i for i, row in enumerate(rows) if row.startswith("#loc")}
    if stage == "ptx":
        start = next((i for i, row in enumerate(rows) if row.startswith("\t.section\t.debug")), len(rows))
        return set(range(start, len(rows)))
    return set()


def keep(name: str, text: str, lines: Lines, cap: int = MAX_STAGE_BYTES, tool: str = "",
         helpers: list[list[str]] | None = None) -> IRStage:
    """The stage as the capture keeps it: without rows of line information only, at most ``cap`` bytes cut
    at a line end, and a marker line for each part left out, with its size."""
    rows = text.splitlines(keepends=True)
    sizes = [len(row.encode("utf-8", "replace")) for row in rows]
    dropped = _metadata(name, rows)
    shown = [i for i in range(len(rows)) if i not in dropped]
    kept, used = [], 0
    for i in shown:
        if used + sizes[i] > cap:
            break
        kept.append(i)
        used += sizes[i]
    markers = []
    if dropped:
        what = "location aliases (#loc)" if name in ("ttir", "ttgir") else "DWARF debug sections"
        markers.append(f"… {sum(sizes[i] for i in dropped):,} bytes of {what} left out: "
                       "the links to source lines come from them\n")
    if len(kept) < len(shown):
        left = sum(sizes[i] for i in shown[len(kept):])
        markers.append(f"… truncated: {left:,} more bytes left out (kernelviz keeps {cap:,} bytes per stage)\n")
    body = "".join(rows[i] if rows[i].endswith("\n") else rows[i] + "\n" for i in kept)
    return IRStage(name=name, text=body + "".join(markers), bytes=sum(sizes), truncated_bytes=sum(sizes) - used,
                   source_lines=[lines[i] if i < len(lines) else [] for i in kept] + [[] for _ in markers],
                   helper_lines=[helpers[i] if i < len(helpers) else [] for i in kept] + [[] for _ in markers]
                   if helpers and any(helpers) else [], tool=tool)
