"""A real H100 training step's code (the backward graph of ``cuda-h100-torch2.11/train_step_1.py``) with drawn
timings, its graph as it runs, its findings, and what-ifs of every outcome: two that save, one within the noise,
one slower, one that is faster but changes the outputs, one that could not run: model data for the views' tests."""

from conftest import timed_train_step
from kernelviz.model import WhatIf

FP32 = "atol 1e-05, rtol 1.3e-06 (float32)"


def whatif_capture():
    cap = timed_train_step()
    graph = cap.graphs[0]
    cap.advice()
    sum_5, sum_1 = graph.launches[7].kernel_name, graph.launches[1].kernel_name  # two memory-bound findings' kernels
    common = {"graphs": [0], "step_ms": 6.0, "tolerance": FP32}
    cap.whatifs = [
        WhatIf("max_autotune", "max-autotune: Inductor tunes its GEMM and kernel configs",
               "torch._inductor.config.max_autotune = True", [0],
               reason="no GEMM in these graphs to tune: their extern calls are not mm, bmm or addmm"),
        WhatIf("tf32", "TF32 matmuls and convolutions", 'torch.backends.cuda.matmul.allow_tf32 = True\n'
               'torch.backends.cudnn.allow_tf32 = True', before_ms=2.27, before_noise_ms=0.02, after_ms=1.90,
               after_noise_ms=0.02, compile_s=3.2, max_abs_diff=0.0123, max_rel_diff=0.0041, verdict="differs",
               **common),
        WhatIf("coordinate_descent", "coordinate-descent tuning of each kernel's config",
               "torch._inductor.config.coordinate_descent_tuning = True", before_ms=2.27, before_noise_ms=0.02,
               after_ms=2.40, after_noise_ms=0.03, compile_s=41.0, max_abs_diff=0.0, max_rel_diff=0.0,
               verdict="same", **common),
        WhatIf("cudagraphs", "run the graphs as CUDA graphs (reduce-overhead)",
               'model = torch.compile(model, mode="reduce-overhead")', before_ms=2.27, before_noise_ms=0.02,
               after_ms=1.32, after_noise_ms=0.015, compile_s=4.1, max_abs_diff=0.0, max_rel_diff=0.0,
               verdict="same", **common),
        WhatIf("launch_config", f"{sum_5}: XBLOCK=64, num_warps=2 (captured: XBLOCK=1024, num_warps=4)",
               "# in the graph's output code:\n@triton.heuristics(...)  # XBLOCK=64, num_warps=2", kernel=sum_5,
               before_ms=2.27, before_noise_ms=0.02, after_ms=2.26, after_noise_ms=0.02, compile_s=0.8,
               max_abs_diff=0.0, max_rel_diff=0.0, verdict="same", **common),
        WhatIf("launch_config", f"{sum_1}: R0_BLOCK=8 (captured: R0_BLOCK=64)", "# R0_BLOCK=8", kernel=sum_1,
               before_ms=2.27, before_noise_ms=0.02, after_ms=2.10, after_noise_ms=0.02, compile_s=0.7,
               max_abs_diff=0.5, max_rel_diff=0.25, verdict="differs", **common),
        WhatIf("cpp_wrapper", "launch the kernels from C++ (Inductor's C++ wrapper)",
               "torch._inductor.config.cpp_wrapper = True", before_ms=2.27, before_noise_ms=0.02, after_ms=2.01,
               after_noise_ms=0.02, compile_s=22.5, max_abs_diff=0.0, max_rel_diff=0.0, verdict="same", **common),
    ]
    return cap
