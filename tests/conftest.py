import html.parser
import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ALL_FIXTURES = sorted(FIXTURES.glob("*/*.py"))
CUDA_FIXTURES = sorted(FIXTURES.glob("cuda-*/*.py"))


def big_capture(kernels: int = 200):
    """A capture of at least ``kernels`` kernels: the real H100 fixtures' graphs, repeated."""
    import copy

    import kernelviz
    from kernelviz.model import Capture

    sources = [kernelviz.load(p).graphs[0] for p in CUDA_FIXTURES]
    graphs = []
    while sum(len(g.kernels) for g in graphs) < kernels:
        graph = copy.deepcopy(sources[len(graphs) % len(sources)])
        graph.id = f"{len(graphs)}_{graph.id}"
        graphs.append(graph)
    return Capture(graphs=graphs)


def reordered(graph, order: list[int]):
    """A copy of ``graph`` whose call() runs its launches in ``order`` (each numbered by its new place)."""
    import copy

    again = copy.copy(graph)
    again.launches = [copy.copy(graph.launches[k]) for k in order]
    for index, launch in enumerate(again.launches):
        launch.index = index
    return again


class Tags(html.parser.HTMLParser):
    """The start tags (name, attributes) and the text of some HTML."""

    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse_html(markup: str) -> Tags:
    parser = Tags()
    parser.feed(markup)
    return parser


H100_PEAKS = {"device": "NVIDIA H100 80GB HBM3", "dram_gb_per_s": 3350.0,
              "tflops": {"bfloat16": 989.0, "float16": 989.0, "tf32": 494.0, "float32": 67.0},
              "source": "datasheet: NVIDIA H100 SXM5 80GB"}


def timed_train_step():
    """A real H100 training step's code (``cuda-h100-torch2.11/train_step_1.py``) with drawn timings and its first
    graph as it runs (launch-bound: 2.27 ms plain, 1.30 ms replayed)."""
    import kernelviz
    from kernelviz.model import AsRun

    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "train_step_1.py")
    fill_timings(cap)
    graph = cap.graphs[0]
    kernels_ms = sum(launch.timing.in_graph_ms for launch in graph.launches)
    graph.as_run = AsRun("gpu", 2.27, 20, 0.02, launch_cpu_ms=2.2, kernels_ms=kernels_ms, replay_ms=1.30)
    return cap


def fill_timings(capture, *, peaks: bool = True):
    """Plausible timing numbers in the fields the timing fills, on a capture of real output code: a test
    of drawing, not of timing. Extern calls get FLOPs (compute-bound); one launch is cache-resident."""
    from kernelviz.model import DevicePeaks, KernelTiming, LaunchTiming

    capture.peaks = DevicePeaks(**H100_PEAKS) if peaks else None
    for graph in capture.graphs:
        total = 0.0
        for launch in graph.launches:
            ms = 0.003 + 0.011 * ((launch.index * 37) % 13)
            nbytes = int(2e6 * (1 + (launch.index * 7) % 5))
            t = LaunchTiming(in_graph_ms=ms, unit="gpu", bytes=nbytes, bytes_estimate=nbytes, bytes_args=nbytes * 2,
                             flushed_ms=ms * 1.3, gb_per_s=nbytes / (ms / 1e3) / 1e9)
            t.pct_peak_bw = min(100.0, 100 * nbytes / (t.flushed_ms / 1e3) / 1e9 / 3350)
            t.cache_resident = t.gb_per_s > 3350
            if launch.kernel_name is None:
                t.flops, t.dtype = 2.0 * 512 ** 3 * (1 + launch.index % 3), "bfloat16"
                t.tflop_per_s = t.flops / (ms / 1e3) / 1e12
                t.pct_peak_flops = min(100.0, 100 * t.flops / (t.flushed_ms / 1e3) / 1e12 / 989)
                t.bound = "compute"
            else:
                t.bound = "latency" if ms < 0.01 else "memory"
            launch.timing = t
            total += ms
        for launch in graph.launches:
            launch.timing.share = launch.timing.in_graph_ms / total
        for kernel in graph.kernels:
            kernel.timing = KernelTiming(isolated_ms=0.02, num_regs=32, num_spills=0, shared_bytes=0,
                                         config={"XBLOCK": 1024, "num_warps": 4, "num_stages": 1})
        graph.gap_ms, graph.gpu_busy_ms, graph.timed_on = total * 0.06, total * 1.06, "user tensors"
    return capture


@pytest.fixture(autouse=True)
def terminal_width(monkeypatch):
    """Text summaries are as wide as the terminal: every test sees 120 columns (pytest-xdist's workers are told
    80) unless it sets its own."""
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def fresh_dynamo():
    """Each live-capture test starts and ends with dynamo's caches empty."""
    import torch

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture
def inductor_cache(tmp_path, monkeypatch):
    """An empty Inductor cache directory of the test's own (what a new machine has)."""
    path = tmp_path / "inductor-cache"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(path))
    return path


@pytest.fixture
def device():
    """Where device-agnostic live tests run: the GPU where there is one (torch 2.11 there), else the CPU."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def pytest_collection_modifyitems(config, items):
    """GPU tests run only where CUDA is present (the GPU machine); CI has none."""
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if has_cuda and not os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run through the GPU machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
