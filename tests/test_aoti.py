"""AOTInductor packages on the CPU: a package built here (torch.export + aoti_compile_and_package) inside
a capture, loaded with kernelviz.load, shown (text, HTML, notebook payload), timed by running it, and diffed against
the JIT capture of the same model; bad packages give one line."""

import inspect
import json
import shutil
import subprocess
import zipfile

import pytest
import torch
import torch._inductor.package

import kernelviz
from browser import chromium_page, needs_browser, panel_site, serve
from kernelviz.__main__ import main
from kernelviz.views.payload import capture_from_bundle, payload, saved
from kernelviz.views.text import summary

_LACKS = [name for name in ("aoti_compile_and_package", "aoti_load_package") if not hasattr(torch._inductor, name)]
pytestmark = [
    pytest.mark.skipif(bool(_LACKS), reason=f"this torch ({torch.__version__}) has no torch._inductor.{_LACKS}"),
    pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                       reason="AOTInductor needs a C++ compiler, none here"),
]


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.ln, self.l2 = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.l2(torch.nn.functional.gelu(self.ln(self.l1(x))))


FORWARD_LINE = inspect.getsourcelines(Block.forward)[1] + 1  # the line of the model's work


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The package built once inside a capture, and the JIT capture (timed) of the same model."""
    torch.manual_seed(0)
    model, x = Block().eval(), torch.randn(4, 16)
    path = tmp_path_factory.mktemp("aoti") / "block.pt2"
    original = torch._inductor.package.package_aoti
    with torch.no_grad(), kernelviz.capture() as captured:
        written = torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=str(path))
    assert torch._inductor.package.package_aoti is original  # the hook is undone
    with torch.no_grad(), kernelviz.capture(bench=True, fresh_compile=True) as jit:
        torch.compile(model)(x)
    return {"path": written, "captured": captured, "jit": jit, "model": model, "x": x}


def test_load_reads_the_package(built):
    cap = kernelviz.load(built["path"])
    [graph] = cap.graphs
    model = built["model"]
    assert (graph.device, graph.kind, graph.wrapper) == ("cpu", "inference", "cpp")
    assert graph.code.count("AOTInductorModel::run_impl") >= 1 and graph.call_span is not None
    # its C++ kernels, from kernel.cpp, each its own extern "C" function
    cpp = [k for k in graph.kernels if k.kind == "cpp"]
    assert cpp and all(f'extern "C"  void  {k.name}(' in k.source and k.source.count('extern "C"') == 1 for k in cpp)
    # steps in run order: the extern matmuls around the fused kernels, each launch of a kernel the graph has
    names = [launch.name for launch in graph.launches]
    assert names[0].startswith("aoti_torch_cpu_addmm") and names[-1].startswith("aoti_torch_cpu_addmm")
    assert {launch.kernel_name for launch in graph.launches if launch.kernel_name} == {k.name for k in cpp}
    assert graph.launches[0].source_nodes == ["linear"] and "aten.addmm" in graph.launches[0].original_aten
    assert any(e.kind == "alloc" and e.nbytes for e in graph.memory)
    # the inputs as the wrapper checks them, the constants as the model holds them, without their values
    [spec] = graph.inputs
    assert (spec.dtype, spec.shape, spec.stride) == ("float32", ["4", "16"], ["16", "1"])
    state = dict(model.state_dict())
    constants = {c.fqn: c for c in graph.package.constants}
    assert set(constants) == set(torch._inductor.aoti_load_package(built["path"]).get_constant_fqns())
    for fqn, c in constants.items():
        tensor = state[fqn]
        assert (c.shape, c.dtype, c.bytes) == (list(tensor.shape), "float32", tensor.numel() * 4)
    assert graph.package.metadata["AOTI_DEVICE_KEY"] == "cpu"
    with zipfile.ZipFile(built["path"]) as archive:
        assert {f.name for f in graph.package.files} == {n for n in archive.namelist() if "/aotinductor/" in n}
    # a copy round-trips through JSON and the saved file
    assert kernelviz.Capture.from_json(cap.to_json()) == cap


def test_capture_around_the_compile(built):
    [graph] = built["captured"].graphs
    assert graph.cache == "compiled" and graph.compile_s is not None and graph.compile_s > 0
    [kernel] = [k for k in graph.kernels if k.kind == "cpp"][:1]
    assert kernel.metadata_from == "inductor"
    assert "layer_norm" in kernel.source_nodes and "aten.native_layer_norm" in kernel.original_aten
    assert kernel.fragment and any(loc.file == __file__ and loc.line == FORWARD_LINE for loc in kernel.locations)
    # the launch of that kernel carries its nodes as well (the wrapper writes no comment above it)
    launch = next(launch for launch in graph.launches if launch.kernel_name == kernel.name)
    assert launch.source_nodes == kernel.source_nodes


def test_views_render(built, tmp_path):
    cap = kernelviz.load(built["path"])
    graph = cap.graphs[0]
    text = summary(cap, width=1000)  # unwrapped: the path is long
    assert f"AOTInductor package {built['path']}" in text and f"{len(graph.package.constants)} constants" in text
    html = cap.to_html()
    assert "C++ wrapper: run_impl" in html and "l1.weight" in html and 'class="k"' in html  # C++ keywords classed
    data = payload(cap)
    tokens = data["view"]["wrapper"]["0"]
    assert sum(tokens[1::2]) == len(graph.code) and "k" in tokens[0::2]
    assert data["view"]["packages"]["0"].startswith("AOTInductor package")
    again = capture_from_bundle(saved(cap))
    assert again.graphs[0].package == graph.package and again.graphs[0].code == graph.code
    bundle = cap._repr_mimebundle_()
    assert "text/html" in bundle and "application/vnd.kernelviz.v1+json" in bundle
    assert cap.save(tmp_path / "block").name == "block.kvz"
    assert kernelviz.load(tmp_path / "block.kvz").graphs[0].package == graph.package


def test_bench_runs_the_package(built, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("a package is loaded in the timing process, never in the user's")

    monkeypatch.setattr(torch._inductor.package, "load_package", refused)
    monkeypatch.setattr(torch._inductor, "aoti_load_package", refused)
    cap = kernelviz.load(built["path"]).bench(progress=False)
    graph = cap.graphs[0]
    assert graph.timed_on == "recreated inputs" and graph.gpu_busy_ms > 0
    assert graph.as_run is not None and graph.as_run.unit == "cpu" and graph.as_run.plain_ms > 0
    # each launch says in one line why it has no time of its own
    assert all(launch.timing.in_graph_ms is None and "torch.profiler" in launch.timing.error
               for launch in graph.launches)
    assert sum(w.startswith("timing: the time of each launch is unknown") for w in graph.warnings) == 1
    cap.bench(progress=False)  # timed again: still one such line
    assert sum(w.startswith("timing: the time of each launch is unknown") for w in graph.warnings) == 1


def test_bench_of_a_package_moved_away(built, tmp_path):
    moved = tmp_path / "moved.pt2"
    shutil.copy(built["path"], moved)
    cap = kernelviz.load(moved)
    moved.unlink()
    cap.bench(progress=False)
    assert cap.graphs[0].timed_on is None
    assert any(w.startswith("not timed: the package file") and str(moved) in w for w in cap.graphs[0].warnings)


def test_a_package_that_crashes_its_loader_costs_only_its_timing(built, tmp_path):
    """A package whose .so faults as it is loaded (a constructor that raises SIGSEGV, as torch 2.11's own loader can
    fault): the timing process dies, the graph says so in one line, this process goes on."""
    source, boom = tmp_path / "boom.c", tmp_path / "boom.so"
    source.write_text("#include <signal.h>\n__attribute__((constructor)) static void boom(void) { raise(SIGSEGV); }\n")
    subprocess.run([shutil.which("cc") or shutil.which("gcc") or "c++", "-shared", "-fPIC", "-o", str(boom),
                    str(source)], check=True)
    faulty = tmp_path / "faulty.pt2"
    with zipfile.ZipFile(built["path"]) as src, zipfile.ZipFile(faulty, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, boom.read_bytes() if info.filename.endswith(".so") else src.read(info))
    cap = kernelviz.load(faulty).bench(progress=False)
    graph = cap.graphs[0]
    [warning] = [w for w in graph.warnings if w.startswith("not timed")]
    # the frame it died in is torch's loader (its module and line differ between torch versions)
    assert warning.startswith("not timed: the timing process died (SIGSEGV) in ") and " at torch/" in warning
    assert warning.endswith(" while torch loaded the package") and "\n" not in warning
    assert graph.timed_on is None and graph.as_run is None and all(launch.timing is None for launch in graph.launches)
    again = kernelviz.load(built["path"]).bench(progress=False)  # this process goes on timing
    assert again.graphs[0].as_run.plain_ms > 0


def test_diff_against_the_jit_capture(built, capsys):
    jit = built["jit"]
    package = kernelviz.load(built["path"]).bench(progress=False)
    d = kernelviz.diff(jit, package, labels=("jit", "aoti"))
    [pair] = [p for p in d.graphs if p.a is not None and p.b is not None]
    assert (pair.a, pair.b) == (0, 0)
    jit_kernels = {k.name for k in jit.graphs[0].kernels}
    aoti_kernels = {k.name for k in package.graphs[0].kernels}
    assert jit_kernels & aoti_kernels  # the same fused kernels, by name
    # each extern matmul pairs with the package's shim call of the same op, reading buffers of the same shapes
    externs = [g for g in d.groups if g.a and jit.graphs[0].launches[g.a[0]].kernel_name is None]
    assert externs and all(g.b and package.graphs[0].launches[g.b[0]].op.startswith("aoti_torch_cpu_addmm")
                           for g in externs)
    assert all("op" not in g.changed.split(", ") and "shape" not in g.changed for g in externs)
    assert any("launches not timed: an AOTInductor package's" in n for n in d.headline.notes)
    busy = next(m for m in pair.measures if m.name == "busy")
    assert busy.a == jit.graphs[0].gpu_busy_ms and busy.b == package.graphs[0].gpu_busy_ms
    # the command line reads the package too
    jit_file = jit.save(built["path"].rsplit("/", 1)[0] + "/jit")
    assert main(["diff", str(jit_file), built["path"]]) == 0
    assert "→ model" in capsys.readouterr().out


@pytest.mark.parametrize("make", ["not_zip", "empty_zip", "truncated"])
def test_a_bad_package_is_one_line(built, tmp_path, make):
    path = tmp_path / "bad.pt2"
    if make == "not_zip":
        path.write_text("not a zip")
    elif make == "empty_zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("other/file.txt", "x")
    else:
        data = open(built["path"], "rb").read()
        path.write_bytes(data[: len(data) // 2])
    with pytest.raises(kernelviz.ParseError) as info:
        kernelviz.load(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "AOTInductor package" in message
    with pytest.raises(kernelviz.CaptureError):
        kernelviz.diff(str(path), built["path"])


def test_the_metadata_json_is_kept_as_text(built, tmp_path):
    """A package whose metadata JSON is not JSON still loads, saying so in one line."""
    path = tmp_path / "odd.pt2"
    with zipfile.ZipFile(built["path"]) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, b"{not json" if info.filename.endswith("metadata.json") else data)
    graph = kernelviz.load(path).graphs[0]
    assert graph.package.metadata == {} and any("not JSON" in n for n in graph.package.notes)
    assert graph.launches and graph.package.constants  # the rest is read as before


def test_triton_call_wrappers_as_torch_2_11_writes_them():
    """The C++ wrapper's ``call_<kernel>`` functions (here a CUDA cpp_wrapper module of torch 2.11, H100): each
    kernel's launch passes its warps and shared memory, and names its cubin."""
    from conftest import FIXTURES
    from kernelviz.parse import aoti

    code = (FIXTURES / "deep" / "cpp_wrapper_0.code").read_text()
    warnings = []
    kernels, params = aoti.triton_kernels(code, warnings)
    assert [k.name for k in kernels] == ["triton_poi_fused_add_mul_relu_sigmoid_0"] and warnings == []
    launch = params["triton_poi_fused_add_mul_relu_sigmoid_0"]
    assert (launch.num_warps, launch.shared_bytes) == (4, 0)
    assert launch.cubin == "cp4uzcqroejd4f54eqwlwakw6fnl3ji4xff2jqrah6gqu5ycumi3.cubin"


