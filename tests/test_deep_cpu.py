"""Deep inspection on the CPU: repro scripts of real captures (C++ kernels and call()) that run, match and
catch a wrong kernel; jiterator entries; the HIP view; stages in the payloads and the HTML report."""

import ast
import copy
import dataclasses
import os
import re
import subprocess
import sys
import time
import types

import pytest
import torch

import kernelviz
import zoo
from conftest import FIXTURES
from kernelviz.ir import kernel_ir, stages
from kernelviz.ir.hip import hip_view, hipify, text_diff
from kernelviz.ir.lines import links, stage_positions
from kernelviz.jiterator import _Recorder, jiterator_graph, note_call, recording
from kernelviz.repro import ReproError
from kernelviz.repro.record import expect
from kernelviz.views import html as views_html
from kernelviz.views.html import report
from kernelviz.views.payload import decode, kernel_view, payload

STAGES_DIR = FIXTURES / "triton-stages"
JIT_CODE = "template <typename T> T my_fused(T x, T y, T alpha) { return -x * y + x - y + alpha; }"


def _run(script, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(script)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cpu_mlp():
    """A timed CPU capture of the MLP (its records made while timing)."""
    torch._dynamo.reset()
    model, x = zoo.make_mlp(), torch.randn(64, 32)
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(model)(x)
    torch._dynamo.reset()
    return cap.wait_repros()


def test_cpu_repros_run_match_and_catch_a_wrong_kernel(cpu_mlp, tmp_path):
    (graph,) = cpu_mlp.graphs
    assert graph.warnings == []
    for kernel in graph.kernels:
        script = kernel.to_repro()
        assert "async_compile.cpp_pybinding(" in script and kernel.source in script
        done = _run(script, tmp_path, kernel.name)
        assert done.returncode == 0, done.stdout + done.stderr[-3000:]
        assert re.fullmatch(rf"{kernel.name}: outputs match \({len(kernel.repro.expected)} checked\); "
                            r"[\d.]+ ms \(cpu time\)\n", done.stdout)
        types_of = dict(zip(kernel.params(), kernel.arg_types))
        written = [a.name for a in kernel.repro.args if "const" not in types_of[a.name]]
        assert [e.name for e in kernel.repro.expected] == written
    specs = [(a.dtype, a.shape, a.stride) for a in graph.repro.args]
    assert specs == [(s.dtype, [int(n) for n in s.shape], [int(n) for n in s.stride]) for s in graph.inputs]
    done = _run(graph.to_repro(), tmp_path, "graph")
    assert done.returncode == 0 and f"{graph.id}: outputs match" in done.stdout, done.stdout + done.stderr[-3000:]
    kernel = graph.kernels[0]
    wrong = kernel.to_repro().replace(f"    return {kernel.name}(*args)",
                                      f"    {kernel.name}(*args)\n    args[0].mul_(2)")
    done = _run(wrong, tmp_path, "wrong")
    assert done.returncode == 1 and f"{kernel.name}: MISMATCH: {kernel.repro.expected[0].name}: " in done.stdout


@pytest.mark.usefixtures("fresh_dynamo")
def test_integer_inputs_keep_their_values_from_the_run(tmp_path):
    def gather(table, index):
        return table[index] * 2 + 1

    table, index = torch.randn(50, 8), torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 49, 0])
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(gather)(table, index)
    (graph,) = cap.wait_repros().graphs
    (kernel,) = graph.kernels
    kept = [a for a in kernel.repro.args if a.dtype == "int64"]
    assert kept and all(a.fill == "values" for a in kept)
    assert [a.fill for a in graph.repro.args if a.dtype == "int64"] == ["values"]
    for name, script in ((kernel.name, kernel.to_repro()), ("graph", graph.to_repro())):
        done = _run(script, tmp_path, name)
        assert done.returncode == 0 and "outputs match" in done.stdout, done.stdout + done.stderr[-3000:]


