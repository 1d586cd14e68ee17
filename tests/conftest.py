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


@pytest.fixture
def fresh_dynamo():
    """Each live-capture test starts and ends with dynamo's caches empty."""
    import torch

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


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