@needs_browser
def test_the_panel_shows_the_package_wrapper(built, tmp_path):
    """The Wrapper tab of a package: what it holds, its constants, its C++ highlighted; a launch's line opens its
    kernel."""
    cap = kernelviz.load(built["path"])
    graph = cap.graphs[0]
    launch = next(launch for launch in graph.launches if launch.kernel_name)
    site = panel_site(tmp_path, json.dumps(payload(cap)))
    with serve(site) as url, chromium_page() as page:
        page.goto(f"{url}/index.html")
        page.locator(".kv-tab", has_text="Wrapper").click()
        page.wait_for_selector(".kv-source.kv-highlighted")
        detail = page.locator(".kv-detail").inner_text()
        assert "AOTInductor package" in detail and "l1.weight" in page.locator(".kv-detail").inner_html()
        lines = page.locator(".kv-source .kv-line")
        assert lines.count() == len(graph.code.split("\n"))  # as the pane splits it
        assert page.locator(".kv-source .kv-line.kv-changed").count() == len({x.line for x in graph.launches})
        page.locator(f'.kv-source .kv-line[data-line="{launch.line}"]').click()
        page.wait_for_selector(".kv-tab.kv-active[data-tab=kernel]")
        assert launch.kernel_name in page.locator(".kv-detail").inner_text()
        assert page.errors == []


