"""Triton's compiled stages on stored H100 artifacts: line links of TTIR, TTGIR, LLVM IR, PTX and SASS to
the kernel source kernelviz shows, reading a cache folder, truncation, occupancy, and the views of them."""

import re
import types
from pathlib import Path

import pytest

import kernelviz
from kernelviz.ir import kernel_ir, stages
from kernelviz.ir.lines import guess_file, links, stage_positions
from kernelviz.ir.occupancy import DeviceLimits, occupancy
from kernelviz.views.stages import stages_view

STAGES_DIR = Path(__file__).parent / "fixtures" / "triton-stages"
H100 = DeviceLimits(regs_per_sm=65536, shared_per_sm=233472, threads_per_sm=2048, capability=(9, 0))  # facts.json
KERNELS = {  # the chosen launcher of the H100 run (facts.json): cache_hash, module, registers, shared memory
    "triton_per_fused_native_layer_norm_relu_0": ("CEY3FOEG2AASTFO3JABLQVU3WBXTNUALNNJ67HACOIKYE3R6H2KQ",
                                                  "mlp_norms_1.code", 27, 8),
}
# a stage line that does X -> the source line it must link to does X
STORES = {"ttir": r"tt\.store", "ttgir": r"tt\.store", "llir": r"st\.global", "ptx": r"st\.global", "sass": r"\bSTG\b"}
LOADS = {"ttir": r"tt\.load", "ttgir": r"tt\.load", "llir": r"ld\.global", "ptx": r"ld\.global", "sass": r"\bLDG\b"}


def _kernel(name):
    code = STAGES_DIR / KERNELS[name][1]
    return kernelviz.load(code).graphs[0].kernel(name)


def _texts(name):
    folder = STAGES_DIR / KERNELS[name][0]
    return {stage: (folder / f"{name}.{stage}").read_text() for stage in ("ttir", "ttgir", "llir", "ptx", "sass")}


def _links(name):
    kernel, texts = _kernel(name), _texts(name)
    file = guess_file(texts["ttir"])
    count = len(kernel.source.splitlines())
    return kernel, texts, {s: links(stage_positions(s, t), file, 1, count)[0] for s, t in texts.items()}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_stage_lines_link_to_the_source_lines_that_do_the_same(name):
    kernel, texts, links = _links(name)
    source = kernel.source.splitlines()
    for stage, text in texts.items():
        lines = text.splitlines()
        assert len(links[stage]) == len(lines)
        for pattern, call in ((STORES[stage], "tl.store("), (LOADS[stage], "tl.load(")):
            hits = [links[stage][i] for i, line in enumerate(lines) if re.search(pattern, line) and links[stage][i]]
            assert hits, (stage, pattern)
            assert all(any(call in source[n - 1] for n in found) for found in hits), (stage, pattern)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_kernel_function_links_to_its_def_line(name):
    kernel, texts, links = _links(name)
    def_line = next(i + 1 for i, line in enumerate(kernel.source.splitlines()) if line.startswith(f"def {name}("))
    ttir = texts["ttir"].splitlines()
    func = next(i for i, line in enumerate(ttir) if f"tt.func public @{name}(" in line)
    assert links["ttir"][func] == [def_line]
    llir = texts["llir"].splitlines()
    define = next(i for i, line in enumerate(llir) if line.startswith("define ") and f"@{name}(" in line)
    assert links["llir"][define] == [def_line]
    sass = texts["sass"].splitlines()
    first_marker = next(i for i, line in enumerate(sass) if line.lstrip().startswith("//## File"))
    assert links["sass"][first_marker] == [def_line]


def test_every_stage_links_most_of_its_code_and_only_to_real_lines():
    for name in KERNELS:
        kernel, texts, links = _links(name)
        count = len(kernel.source.splitlines())
        assert all(0 < n <= count for stage in links.values() for found in stage for n in found)
        sass = texts["sass"].splitlines()
        instructions = [i for i, line in enumerate(sass) if re.match(r"\s*/\*[0-9a-f]{4}\*/", line)]
        linked = sum(1 for i in instructions if links["sass"][i])
        assert linked / len(instructions) > 0.4  # the rest are in Triton's standard.py (nvdisasm -g, not -gi)