def test_expected_outputs_come_from_a_child_that_may_fail_without_harm(cpu_mlp):
    """The captured code runs on made-up inputs in a child process: a kernel that kills it costs only its
    own record, and code that does not run there says so for every record."""
    graph = copy.deepcopy(cpu_mlp.graphs[0])
    first, second = graph.kernels
    dies = f"del async_compile\n{first.name} = lambda *a: os._exit(5)\n"  # the first kernel kills the process
    graph.code = graph.code.replace("del async_compile\n", dies)
    for item in (first, second, graph):
        item.repro.expected = []
    expect([graph])
    assert first.repro.error.startswith("the captured code crashed on inputs made from the specs: exit status 5 (")
    assert "cap.bench(repros=True)" in first.repro.error
    assert second.repro.error is None and [e.name for e in second.repro.expected] == [
        e.name for e in cpu_mlp.graphs[0].kernels[1].repro.expected]
    assert graph.repro.error == first.repro.error  # call() runs that kernel too: a third process, same end
    broken = copy.deepcopy(cpu_mlp.graphs[0])
    broken.code = "raise SystemExit('no such module here')\n" + broken.code
    expect([broken])
    assert [k.repro.error for k in broken.kernels] + [broken.repro.error] == [
        "the graph's code does not run in a new process: no such module here"] * 3


def test_no_repro_without_a_recorded_launch_says_why_in_one_line():
    graph = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py").graphs[0]
    with pytest.raises(ReproError,
                       match=r"^no launch of cpp_fused_gelu_0 was recorded for a repro: .*cap\.bench\(repros=True\)"):
        graph.kernels[0].to_repro()
    with pytest.raises(ReproError, match=r"^no launch of graph 2_forward's call\(\) was recorded"):
        graph.to_repro()
    view = kernel_view(kernelviz.Capture(graphs=[graph]), f"0/{graph.kernels[0].name}")
    assert view["repro"]["script"] is None and view["repro"]["reason"].startswith("no launch of")
    assert view["ir"] == {"stages": [],
                          "notes": ["no assembly kept: a C++ kernel's is read from the library Inductor built, as "
                                    "the capture that ran it is made"],
                          "facts": None}


def test_jiterator_calls_become_entries_every_view_reads():
    recorder = _Recorder()
    x, y = torch.randn(1000), torch.randn(1000)
    for a, b in ((x, y), (x, y), (x[:10], y[:10])):
        note_call(recorder, JIT_CODE, "my_fused", False, 1, (a, b), {"alpha": 2.0})
    graphs = [jiterator_graph(i, call) for i, call in enumerate(recorder.calls.values())]
    assert [(g.id, g.kind, g.device, g.calls) for g in graphs] == [("jiterator_0_my_fused", "jiterator", "cuda", 2),
                                                                  ("jiterator_1_my_fused", "jiterator", "cuda", 1)]
    graph = graphs[0]
    assert [(s.dtype, s.shape, s.stride) for s in graph.inputs] == [("float32", ["1000"], ["1"])] * 2
    (kernel,) = graph.kernels
    assert (kernel.name, kernel.kind, kernel.source) == ("my_fused", "jiterator", JIT_CODE)
    namespace = {}
    exec(compile(graph.code, "jiterator", "exec"), namespace)  # the code defines the kernel and call()
    assert type(namespace["my_fused"]).__name__ == "_JittedFunction" and callable(namespace["call"])
    launch_line = graph.code.splitlines()[graph.launches[0].line - 1]
    assert launch_line.strip() == "result = my_fused(arg0, arg1, alpha=2.0)" == graph.launches[0].text
    cap = kernelviz.Capture(graphs=graphs)
    tokens = kernel_view(cap, "0/my_fused")["tokens"]
    assert "kt" in tokens[::2] or "k" in tokens[::2]  # CUDA C++ highlighted: template, typename, return
    assert "jiterator_0_my_fused" in report(cap)
    assert kernelviz.Capture.from_json(cap.to_json()).graphs[0].code == graph.code
    cap.bench(progress=False)
    assert graph.warnings == ["not timed: no CUDA device here; a CUDA graph needs one to be timed"]


def test_jiterator_recording_leaves_torch_as_it_was():
    before = dict(vars(torch._C))
    cap = kernelviz.Capture()
    with pytest.raises(ValueError), recording(cap):
        raise ValueError("the cell failed")
    assert dict(vars(torch._C)) == before and cap.graphs == []


