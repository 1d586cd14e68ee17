import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ALL_FIXTURES = sorted(FIXTURES.glob("*/*.py"))
CUDA_FIXTURES = sorted(FIXTURES.glob("cuda-*/*.py"))


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
