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