def test_hip_view_of_a_graph_and_a_line_diff():
    graph = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py").graphs[0]
    view = hip_view(graph)
    assert view["error"] is None and view["code"]["text"] == graph.code and view["code"]["changes"] == []
    assert set(view["kernels"]) == {k.name for k in graph.kernels if k.kind == "cpp"}
    diff = text_diff("a\ncudaStream_t s;\nb\n", "a\nhipStream_t s;\nb\n")
    assert diff["changes"] == [[2, "hipStream_t s;"]] and diff["same_lines"]
    assert "-cudaStream_t s;" in diff["diff"] and "+hipStream_t s;" in diff["diff"]


def test_stages_are_lazy_in_the_live_payload_and_collapsed_in_the_report(monkeypatch):
    monkeypatch.setattr(stages, "cache_root", lambda: str(STAGES_DIR))
    cap = kernelviz.load(STAGES_DIR / "mlp_norms_1.code")
    name = "triton_per_fused_native_layer_norm_relu_0"
    kernel = cap.graphs[0].kernel(name)

    def launcher():
        pass

    launcher.cache_hash = "CEY3FOEG2AASTFO3JABLQVU3WBXTNUALNNJ67HACOIKYE3R6H2KQ"
    launcher.n_regs, launcher.n_spills, launcher.shared = 27, 0, 8
    kernel.ir = kernel_ir(kernel, types.SimpleNamespace(launchers=[launcher], filename=None), None)
    kernel.ir.stages[0].text += "<script>alert(1)</script>\n"
    live = payload(cap, per_kernel=False)
    live_ir = live["graphs"][0]["kernels"][0]["ir"]
    assert all(s["text"] == "" and s["source_lines"] == [] for s in live_ir["stages"]) and live_ir["num_regs"] == 27
    view = kernel_view(cap, f"0/{name}")["ir"]
    assert [s["name"] for s in view["stages"]] == ["ttir", "ttgir", "llir", "ptx"]
    assert view["stages"][0]["text"] == kernel.ir.stages[0].text
    saved = payload(cap)
    assert saved["graphs"][0]["kernels"][0]["ir"]["stages"][0]["text"] == kernel.ir.stages[0].text
    annexed = saved["view"]["deep"][f"0/{name}"]["ir"]["stages"][0]
    assert "text" not in annexed and "tokens" not in annexed and annexed["tool"] == "Triton's cache"
    assert "tokens" in view["stages"][0] and view["stages"][0]["tool"] == "Triton's cache"
    html = report(cap)  # this small graph's stages do not fit in twice its code: a line with their facts stands in
    assert "27 registers per thread, 0 spills, 8 B shared memory. Compiled stages (" in html
    assert "<script>alert" not in html and len(html.encode()) <= 2 * len(cap.graphs[0].code)
    monkeypatch.setattr(views_html, "REPORT_SIZE", 100.0)  # where they fit
    html = report(cap)
    assert '<details class="kv-stages"><summary>Compiled stages</summary>' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "27 registers per thread, 0 spills, 8 B shared memory" in html


DEEP = FIXTURES / "deep"


def test_saved_h100_capture_keeps_linked_stages_and_gives_its_repros():
    cap = kernelviz.Capture.from_json((DEEP / "h100_capture.json").read_text())
    jit, graph = cap.graphs
    kernel = graph.kernels[0]
    ir = kernel.ir
    assert [(s.name, s.tool) for s in ir.stages][-1] == ("sass", "nvdisasm -c -gi") and ir.notes == []
    for stage in ir.stages:  # the links kept at capture time are what the parsers read in the text kept
        if stage.name in ("llir", "sass"):
            assert stage.source_lines == links(stage_positions(stage.name, stage.text), ir.file, ir.line_offset,
                                               len(kernel.source.splitlines()))[0]
    source = kernel.source.splitlines()
    sass = next(s for s in ir.stages if s.name == "sass")
    stores = [found for line, found in zip(sass.text.splitlines(), sass.source_lines) if re.search(r"\bSTG\b", line)]
    assert stores and all(any("tl.store(" in source[n - 1] for n in found) for found in stores)
    assert graph.launches[0].grid == kernel.repro.grid == [8, 1, 1]
    script = kernel.to_repro()
    ast.parse(script)
    assert "GRID = (8, 1, 1)" in script and "CONSTANTS = {'XBLOCK': 8}" in script and "@triton_heuristics" not in script
    assert set(re.findall(r"^(?:import|from) (\w+)", script, re.M)) <= {"triton", "torch", "base64", "math", "sys",
                                                                        "time"}
    ast.parse(graph.to_repro())
    jit_script = jit.kernels[0].to_repro()
    assert "torch.cuda.jiterator._create_jit_fn(CODE, **CONSTANTS)" in jit_script and "'alpha': 2.0" in jit_script
    assert jit.launches[0].timing.in_graph_ms > 0 and jit.kernels[0].timing.isolated_ms > 0