def test_inlined_frames_count_through_the_kernel_line_they_were_called_from():
    """The layer norm's sums are Triton's tl.sum (standard.py) inlined at a kernel line: TTGIR callsite
    locations, LLVM inlinedAt chains and PTX '@[ file:line ]' comments all lead back to that line."""
    kernel, texts, links = _links("triton_per_fused_native_layer_norm_relu_0")
    source = kernel.source.splitlines()
    sum_line = next(i + 1 for i, line in enumerate(source) if "tl.sum(" in line)
    for stage, marker in (("ttgir", "callsite("), ("llir", None), ("ptx", "standard.py:")):
        lines = texts[stage].splitlines()
        inlined = [i for i, line in enumerate(lines) if (marker in line if marker else "inlinedAt" in line)]
        if stage == "llir":  # instructions whose !dbg location is inlined
            refs = {m.group(1) for i in inlined for m in [re.match(r"^!(\d+) = ", lines[i])] if m}
            dbg = [(i, re.search(r"!dbg !(\d+)", line)) for i, line in enumerate(lines)]
            inlined = [i for i, m in dbg if m and m.group(1) in refs]
        assert inlined, stage
        assert any(sum_line in links[stage][i] for i in inlined), stage


def test_mlir_locations_of_every_form_resolve():
    text = "\n".join([
        '#loc = loc("/k/mod.py":18:0)',
        '#loc1 = loc("/lib/standard.py":293:36)',
        '#loc2 = loc("tmp7"(#loc3))',
        '#loc3 = loc("/k/mod.py":41:24)',
        '    %0 = arith.addf %a, %b : f32 loc(callsite(#loc1 at #loc2))',
        '    %1 = arith.mulf %a, %b : f32 loc(fused<"x">[#loc3, "/k/mod.py":44:2])',
        '    %2 = arith.subf %a, %b : f32 loc("/k/mod.py":45:1 to :45:9)',
        '    %3 = arith.divf %a, %b : f32 loc(unknown)',
        '    ^bb0(%x: f32 loc("x"(#loc)), %y: f32 loc(#loc3)):',
    ])
    found = links(stage_positions("ttgir", text), "/elsewhere/mod.py")[0]  # matched by the module's base name
    assert found == [[], [], [], [], [41], [41, 44], [45], [], [18, 41]]


def test_sass_inline_markers_link_the_calling_line():
    """``nvdisasm -gi`` adds the frame an inlined line was called from."""
    text = "\n".join(['\t//## File "/lib/standard.py", line 293 inlined at "/k/mod.py", line 41',
                      "        /*00d0*/                   S2UR UR6, SR_CgaCtaId ;",
                      '\t//## File "/k/mod.py", line 35',
                      "        /*0100*/                   UMOV UR5, 0xf0 ;"])
    assert links(stage_positions("sass", text), "/k/mod.py")[0] == [[41], [41], [35], [35]]


def test_kept_stages_leave_out_line_metadata_and_truncate_at_whole_lines_saying_how_much():
    texts = _texts("triton_per_fused_native_layer_norm_relu_0")
    ptx = texts["ptx"]
    rows = ptx.splitlines(keepends=True)
    lines = [[i] for i in range(len(rows))]
    debug = next(i for i, row in enumerate(rows) if row.startswith("\t.section\t.debug"))
    whole = stages.keep("ptx", ptx, lines)
    body = whole.text.splitlines(keepends=True)
    assert "".join(body[:-1]) == "".join(rows[:debug])  # the code whole, DWARF sections out
    dwarf = len("".join(rows[debug:]).encode())
    assert body[-1] == f"… {dwarf:,} bytes of DWARF debug sections left out: the links to source lines come from them\n"
    assert (whole.bytes, whole.truncated_bytes) == (len(ptx.encode()), dwarf)
    assert whole.source_lines == lines[:debug] + [[]]
    cut = stages.keep("ptx", ptx, lines, cap=4096)
    body = cut.text.splitlines(keepends=True)
    kept = "".join(body[:-2])
    assert ptx.startswith(kept) and len(kept.encode()) <= 4096 < len(kept.encode()) + len(rows[len(body) - 2].encode())
    assert body[-1] == (f"… truncated: {len(''.join(rows[:debug]).encode()) - len(kept.encode()):,} more bytes left "
                        "out (kernelviz keeps 4,096 bytes per stage)\n")
    assert cut.truncated_bytes == cut.bytes - len(kept.encode()) and cut.source_lines[:-2] == lines[: len(body) - 2]
    ttgir = stages.keep("ttgir", texts["ttgir"], [[]] * len(texts["ttgir"].splitlines()))
    assert not any(row.startswith("#loc") for row in ttgir.text.splitlines()) and "(#loc) left out" in ttgir.text
    sass = stages.keep("sass", texts["sass"], [[]] * len(texts["sass"].splitlines()))
    assert sass.text == texts["sass"] and sass.truncated_bytes == 0


