"""A launch's grid where Triton's interpreter cannot import (it needs numpy, which neither torch nor Triton
declares: on such a machine every Triton repro lacked its grid). The kernels' metadata and launch arguments are
those Inductor wrote on an H100 (tests/fixtures/cuda-h100-torch2.11); the launcher stands in for Inductor's
CachingAutotuner, whose ``_interpret_args_grid`` fails as it does without numpy."""

import math
from types import SimpleNamespace

import pytest

import kernelviz
from conftest import FIXTURES
from kernelviz.calls import launch_grid

H100 = FIXTURES / "cuda-h100-torch2.11"


def _launcher(kernel, config: dict):
    def interpret(args, cfg):
        raise ImportError("No module named 'numpy'")  # triton.runtime.interpreter's first import

    signature = kernel.triton_meta["signature"]
    params = [SimpleNamespace(num=i, is_constexpr=kind == "constexpr") for i, kind in enumerate(signature.values())]
    cfg = SimpleNamespace(kwargs=config, num_warps=4, num_stages=1, num_ctas=1, maxnreg=None)
    return SimpleNamespace(triton_meta=kernel.triton_meta, inductor_meta=kernel.inductor_meta,
                           fn=SimpleNamespace(params=params), launchers=[SimpleNamespace(config=cfg)],
                           _interpret_args_grid=interpret, grid_mode="python")


def _numbers(launch):
    """The launch's arguments as call() passes them: buffers (any object) and the sizes it wrote."""
    return tuple(int(a) if a.lstrip("-").isdigit() else object() for a in launch.args if "=" not in a)


@pytest.mark.parametrize("fixture, kernel_name, config, expected", [
    ("pointwise_0.py", "triton_poi_fused_add_mul_relu_sigmoid_sub_0", {"XBLOCK": 1024},
     lambda n: (math.ceil(n["xnumel"] / 1024), 1, 1)),
    ("resnet18_0.py", "triton_poi_fused__native_batch_norm_legit_no_training_add_relu_11",
     {"XBLOCK": 16, "YBLOCK": 256}, lambda n: (math.ceil(n["xnumel"] / 16), math.ceil(n["ynumel"] / 256), 1)),
])
@pytest.mark.parametrize("attrs_dict", [True, False])  # Triton 3.6 passes no constexpr; older ones all
def test_the_grid_comes_from_inductors_grid_expression_without_the_interpreter(fixture, kernel_name, config,
                                                                               expected, attrs_dict, monkeypatch):
    from torch._inductor.runtime import triton_heuristics

    monkeypatch.setattr(triton_heuristics, "triton_version_uses_attrs_dict", lambda: attrs_dict)
    cap = kernelviz.load(H100 / fixture)
    graph = cap.graphs[0]
    kernel = graph.kernel(kernel_name)
    launch = next(launch for launch in graph.launches if launch.kernel_name == kernel_name)
    args = _numbers(launch)
    sizes = {name: value for name, value in zip(kernel.params(), args) if isinstance(value, int)}
    assert sizes and all(value > 1 for value in sizes.values())
    assert launch_grid(_launcher(kernel, config), args) == expected(sizes)


def test_a_launcher_without_grids_says_nothing():
    assert launch_grid(SimpleNamespace(launchers=[]), ()) is None
    assert launch_grid(object(), (1,)) is None