def test_hip_view_of_a_cuda_cpp_wrapper():
    code = (DEEP / "cpp_wrapper_0.code").read_text()
    view = hip_view(kernelviz.Graph(id="cpp_wrapper", kind="inference", device="cuda", code=code))
    hip = view["code"]
    assert view["error"] is None and hip["same_lines"] and len(hip["changes"]) == 28
    lines = code.splitlines()
    for number, text in hip["changes"]:
        lines[number - 1] = text
    assert "\n".join(lines) == hip["text"].rstrip("\n") == hipify(code).rstrip("\n")
    changed = dict(hip["changes"])
    assert any("hipModuleLaunchKernel(" in t for t in changed.values())
    assert any("hipStream_t stream" in t for t in changed.values())
    assert "-    CUDA_DRIVER_CHECK(cuLaunchKernel(" in hip["diff"]


def test_live_widget_sends_stages_repro_and_hip_when_asked():
    pytest.importorskip("anywidget")
    from kernelviz.notebook.widget import CaptureWidget

    cap = kernelviz.Capture.from_json((DEEP / "h100_capture.json").read_text())
    widget = CaptureWidget(cap)
    stored = decode(widget.payload)["graphs"][1]["kernels"][0]
    assert stored["repro"] is None and all(s["text"] == "" for s in stored["ir"]["stages"])
    assert decode(widget.payload)["graphs"][1]["repro"] is None and "deep" not in decode(widget.payload)["view"]
    sent = []
    widget.send = sent.append
    name = cap.graphs[1].kernels[0].name
    widget._on_message(widget, {"type": "kernel", "key": f"1/{name}"}, [])
    widget._on_message(widget, {"type": "graph", "key": "1"}, [])
    widget._on_message(widget, {"type": "graph", "key": "7"}, [])
    kernel_msg, graph_msg = sent
    assert [s["name"] for s in kernel_msg["ir"]["stages"]] == ["ttir", "ttgir", "llir", "ptx", "sass"]
    assert kernel_msg["ir"]["stages"][-1]["text"] == cap.graphs[1].kernels[0].ir.stages[-1].text
    assert kernel_msg["repro"]["script"] == cap.graphs[1].kernels[0].to_repro()
    assert graph_msg["key"] == "1" and graph_msg["hip"]["code"]["before"] == cap.graphs[1].code



def _slow_texts():
    """A kernel's stages' texts that take a second to read (as a disassembler would)."""
    time.sleep(1.0)
    return {"ttir": "module {\n}\n"}, {"ttir": "made up"}, ["no sass: made up"]


def _live(capture):
    """A loaded capture as one made in this process (with a session of its own)."""
    from kernelviz.conductor import LiveCapture

    return LiveCapture(**{f.name: getattr(capture, f.name) for f in dataclasses.fields(capture)})