def test_cache_folder_is_checked_against_the_metadata_hash(monkeypatch, tmp_path):
    monkeypatch.setattr(stages, "cache_root", lambda: str(STAGES_DIR))
    for name, (cache_hash, *_rest) in KERNELS.items():
        folder, meta = stages.binary_folder(cache_hash, name)
        assert folder.name == cache_hash == stages.folder_hash(meta["hash"]) and meta["name"] == name
    other = tmp_path / "WRONG"
    other.mkdir()
    name = "triton_per_fused_native_layer_norm_relu_0"
    (other / f"{name}.json").write_text((STAGES_DIR / KERNELS[name][0] / f"{name}.json").read_text())
    monkeypatch.setattr(stages, "cache_root", lambda: str(tmp_path))
    with pytest.raises(stages.StageError, match="another binary"):
        stages.binary_folder("WRONG", name)
    with pytest.raises(stages.StageError, match="no missing.json"):
        stages.binary_folder("WRONG", "missing")


def test_kernel_ir_from_a_torch_2_11_launcher(monkeypatch):
    """On torch 2.11 a launcher is a plain function with cache_hash, config, n_regs, n_spills and shared."""
    monkeypatch.setattr(stages, "cache_root", lambda: str(STAGES_DIR))
    monkeypatch.setattr(stages, "_tool", lambda name: None)  # as on a machine without CUDA's tools
    name = "triton_per_fused_native_layer_norm_relu_0"
    cache_hash, _, regs, shared = KERNELS[name]

    def launcher():
        pass

    launcher.cache_hash, launcher.n_regs, launcher.n_spills, launcher.shared = cache_hash, regs, 0, shared
    module = guess_file(_texts(name)["ttir"])
    ir = kernel_ir(_kernel(name), types.SimpleNamespace(launchers=[launcher], filename=module), H100)
    assert [s.name for s in ir.stages] == ["ttir", "ttgir", "llir", "ptx"]
    assert ir.notes == ["no SASS: neither nvdisasm nor cuobjdump (CUDA's tools) is installed here"]
    assert ir.options["num_warps"] == 2 and ir.options["arch"] == "sm90" and ir.options["debug"] is True
    assert (ir.num_regs, ir.num_spills, ir.shared_bytes, ir.file, ir.line_offset) == (regs, 0, shared, module, 1)
    assert ir.occupancy.blocks_per_sm == 32 and ir.occupancy.warps_per_sm == 64
    assert all(any(found) for found in (s.source_lines for s in ir.stages))
    unrun = kernel_ir(_kernel(name), types.SimpleNamespace(launchers=[launcher, launcher]), H100)
    assert unrun.stages == [] and "has not run" in unrun.notes[0]


