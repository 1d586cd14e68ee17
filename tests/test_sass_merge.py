"""Cubins merged into one file for one disassembler run (kernelviz.ir.merge): the file holds each kernel as its
own cubin does, and where CUDA's disassembler is installed, each kernel's SASS split from the merged run is the SASS
of its cubin alone, kept so that the per-kernel reading finds it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kernelviz.ir import merge, stages
from kernelviz.ir.cubin import cubin_kernels

FIXTURES = Path(__file__).parent / "fixtures" / "cubins"
CUBINS = sorted(FIXTURES.glob("*.cubin"))


def test_merged_file_holds_every_kernel_with_its_facts():
    parts = [merge.part(path.read_bytes()) for path in CUBINS]
    assert all(parts)  # a reduction of Triton's too (its .rela.text.<name> is empty)
    alone = {k.name: k for path in CUBINS for k in cubin_kernels(path.read_bytes())}
    groups = {}
    for part in parts:
        groups.setdefault(part.key, []).append(part)
    assert len(groups) == 3  # ptxas 13.5's; Triton's pointwise kernel and its reduction (their ELF flags differ)
    together = {k.name: k for group in groups.values() for k in cubin_kernels(merge.merged(group))}
    assert together.keys() == alone.keys() and len(together) == len(CUBINS)
    for name, kernel in together.items():
        assert (kernel.registers, kernel.shared_bytes) == (alone[name].registers, alone[name].shared_bytes)


def test_a_cubin_that_is_not_one_is_left_alone():
    assert merge.part(b"kernel one") is None
    assert merge.part(CUBINS[0].read_bytes()[:200]) is None


def test_split_renumbers_each_kernels_labels_from_zero():
    part = merge.part(CUBINS[0].read_bytes())
    text = (f"\t.target\tsm_90a\n\n//--------------------- .text.{part.name} ---\n.L_x_7:\n  BRA `(.L_x_31);\n"
            ".L_x_31:\n\n//--------------------- SYMBOLS ---\n")
    assert merge.split(text, [part])[part.name] == (f"\t.target\tsm_90a\n\n//--------------------- .text.{part.name} "
                                                   "---\n.L_x_0:\n  BRA `(.L_x_1);\n.L_x_1:\n\n"
                                                   "//--------------------- SYMBOLS ---\n")


@pytest.mark.skipif(stages._tool("nvdisasm") is None, reason="CUDA's nvdisasm is not installed here")
def test_sass_of_a_merged_run_is_each_cubins_own(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    nvdisasm = stages._tool("nvdisasm")
    own = {path: subprocess.run([nvdisasm, "-c", "-gi", str(path)], capture_output=True, text=True,
                                check=True).stdout for path in CUBINS}
    again = tmp_path / "again"  # a kernel of the same name as another's (of another graph): never in its file
    again.mkdir(exist_ok=True)
    (again / "ln1.cubin").write_bytes((FIXTURES / "lnx.cubin").read_bytes().replace(b"kern_ln_x", b"kern_ln_1"))
    cubins = [*CUBINS, again / "ln1.cubin"]
    own[cubins[-1]] = subprocess.run([nvdisasm, "-c", "-gi", str(cubins[-1])], capture_output=True, text=True,
                                     check=True).stdout
    groups = stages.batches(cubins, workers=2)
    assert sorted(position for group in groups for position, _ in group) == list(range(len(cubins)))
    assert all(len({part.name for _, part in group}) == len(group) for group in groups)
    for group in groups:
        stages.disassemble_batch([part for _, part in group])
    for path in cubins:
        assert stages._kept_sass(path.read_bytes(), nvdisasm) == ("nvdisasm -c -gi", own[path])
        assert stages.disassemble(path) == ("nvdisasm -c -gi", own[path])


def test_read_jobs_disassembles_a_group_in_one_run_and_each_kernel_reads_its_own(tmp_path, monkeypatch):
    """A stand-in disassembler that lists each kernel of the file it is given (name and registers, read from the
    ELF): three Triton kernels' stages read by ``read_jobs`` take one run, and each kernel's SASS is its own."""
    import sys

    from kernelviz import ir
    from kernelviz.ir import StageJob, read_jobs
    from kernelviz.model import Kernel, KernelIR

    calls = tmp_path / "calls"
    tool = tmp_path / "nvdisasm"
    tool.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(Path(stages.__file__).parents[2])!r})\n"
                    "from kernelviz.ir.cubin import cubin_kernels\n"
                    f"open({str(calls)!r}, 'a').write('run\\n')\n"
                    "print('\\t.target\\tsm_90a\\n')\n"
                    "for k in cubin_kernels(open(sys.argv[-1], 'rb').read()):\n"
                    "    print(f'//--------------------- .text.{k.name} ---\\n.L_x_5:\\n  /*0000*/ EXIT ; '\n"
                    "          f'// {k.registers}')\n")
    tool.chmod(0o755)
    monkeypatch.setattr(stages, "_tool", lambda name: str(tool) if name == "nvdisasm" else None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(ir, "_WORKERS", 1)  # one group for them all
    cubins = [FIXTURES / name for name in ("ln1.cubin", "ln2.cubin", "lnx.cubin")]
    kernels = [Kernel(name=merge.part(c.read_bytes()).name, kind="triton", source="") for c in cubins]
    jobs = [StageJob(k, KernelIR(), lambda: ({}, {}, []), c, lambda c=c: stages.disassemble(c))
            for k, c in zip(kernels, cubins)]
    read_jobs(jobs)
    assert calls.read_text().count("run") == 1
    for job, kernel in zip(jobs, kernels):
        sass = next(s for s in job.ir.stages if s.name == "sass").text
        assert f".text.{kernel.name} " in sass and ".L_x_0:" in sass and sass.count(".text.") == 1
