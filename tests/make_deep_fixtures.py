"""Make the GPU fixtures of the deep-inspection tests (run on the GPU machine; copy OUT's files to
tests/fixtures/deep/):

    python tests/make_deep_fixtures.py OUT

- ``capture.json``: a timed capture of a layer norm + relu graph (one Triton kernel, with its compiled
  stages and repro records) and of a jiterator kernel.
- ``cpp_wrapper_0.py``: output code of a small CUDA graph compiled with ``cpp_wrapper=True`` (C++ that
  names CUDA's API, for the HIP view).
"""

import sys
import time
from pathlib import Path

import torch

import kernelviz
import zoo

JIT_CODE = "template <typename T> T my_fused(T x, T y, T alpha) { return -x * y + x - y + alpha; }"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    x, w, b = torch.randn(64, 32, device="cuda"), torch.randn(32, device="cuda"), torch.randn(32, device="cuda")
    fn = torch.cuda.jiterator._create_jit_fn(JIT_CODE, alpha=1.0)
    start = time.perf_counter()
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.layer_norm_relu)(x, w, b)
        fn(x, x, alpha=2.0)
    print(f"captured and timed in {time.perf_counter() - start:.1f} s", flush=True)
    (out / "capture.json").write_text(cap.to_json(indent=1))
    torch._dynamo.reset()
    with torch._inductor.config.patch(cpp_wrapper=True), kernelviz.capture() as wrapped:
        torch.compile(zoo.pointwise)(torch.randn(1024, device="cuda"))
    for i, graph in enumerate(wrapped.graphs):
        (out / f"cpp_wrapper_{i}.py").write_text(graph.code)
    print(f"wrote {sorted(p.name for p in out.iterdir())}; {len(wrapped.graphs)} cpp_wrapper graphs; "
          f"warnings {cap.warnings + wrapped.warnings}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