def test_occupancy_follows_cuda_rules():
    small = occupancy(H100, num_warps=4, regs=32, shared=0)
    assert (small.blocks_per_sm, small.limited_by, small.warps_per_sm) == (16, "registers, threads", 64)
    heavy = occupancy(H100, num_warps=8, regs=255, shared=0)  # 8192 registers per warp: 2 warps per sub-partition
    assert (heavy.blocks_per_sm, heavy.limited_by, heavy.by_registers) == (1, "registers", 1)
    odd = occupancy(H100, num_warps=4, regs=40, shared=0)  # 1280 per warp: 12 warps per sub-partition, 48 per SM
    assert (odd.by_registers, odd.blocks_per_sm) == (12, 12)
    smem = occupancy(H100, num_warps=4, regs=32, shared=100_000)  # 100000 + 1 KB reserved -> 101120 B per block
    assert (smem.blocks_per_sm, smem.limited_by, smem.by_shared_memory) == (2, "shared memory", 2)
    tiny = occupancy(H100, num_warps=1, regs=16, shared=0)
    assert (tiny.blocks_per_sm, tiny.limited_by) == (32, "blocks")
    assert tiny.warps_per_sm <= tiny.max_warps_per_sm == 64
    unknown = occupancy(DeviceLimits(65536, 233472, 2048, capability=(99, 0)), num_warps=1, regs=16, shared=0)
    assert unknown.by_blocks is None and unknown.limited_by == "threads"


def test_stage_view_tokens_cover_each_stage_and_say_why_when_none(monkeypatch):
    monkeypatch.setattr(stages, "cache_root", lambda: str(STAGES_DIR))
    name = "triton_per_fused_native_layer_norm_relu_0"
    kernel = _kernel(name)
    assert stages_view(kernel)["notes"] == ["compiled stages are kept for Triton kernels that ran on a GPU: capture "
                                            "the code on a CUDA device to see them"]

    def launcher():
        pass

    launcher.cache_hash, launcher.n_regs, launcher.n_spills, launcher.shared = KERNELS[name][0], 27, 0, 8
    kernel.ir = kernel_ir(kernel, types.SimpleNamespace(launchers=[launcher], filename=None), H100)
    view = stages_view(kernel)
    for stage in view["stages"]:
        assert sum(stage["tokens"][1::2]) == len(stage["text"])
        assert len(stage["lines"]) == len(stage["text"].splitlines())
    ptx = next(s for s in view["stages"] if s["name"] == "ptx")
    assert {"k", "nf", "c1", "m"} & set(ptx["tokens"][::2])  # pygments' PTX lexer: keywords, comments, numbers
    assert view["facts"]["occupancy"]["limited by"] and view["facts"]["registers per thread"] == 27
    assert "text" not in stages_view(kernel, text=False)["stages"][0]


def _launcher(name, **extra):
    def launcher():
        pass

    launcher.cache_hash, _, launcher.n_regs, launcher.shared = KERNELS[name]
    launcher.n_spills, launcher.config = 0, types.SimpleNamespace(num_warps=2)
    for key, value in extra.items():
        setattr(launcher, key, value)
    return launcher


def test_the_binary_is_found_where_inductor_put_it_whatever_this_process_triton_cache_dir(monkeypatch, tmp_path):
    """A process whose kernels were all built in compile workers has no TRITON_CACHE_DIR: Triton's own
    folder is then ~/.triton/cache, but Inductor's workers and static launcher use its cache's triton/<device>."""
    import shutil

    from torch._inductor.runtime import cache_dir_utils

    name = "triton_per_fused_native_layer_norm_relu_0"
    inductor = tmp_path / "inductor"
    shutil.copytree(STAGES_DIR / KERNELS[name][0], inductor / "triton" / "0" / KERNELS[name][0])
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(inductor))
    monkeypatch.setattr(stages, "cache_root", lambda: str(tmp_path / "home" / ".triton" / "cache"))
    monkeypatch.setattr(stages, "_tool", lambda name: None)
    assert cache_dir_utils.triton_cache_dir(0) == str(inductor / "triton" / "0")
    roots = stages.cache_roots(0)
    ir = kernel_ir(_kernel(name), types.SimpleNamespace(launchers=[_launcher(name)], filename=None), H100, roots)
    assert [s.name for s in ir.stages] == ["ttir", "ttgir", "llir", "ptx"], ir.notes
    seen = stages.cache_roots(0, seen=str(tmp_path / "seen"))
    assert seen[0] == str(tmp_path / "seen") and seen[1:] == roots
    gone = kernel_ir(_kernel(name), types.SimpleNamespace(launchers=[_launcher(name)]), H100, [str(tmp_path / "x")])
    assert gone.stages == [] and len(gone.notes) == 1 and f"no {name}.json in {tmp_path / 'x'}" in gone.notes[0]
    assert "the binary facts come from the launcher" in gone.notes[0]
    assert (gone.num_regs, gone.shared_bytes, gone.occupancy.blocks_per_sm) == (27, 8, 32)  # num_warps: its config


