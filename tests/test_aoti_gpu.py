"""AOTInductor on CUDA (issue 33, run on the GPU machine): a small transformer block built into a package inside a
capture, loaded, shown, timed by running it, and diffed against its JIT capture. ``KERNELVIZ_AOTI_OUT``: a folder
where the test leaves the package without its .so (the CPU tests' CUDA fixture) and the figures it measured."""

import importlib.util
import json
import os
import zipfile
from pathlib import Path

import pytest
import torch

import kernelviz

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_dynamo")]


class Block(torch.nn.Module):
    def __init__(self, d=128, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


def _keep(path: str, out: Path) -> None:
    """The package without its .so (the CPU tests' CUDA fixture)."""
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out / "block_cuda.pt2", "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if not info.filename.endswith(".so"):
                dst.writestr(info.filename, src.read(info))


def test_aoti_package_of_a_small_transformer(tmp_path):
    torch.manual_seed(0)
    model, x = Block().cuda().eval(), torch.randn(4, 64, 128, device="cuda")
    path = str(tmp_path / "block.pt2")
    out = os.environ.get("KERNELVIZ_AOTI_OUT")
    figures: dict = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    try:
        with torch.no_grad(), kernelviz.capture() as captured:
            torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=path)
        if out:
            _keep(path, Path(out))
        with torch.no_grad(), kernelviz.capture(bench=True) as jit:
            torch.compile(model)(x)
        figures["jit_busy_ms"] = jit.graphs[0].gpu_busy_ms
        _check(path, captured, jit, figures)
    finally:
        print(json.dumps(figures, indent=1, default=str))
        if out:
            (Path(out) / "figures.json").write_text(json.dumps(figures, indent=1, default=str))


def _check(path: str, captured, jit, figures: dict) -> None:
    cap = kernelviz.load(path)
    [graph] = cap.graphs
    assert graph.device == "cuda" and graph.wrapper == "cpp"
    triton = [k for k in graph.kernels if k.kind.startswith("triton")]
    figures["kernels"] = {k.name: {"source": len(k.source), "type": k.kernel_type,
                                   "regs": k.ir and k.ir.num_regs, "shared": k.ir and k.ir.shared_bytes,
                                   "warps": k.ir and k.ir.options.get("num_warps"),
                                   "sass": [s.tool for s in k.ir.stages] if k.ir else None,
                                   "notes": k.ir and k.ir.notes} for k in triton}
    figures["package"] = {"files": [(f.name, f.bytes) for f in graph.package.files], "notes": graph.package.notes,
                          "constants": len(graph.package.constants), "warnings": graph.warnings}
    assert triton and all(k.source and k.triton_meta and k.kernel_type for k in triton)  # embedded in the wrapper
    if any(f.name.endswith(".cubin") for f in graph.package.files):  # facts from its cubins, warps from the launch
        assert all(k.ir is not None and k.ir.num_regs and k.ir.options.get("num_warps") for k in triton)
    launched = [launch for launch in graph.launches if launch.kernel_name]
    assert launched and {launch.kernel_name for launch in launched} <= {k.name for k in graph.kernels}
    # the capture kept Inductor's records: nodes, ATen, the user's lines
    kernel = next(k for k in captured.graphs[0].kernels if k.kind.startswith("triton"))
    assert kernel.metadata_from == "inductor" and kernel.source_nodes
    assert any(loc.file == __file__ for loc in kernel.locations)

    cap.bench(progress=False)  # refused in one line: torch's loader crashed the capturing process on an H200
    figures["warnings_after_bench"] = graph.warnings
    assert any(w.startswith("not timed: a CUDA package is not run in this process") for w in graph.warnings)
    assert graph.gpu_busy_ms is None and all(launch.timing is None for launch in graph.launches)

    d = kernelviz.diff(jit, cap, labels=("jit", "aoti"))
    figures["diff"] = str(d)
    assert any(p.a is not None and p.b is not None for p in d.graphs)
    assert {k.name for k in jit.kernels} & {k.name for k in cap.kernels}
    if importlib.util.find_spec("pygments") is not None:  # the GPU machine may lack it
        from kernelviz.views.payload import payload

        assert "C++ wrapper: run_impl" in cap.to_html() and payload(cap)["view"]["wrapper"]["0"]
