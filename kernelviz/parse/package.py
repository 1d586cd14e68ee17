"""An AOTInductor package (``.pt2``: a zip that ``torch._inductor.aoti_compile_and_package`` writes) read into a
:class:`Capture`, one graph per model it holds (``data/aotinductor/<model>/``): the C++ wrapper as the graph's
code, its steps, the Triton kernels it embeds and the C++ kernels of ``<hash>.kernel.cpp``, each Triton kernel's
cubin facts (registers, shared memory, SASS where CUDA's disassembler is installed), the constants it carries
(not their values), its inputs and its metadata JSON."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..ir.cubin import CubinError, cubin_kernels
from ..ir.stages import StageError, disassemble_bytes, keep
from ..model import Capture, Graph, Kernel, KernelIR, Package, PackageFile
from . import aoti
from .cpp_wrapper import cpp_kernels, read_cpp_call
from .errors import ParseError

SUFFIX = ".pt2"
_ROOT = "data/aotinductor/"
EXPECTED = ("expected an AOTInductor package (a .pt2 zip written by torch._inductor.aoti_compile_and_package, "
            "holding data/aotinductor/<model>/<hash>.wrapper.cpp)")


def is_package(path: Path) -> bool:
    """Whether ``path`` is to be read as a package: its name ends in ``.pt2``, or it is a zip holding one."""
    return path.suffix == SUFFIX or (path.is_file() and zipfile.is_zipfile(path) and _holds_models(path))


def read_package(path: Path | BinaryIO) -> Capture:
    """Every model of the package at ``path`` (or in a binary file object); a one-line :class:`ParseError` for a
    file that is not one."""
    if isinstance(path, (str, os.PathLike)):
        path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            entries = {info.filename: info for info in archive.infolist() if not info.is_dir()}
            models = _models(entries)
            if not models:
                raise ParseError(f"{path}: a zip without {_ROOT}<model>/ entries; {EXPECTED}")
            graphs = [_graph(path, archive, model, files) for model, files in models.items()]
    except FileNotFoundError:
        raise ParseError(f"{path}: no such file; {EXPECTED}") from None
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ParseError(f"{path}: not a zip file or a damaged one ({exc}); {EXPECTED}") from None
    except OSError as exc:
        raise ParseError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__}); {EXPECTED}") from None
    return Capture(graphs=graphs)


def _holds_models(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return bool(_models({info.filename: info for info in archive.infolist()}))
    except (zipfile.BadZipFile, OSError, EOFError):
        return False


def _models(entries: dict) -> dict[str, dict[str, zipfile.ZipInfo]]:
    """By model name, its entries by base name (the archive may put everything under a folder of its own)."""
    models: dict[str, dict[str, zipfile.ZipInfo]] = {}
    for name, info in entries.items():
        at = name.find(_ROOT)
        if at < 0 or (at > 0 and name[at - 1] != "/"):
            continue
        parts = PurePosixPath(name[at + len(_ROOT):]).parts
        if len(parts) >= 2:
            models.setdefault(parts[0], {})[parts[-1]] = info
    return models


def _graph(path: Path | BinaryIO, archive: zipfile.ZipFile, model: str, files: dict[str, zipfile.ZipInfo]) -> Graph:
    warnings: list[str] = []
    package = Package(path=str(path.absolute()) if isinstance(path, Path) else "", model=model,
                      files=[PackageFile(name=info.filename, bytes=info.file_size) for info in files.values()])

    def text(suffix: str) -> str | None:
        name = next((n for n in sorted(files) if n.endswith(suffix)), None)
        return archive.read(files[name]).decode("utf-8", "replace") if name else None

    for name in sorted(n for n in files if n.endswith("metadata.json")):
        try:
            data = json.loads(archive.read(files[name]))
            package.metadata.update({str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {})
        except ValueError:
            package.notes.append(f"{name}: not JSON; left out")
    code = text(".wrapper.cpp") or ""
    if not code:
        package.notes.append("no <hash>.wrapper.cpp in the package (built without its sources): its steps, "
                             "inputs and constants are unknown; kernels are named from their cubins")
    triton, params = aoti.triton_kernels(code, warnings)
    kernels = {k.name: k for k in [*triton, *cpp_kernels(text(".kernel.cpp") or "")]}
    _cubins(archive, files, kernels, params, package)
    body = read_cpp_call(code, kernels, warnings)
    package.constants = aoti.constants(code)
    device = package.metadata.get("AOTI_DEVICE_KEY") or body.device or ("cuda" if triton else "cpu")
    inputs = aoti.inputs(code) or body.inputs
    asserted = {spec.name: spec for spec in body.inputs}  # run_impl's assert_size_stride, where no check says
    for spec in inputs:
        spec.device = spec.device or device
        if spec.name in asserted and spec is not asserted[spec.name]:
            spec.shape, spec.stride = spec.shape or asserted[spec.name].shape, spec.stride or asserted[spec.name].stride
    return Graph(id=model, kind="inference", device=device, code=code, kernels=list(kernels.values()),
                 launches=body.launches, memory=body.memory, inputs=inputs, outputs=body.outputs,
                 call_span=body.span, warnings=warnings, wrapper="cpp", package=package)


def _cubins(archive: zipfile.ZipFile, files: dict[str, zipfile.ZipInfo], kernels: dict[str, Kernel],
            params: dict[str, aoti.LaunchParams], package: Package) -> None:
    """Each Triton kernel's facts from its cubin (a kernel the wrapper does not name gets a kernel of its own, with
    no source) and the launch's warps and shared memory."""
    by_file = {p.cubin: name for name, p in params.items() if p.cubin}
    if params and not any(n.endswith(".cubin") for n in files):
        package.notes.append("no cubin in the package (built with aot_inductor.embed_kernel_binary: they are inside "
                             "the .so): its Triton kernels' registers and SASS are not read")
    for name in sorted(n for n in files if n.endswith(".cubin")):
        data = archive.read(files[name])
        try:
            found = cubin_kernels(data)
        except CubinError as exc:
            package.notes.append(f"{name}: {exc}")
            continue
        for fact in found:
            kernel_name = fact.name if fact.name in kernels else by_file.get(name) or fact.name
            kernel = kernels.setdefault(kernel_name, Kernel(name=kernel_name, kind="triton", source=""))
            launch = params.get(kernel_name, aoti.LaunchParams())
            ir = kernel.ir = KernelIR(num_regs=fact.registers,
                                      shared_bytes=(launch.shared_bytes or 0) + fact.shared_bytes,
                                      notes=[f"binary facts from {name} in the package"])
            if launch.num_warps is not None:
                ir.options["num_warps"] = launch.num_warps
            if not kernel.source:
                ir.notes.append("no source in the package: what its cubin gives")
            try:
                tool, sass = disassemble_bytes(data, fact.name)
                ir.stages.append(keep("sass", sass, [], tool=tool))
            except StageError as exc:
                ir.notes.append(str(exc))