def test_triton_kernels_embedded_as_inductor_embeds_them():
    """A CUDA package's wrapper embeds each Triton kernel's definition as a comment in its ``call_<kernel>``
    function, spliced by Inductor's own writer at the function's indent: read back, the kernel is the one the
    Python wrapper defines (here a real H100 kernel of torch 2.11)."""
    from torch._inductor.utils import IndentedBuffer

    from conftest import FIXTURES
    from kernelviz.parse import aoti

    module = (FIXTURES / "cuda-h100-torch2.11" / "pointwise_0.py").read_text()
    expected = kernelviz.load(module).graphs[0].kernels[0]
    start = module.index(f"async_compile.triton('{expected.name}'")
    body = module[start: module.index("device_str='cuda')", start) + len("device_str='cuda')")]
    wrapper = IndentedBuffer()
    wrapper.writeline(f"static __attribute__((noinline)) void call_{expected.name}(")
    wrapper.writeline("    const in_ptr0_type_& in_ptr0, int64_t xnumel, cudaStream_t stream_){")
    with wrapper.indent():  # as DeferredTritonCallWrapper.generate writes it in AOT mode
        wrapper.writeline("/*")
        wrapper.splice(body)
        wrapper.writeline("*/")
        wrapper.writeline(f"launchKernel(kernels_.{expected.name}, grid_0, grid_1, grid_2, 8, 256, kernel_args_, "
                          "stream_);")
    wrapper.writeline("}")
    warnings = []
    [kernel], params = aoti.triton_kernels(wrapper.getvalue(), warnings)
    assert warnings == [] and kernel.name == expected.name
    assert (kernel.source, kernel.kernel_type, kernel.triton_meta, kernel.inductor_meta) == (
        expected.source, expected.kernel_type, expected.triton_meta, expected.inductor_meta)
    assert (params[expected.name].num_warps, params[expected.name].shared_bytes) == (8, 256)


def test_a_package_of_dynamic_shapes_is_timed_at_its_smallest_size(tmp_path):
    model, x = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU()), torch.randn(8, 16)
    batch = torch.export.Dim("batch", min=3, max=512)
    path = torch._inductor.aoti_compile_and_package(
        torch.export.export(model, (x,), dynamic_shapes=({0: batch},)), package_path=str(tmp_path / "dyn.pt2"))
    cap = kernelviz.load(path)
    [spec] = cap.graphs[0].inputs
    assert (spec.shape, spec.symbols) == (["3", "16"], ["3..512", "16"])
    cap.bench(progress=False)
    assert cap.graphs[0].timed_on == "recreated inputs" and cap.graphs[0].as_run.plain_ms > 0
    text = summary(cap, width=1000)
    assert "dynamic shapes: arg" in text and "[3..512, 16] ran as [3, 16]" in text
