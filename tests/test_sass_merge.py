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
