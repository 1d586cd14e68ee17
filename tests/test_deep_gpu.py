"""Deep inspection on the GPU (run on the GPU machine): Triton's stages captured for the launcher that ran,
jiterator kernels as their own timed entries, and repro scripts that run and match."""

import re
import subprocess
import sys

import pytest
import torch

import kernelviz
import zoo
from kernelviz.ir.stages import binary_folder, folder_hash

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_dynamo")]
JIT_CODE = "template <typename T> T my_fused(T x, T y, T alpha) { return -x * y + x - y + alpha; }"


def _mlp_capture(bench=True):
    model = zoo.make_mlp("cuda")
    x = torch.randn(4096, 32, device="cuda")
    with torch.no_grad(), kernelviz.capture(bench=bench, repros=bench) as cap:
        torch.compile(model)(x)
    return cap.wait_stages()  # the stages' texts are read in the background, after the exit


def test_stages_of_the_launcher_that_ran_are_kept_and_linked():
    cap = _mlp_capture()
    (graph,) = cap.graphs
    triton = [k for k in graph.kernels if k.kind == "triton"]
    assert triton
    for kernel in triton:
        ir = kernel.ir
        assert [s.name for s in ir.stages] == ["ttir", "ttgir", "llir", "ptx", "sass"], ir.notes
        folder, meta = binary_folder(ir.cache_hash, kernel.name)
        assert folder_hash(meta["hash"]) == ir.cache_hash == folder.name
        assert (ir.num_regs, ir.num_spills, ir.shared_bytes) == (kernel.timing.num_regs, kernel.timing.num_spills,
                                                                 kernel.timing.shared_bytes)
        assert ir.options["num_warps"] == kernel.timing.config["num_warps"]
        assert ir.line_offset == 1 and ir.file and ir.file.endswith(".py")
        source = kernel.source.splitlines()
        for stage in ir.stages:
            assert stage.bytes > 0 and len(stage.source_lines) == len(stage.text.splitlines())
            linked = {n for found in stage.source_lines for n in found}
            assert any(source[n - 1].lstrip().startswith("tl.store(") for n in linked), stage.name
        sass = next(s for s in ir.stages if s.name == "sass")
        stores = [i for i, line in enumerate(sass.text.splitlines()) if re.search(r"\bSTG\b", line)]
        assert stores and all(any("tl.store(" in source[n - 1] for n in sass.source_lines[i]) for i in stores)
        assert 1 <= ir.occupancy.blocks_per_sm <= 32 and ir.occupancy.limited_by


def test_saved_capture_keeps_the_stages():
    cap = _mlp_capture(bench=False)
    again = kernelviz.Capture.from_json(cap.to_json())
    kernel = next(k for k in again.kernels if k.kind == "triton")
    assert kernel.ir.stages[-1].name == "sass" and kernel.ir.stages[-1].text == cap.kernels[0].ir.stages[-1].text


def test_jiterator_calls_are_their_own_timed_entries_and_the_patch_is_undone():
    original = torch._C._cuda_jiterator_compile_and_launch_kernel
    fn = torch.cuda.jiterator._create_jit_fn(JIT_CODE, alpha=1.0)
    x, y = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
    with kernelviz.capture(bench=True, repros=True) as cap:
        out = fn(x, y, alpha=2.0)
        fn(x, y, alpha=2.0)
        fn(x[:1000], y[:1000], alpha=2.0)
    assert torch._C._cuda_jiterator_compile_and_launch_kernel is original
    torch.testing.assert_close(out, -x * y + x - y + 2.0)
    first, second = cap.graphs
    assert first.kind == "jiterator" and first.calls == 2 and second.calls == 1
    (kernel,) = first.kernels
    assert kernel.kind == "jiterator" and kernel.source == JIT_CODE and kernel.name == "my_fused"
    assert [(s.dtype, s.shape) for s in first.inputs] == [("float32", ["1048576"]), ("float32", ["1048576"])]
    assert first.launches[0].timing.in_graph_ms > 0 and kernel.timing.isolated_ms > 0
    assert any("my_fused" in name for name in first.launches[0].timing.device_kernels)
    assert first.timed_on == "recreated inputs"
    with pytest.raises(RuntimeError), kernelviz.capture():
        fn(x, y)
        raise RuntimeError("the cell failed")
    assert torch._C._cuda_jiterator_compile_and_launch_kernel is original


def _run(script, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(script)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)


def test_repro_scripts_run_match_and_time(tmp_path):
    cap = _mlp_capture()
    (graph,) = cap.graphs
    for launch in graph.launches:
        if launch.kernel_name:
            assert launch.grid and all(g >= 1 for g in launch.grid)
    for kernel in graph.kernels:
        script = kernel.to_repro()
        imported = set(re.findall(r"^(?:import|from) (\w+)", script, re.M))
        assert imported <= {"triton", "torch", "base64", "math", "sys", "time"}, imported
        done = _run(script, tmp_path, kernel.name)
        assert done.returncode == 0, done.stdout + done.stderr[-3000:]
        assert re.search(rf"^{kernel.name}: outputs match \(\d+ checked\); [\d.]+ ms \(kernel-gpu time\)$",
                         done.stdout, re.M)
    done = _run(graph.to_repro(), tmp_path, "graph")
    assert done.returncode == 0 and "outputs match" in done.stdout, done.stdout + done.stderr[-3000:]
    done = _run(kernel_with_a_bug(graph), tmp_path, "wrong")  # an edited kernel that computes wrong must fail
    assert done.returncode == 1 and "MISMATCH" in done.stdout, done.stdout + done.stderr[-3000:]


def kernel_with_a_bug(graph):
    """The first Triton kernel's repro with its stored value doubled."""
    kernel = next(k for k in graph.kernels if k.kind == "triton")
    script = kernel.to_repro()
    store = re.search(r"^(\s+)tl\.store\((\w+) \+ \(([^)]*)\), (\w+), ", script, re.M)
    return script.replace(store.group(0), f"{store.group(1)}tl.store({store.group(2)} + ({store.group(3)}), "
                                          f"2 * {store.group(4)}, ", 1)
