"""CUDA's disassembler on a capture's cubins: each cubin alone (a process each, as many at once as CPUs) against
merged groups (kernelviz.ir.merge, what the stage reading does), with the SASS of each compared. No GPU needed:
the cubins are the fixtures', or ``--triton N`` kernels Triton compiles here for sm_90a (Triton and its nvdisasm
installed; CUDA_HOME may point at another nvdisasm).

    python benchmarks/bench_sass_merge.py [--triton 146] [FOLDER_OF_CUBINS]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernelviz.ir import merge, stages  # noqa: E402

WORKERS = min(16, os.cpu_count() or 4)


def triton_cubins(count: int, folder: Path) -> list[Path]:
    """``count`` distinct kernels (reductions and pointwise ones, of several block sizes) compiled by Triton, each
    of its own name as a capture's are."""
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget

    body = {"r": "    v = tl.load(x + i, mask=i < n, other=0.0) * {k}\n"
                 "    tl.store(y + tl.program_id(0), tl.sum(tl.exp(v) * tl.sigmoid(v), 0))\n",
            "p": "    v = tl.load(x + i, mask=i < n)\n"
                 "    tl.store(y + i, tl.where(v > {k}, v * 2.0, tl.math.erf(v)), mask=i < n)\n"}
    module = folder / "kernels.py"
    module.write_text("import triton\nimport triton.language as tl\n" + "".join(
        f"\n\n@triton.jit\ndef k{i}_{'rp'[i % 2]}(x, y, n, B: tl.constexpr):\n"
        "    i = tl.program_id(0) * B + tl.arange(0, B)\n" + body["rp"[i % 2]].format(k=i) for i in range(count)))
    spec = importlib.util.spec_from_file_location("kernelviz_bench_kernels", module)
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    paths = []
    for i in range(count):
        source = triton.compiler.ASTSource(fn=getattr(kernels, f"k{i}_{'rp'[i % 2]}"), constexprs={
            "B": (128, 256, 512, 1024)[(i // 2) % 4]}, signature={"x": "*fp32", "y": "*fp32", "n": "i32",
                                                                 "B": "constexpr"})
        path = folder / f"k{i}.cubin"
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        path.write_bytes(compiled.asm["cubin"])
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=ROOT / "tests" / "fixtures" / "cubins")
    parser.add_argument("--triton", type=int, default=0, help="compile this many kernels with Triton instead")
    args = parser.parse_args()
    nvdisasm = stages._tool("nvdisasm")
    if nvdisasm is None:
        sys.exit("no nvdisasm here (install Triton, or set CUDA_HOME)")
    work = Path(tempfile.mkdtemp(prefix="kernelviz-bench-sass-"))
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # nothing kept yet: every cubin disassembled
    cubins = triton_cubins(args.triton, work) if args.triton else sorted(args.folder.glob("*.cubin"))
    print(f"{len(cubins)} cubins, {WORKERS} at once, {nvdisasm}")

    def alone(path: Path) -> str:
        return subprocess.run([nvdisasm, "-c", "-gi", str(path)], capture_output=True, text=True).stdout

    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        own = list(pool.map(alone, cubins))
    each = time.perf_counter() - start
    start = time.perf_counter()
    groups = stages.batches(cubins, WORKERS)
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(lambda group: stages.disassemble_batch([part for _, part in group]), groups))
    merged = time.perf_counter() - start
    kept = [stages._kept_sass(path.read_bytes(), nvdisasm) for path in cubins]
    same = sum(1 for text, k in zip(own, kept) if k is not None and k[1] == text)
    unmerged = sum(1 for path in cubins if merge.part(path.read_bytes()) is None)
    print(f"  each cubin alone: {each:.2f} s ({len(cubins)} runs)")
    print(f"  merged groups:    {merged:.2f} s ({len(groups)} runs; {unmerged} cubins could not be merged)")
    print(f"  SASS the same for {same} of {len(cubins)} cubins")


if __name__ == "__main__":
    main()