def test_stages_read_in_the_background_are_waited_for_by_whatever_shows_or_keeps_the_capture():
    from kernelviz.ir import StageJob, read_in_background
    from kernelviz.model import KernelIR

    for use in (lambda c: c.to_json(), lambda c: c._repr_mimebundle_(), str):
        cap = _live(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"))
        triton = [k for k in cap.kernels if k.kind.startswith("triton")]
        for kernel in triton:
            kernel.ir = KernelIR(num_regs=32)  # the binary facts come at once, the texts later
        cap.session.stages = read_in_background([StageJob(k, k.ir, _slow_texts) for k in triton])
        assert triton and all(not k.ir.stages for k in triton)  # the capture is there before its stages
        made = use(cap)
        assert cap.session.stages is None and cap.busy() == []
        assert all([s.tool for s in k.ir.stages] == ["made up"] and k.ir.notes == ["no sass: made up"] for k in triton)
        if use is str:
            assert "made up" not in made  # the summary does not show stages, but waited for them all the same


def test_a_captures_stages_are_read_only_once_something_waits_for_them(monkeypatch):
    """The reading is Python in the user's process: it never runs beside the steps that follow the capture (a
    launch-bound step ran 2.5 times slower beside it); whatever shows or saves the capture begins it."""
    import kernelviz.ir as ir

    read = []
    original = ir._add_file_stages
    monkeypatch.setattr(ir, "_add_file_stages", lambda job: read.append(job.kernel.name) or original(job))
    torch._dynamo.reset()
    model, x = zoo.make_mlp(), torch.randn(64, 32)
    with torch.no_grad(), kernelviz.capture() as cap:
        torch.compile(model)(x)
    torch._dynamo.reset()
    cpp = [k for k in cap.kernels if k.kind == "cpp"]
    time.sleep(0.5)  # a reading begun at the exit would have begun by now
    assert cpp and read == [] and cap.busy() == ["compiled stages"]
    cap.wait_stages()
    assert cap.busy() == [] and sorted(read) == sorted(k.name for k in cpp)


def test_a_process_whose_capture_was_never_shown_ends(tmp_path):
    """Its stages, never waited for, are never read, and nothing of their reading holds the interpreter's exit (a
    timed capture's once did: its reading's threads waited to be let go, and the exit waited for them)."""
    script = ("import torch, kernelviz, zoo\n"
              "model, x = zoo.make_mlp(), torch.randn(64, 32)\n"
              "f = torch.compile(model)\n"
              "for _ in range(2):\n"
              "    with torch.no_grad(), kernelviz.capture(bench=True) as cap:\n"
              "        f(x)\n"
              "print(cap.busy())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=FIXTURES.parent, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0 and done.stdout.strip() == "['compiled stages']", done.stderr[-2000:]


def test_a_copy_or_pickle_of_a_capture_is_its_data_made_without_waiting():
    import pickle

    from kernelviz.ir import StageJob, read_in_background
    from kernelviz.model import KernelIR

    cap = _live(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"))
    triton = [k for k in cap.kernels if k.kind.startswith("triton")]
    for kernel in triton:
        kernel.ir = KernelIR(num_regs=32)
    cap.session.stages = read_in_background([StageJob(k, k.ir, _slow_texts) for k in triton])
    for made in (copy.deepcopy(cap), copy.copy(cap), pickle.loads(pickle.dumps(cap))):
        assert type(made) is kernelviz.Capture and not hasattr(made, "_session")
        assert made.to_json()  # its own data, written at once
    assert cap.busy() == ["compiled stages"]  # none of them waited
    cap.wait_stages()
    assert cap.busy() == [] and kernelviz.Capture.from_json(cap.to_json()) == cap


def test_the_timing_holds_the_stage_reading_back(monkeypatch):
    """``cap.bench()`` does not wait for the stages: it holds their reading back while it times (its CPU figures
    stay the capture's own), and the reading goes on after."""
    import threading

    import kernelviz.conductor as conductor
    import kernelviz.ir as ir
    from kernelviz.ir import StageJob, read_in_background
    from kernelviz.model import KernelIR

    monkeypatch.setattr(ir, "_LINKERS", 1)
    timing, began = threading.Event(), {}
    ended: list[float] = []

    def fake_bench(capture, runs, options):
        timing.set()
        time.sleep(0.3)
        ended.append(time.monotonic())
        return []

    def first():
        timing.wait(5)  # begun before the timing: it finishes meanwhile
        return {}, {}, []

    def second():
        began["second"] = time.monotonic()
        return {}, {}, []

    monkeypatch.setattr(conductor, "bench", fake_bench)
    cap = _live(kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "mlp_0.py"))
    kernels = [k for k in cap.kernels if k.kind.startswith("triton")][:2]
    cap.session.stages = read_in_background([StageJob(k, KernelIR(), texts)
                                             for k, texts in zip(kernels, (first, second))])
    conductor.timed(cap, cap.session)
    cap.wait_stages()
    assert began["second"] >= ended[0]
    assert read_in_background([]) is None