def test_stages_of_a_binary_held_in_memory_need_no_cache_folder(monkeypatch):
    """Triton's own launcher keeps its CompiledKernel among the autotuner's compile results, stages in ``asm``:
    the one whose hash is the launcher's is read, the other configs' binaries are not."""
    import collections
    import json

    monkeypatch.setattr(stages, "_tool", lambda name: None)
    name = "triton_per_fused_native_layer_norm_relu_0"
    texts = _texts(name)
    meta = json.loads((STAGES_DIR / KERNELS[name][0] / f"{name}.json").read_text())
    metadata = collections.namedtuple("KernelMetadata", sorted(meta))(**meta)
    ran = types.SimpleNamespace(hash=meta["hash"], metadata=metadata, asm={s: texts[s] for s in stages.FILE_STAGES})
    other = types.SimpleNamespace(hash="00" * 32, metadata=metadata, asm={"ttir": "other"})
    obj = types.SimpleNamespace(launchers=[_launcher(name)], filename=guess_file(texts["ttir"]),
                                compile_results=[types.SimpleNamespace(kernel=other),
                                                 types.SimpleNamespace(kernel=ran)])
    ir = kernel_ir(_kernel(name), obj, H100, roots=[])
    assert [s.name for s in ir.stages] == ["ttir", "ttgir", "llir", "ptx"]
    assert {s.tool for s in ir.stages} == {"Triton's compiled kernel"}
    assert ir.notes == ["no SASS: Triton's compiled kernel holds no cubin"] and ir.options["num_warps"] == 2
    assert all(any(found) for found in (s.source_lines for s in ir.stages))


def test_lines_inlined_from_helper_modules_link_to_those_files():
    """The fixture's SASS is ``nvdisasm -g`` (no inline frames): 63 of its 120 instruction lines name only Triton's
    standard.py (tl.sum) or Inductor's triton_helpers.py. They link to those as helper lines: every line links."""
    from kernelviz.ir.lines import unlinked_note

    name = "triton_per_fused_native_layer_norm_relu_0"
    kernel, texts, linked = _links(name)
    sass = texts["sass"]
    file = guess_file(texts["ttir"])
    helpers = links(stage_positions("sass", sass), file)[1]
    rows = sass.splitlines()
    instructions = [i for i, row in enumerate(rows) if re.match(r"\s*/\*[0-9a-f]{4}\*/", row)]
    standard = [i for i in instructions if helpers[i] and not linked["sass"][i]]
    assert len(standard) == 63 and {helpers[i][0].split(":")[0] for i in standard} == {"standard.py",
                                                                                      "triton_helpers.py"}
    assert all(linked["sass"][i] or helpers[i] for i in instructions)
    stage = stages.keep("sass", sass, linked["sass"], helpers=helpers)
    assert stage.helper_lines[standard[0]] == helpers[standard[0]]
    assert len(stage.helper_lines) == len(stage.source_lines)
    assert unlinked_note([stage]) is None
    bare = stages.keep("sass", sass, [[] for _ in rows])
    note = unlinked_note([bare])
    assert note.startswith(f"SASS: {len(instructions)} of {len(instructions)} instruction lines (100%) carry no line")
    assert re.search(r"most are [A-Z]+ \d+", note)
    mlir = stage_positions("ttgir", '#loc1 = loc("/lib/standard.py":293:36)\n'
                                    '    %0 = arith.addf %a, %b : f32 loc(callsite(#loc1 at "/k/mod.py":41:2))')
    assert links(mlir, "/k/mod.py")[1] == [[], ["standard.py:293"]]
