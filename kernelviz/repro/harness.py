# --- kernelviz repro harness: imports only torch and the standard library ---------------------------------
# Makes a launch's arguments from their recorded specs, checks outputs against the expected ones and times
# the launch as kernelviz does. kernelviz records expected outputs with these same functions, and copies this
# file into every repro script, so a script's inputs are the ones its expected outputs were computed from.
import base64
import math
import sys
import time
from math import inf, nan  # noqa: F401 - recorded values below may be inf or nan

import torch

SMALL_BYTES = 1024  # outputs up to this size are kept whole; larger ones as a sample and sums
SAMPLE = 128  # values kept of a larger output, in its own dtype (a saved notebook keeps every repro's: its bytes)
TOLERANCE = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}  # (rtol, atol); others (1e-4, 1e-5)


def make_arg(spec, seed):
    """An argument like the recorded one: same dtype, shape, stride, storage offset and storage size;
    values kept from the run where there are some, seeded random floats (and bools) otherwise, zeros for
    integers (always valid indices)."""
    kind = spec["kind"]
    if kind in ("int", "float", "bool"):
        return spec.get("value")
    if kind == "none":
        return None
    if kind != "tensor":
        raise ValueError(f"argument {spec['name']} ({spec.get('value')}) cannot be made again")
    dtype, device, n = getattr(torch, spec["dtype"]), torch.device(spec["device"]), max(spec["storage"], 1)
    if spec["fill"] == "values":
        base = torch.frombuffer(bytearray(base64.b64decode(spec["values"])), dtype=dtype).to(device)
    elif spec["fill"] == "zeros" or not (dtype.is_floating_point or dtype == torch.bool):
        base = torch.zeros(n, dtype=dtype, device=device)
    else:
        generator = torch.Generator(device=device).manual_seed(seed)
        if dtype == torch.bool:
            base = torch.randint(0, 2, (n,), generator=generator, device=device).bool()
        else:
            base = torch.randn(n, generator=generator, device=device, dtype=torch.float32).to(dtype)
    return base.as_strided(spec["shape"], spec["stride"], spec["offset"])


def make_args(specs):
    return [make_arg(spec, seed=i) for i, spec in enumerate(specs)]


def seeded(run):
    """``run()`` with the global RNG seeded: random numbers a graph draws itself (dropout's seeds on the CPU)
    are the same in the script as where its expected outputs were computed."""
    torch.manual_seed(0)
    return run()


def _raw(tensor):
    flat = tensor.detach().contiguous().cpu().reshape(-1).view(torch.uint8)
    raw = bytearray(flat.numel())
    if raw:
        torch.frombuffer(raw, dtype=torch.uint8).copy_(flat)
    return base64.b64encode(raw).decode()


def _totals(flat):
    finite = torch.nan_to_num(flat.double(), nan=0.0, posinf=0.0, neginf=0.0)
    return float(finite.sum()), float(finite.abs().sum())


def _sample(flat, count=SAMPLE):
    """Values at ``count`` evenly spaced positions (integer arithmetic: exact for any size)."""
    count = min(count, flat.numel())
    at = torch.arange(count, device=flat.device) * (flat.numel() - 1) // max(count - 1, 1)
    return flat[at]


def summarize(name, tensor):
    """What a check needs of an output: its values if small, else a sample and sums."""
    out = {"name": name, "dtype": str(tensor.dtype).removeprefix("torch."), "numel": tensor.numel()}
    if tensor.numel() * tensor.element_size() <= SMALL_BYTES:
        return {**out, "data": _raw(tensor)}
    flat = tensor.detach().reshape(-1)
    total, abs_total = _totals(flat)
    return {**out, "sample": _raw(_sample(flat)), "sample_dtype": out["dtype"], "total": total, "abs_total": abs_total}


def check(tensor, expected):
    """None if ``tensor`` matches ``expected`` (within the dtype's tolerance), else what differs, in one line."""
    name = expected["name"]
    if tensor.numel() != expected["numel"]:
        return f"{name}: {tensor.numel()} elements, expected {expected['numel']}"
    flat = tensor.detach().reshape(-1)
    if expected.get("data") is not None:
        want = torch.frombuffer(bytearray(base64.b64decode(expected["data"])), dtype=getattr(torch, expected["dtype"]))
        got = flat.cpu()
    else:
        # a sample recorded before kernelviz kept it in the output's dtype is float64 (and 512 values)
        dtype = getattr(torch, expected.get("sample_dtype") or "float64")
        want = torch.frombuffer(bytearray(base64.b64decode(expected["sample"])), dtype=dtype)
        got = _sample(flat, want.numel()).cpu()
        total, _ = _totals(flat)
        slack = 1e-4 * expected["abs_total"] + 1e-3
        if not math.isclose(total, expected["total"], rel_tol=0, abs_tol=slack):
            return f"{name}: sum {total:.6g}, expected {expected['total']:.6g}"
    if not (want.dtype.is_floating_point or want.dtype.is_complex):
        return None if torch.equal(got, want.to(got.dtype)) else f"{name}: values differ"
    rtol, atol = TOLERANCE.get(expected["dtype"], (1e-4, 1e-5))
    close = torch.isclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return None
    worst = int((~close).nonzero()[0])
    return (f"{name}: {int((~close).sum())} of {close.numel()} values differ "
            f"(first at {worst}: {float(got[worst]):.6g}, expected {float(want[worst]):.6g})")


def time_kernel_gpu(fn):
    """Inductor's benchmarker (CUDA events, L2 flushed), as kernelviz times a kernel alone."""
    from torch._inductor.runtime.benchmarking import benchmarker

    try:
        return benchmarker.benchmark_gpu(fn, warmup=15.0, rep=30.0)
    except TypeError:  # a benchmarker without Triton's warmup/rep arguments
        return benchmarker.benchmark_gpu(fn)


def time_call_gpu(fn, reps=10):
    """CUDA-event time of the GPU work alone, as kernelviz times call(): the stream sleeps first for longer
    than the CPU takes to enqueue ``fn``, and L2 is flushed before each repetition."""
    flush = torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")
    torch.cuda.synchronize()
    cpu = time.perf_counter()
    fn()
    cpu_ms = (time.perf_counter() - cpu) * 1e3
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spent = 0.0
    for _ in range(reps):
        flush.zero_()
        torch.cuda._sleep(int(2e6 * (1.5 * cpu_ms + 0.1)))
        start.record()
        fn()
        end.record()
        end.synchronize()
        spent += start.elapsed_time(end)
    return spent / reps


def time_cpu(fn, reps=5, warmup=1):
    """Mean wall-clock time, as kernelviz times CPU kernels."""
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) * 1e3 / reps


TIMERS = {"kernel-gpu": time_kernel_gpu, "call-gpu": time_call_gpu, "cpu": time_cpu}


def outputs_of(specs, args, result):
    """Each output by the name its check uses: an argument's name, or ``return[i]``."""
    found = {spec["name"]: arg for spec, arg in zip(specs, args)}
    returned = result if isinstance(result, (tuple, list)) else [result]
    found.update({f"return[{i}]": r for i, r in enumerate(returned) if isinstance(r, torch.Tensor)})
    return found


def main(title, launch, specs, expected, timer):
    """Run ``launch`` once on the made arguments, check every expected output, time it; exit 1 on a mismatch."""
    args = make_args(specs)
    outputs = outputs_of(specs, args, seeded(lambda: launch(args)))
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    problems = [check(outputs[e["name"]], e) if e["name"] in outputs else f"{e['name']}: not produced"
                for e in expected]
    problems = [p for p in problems if p]
    ms = TIMERS[timer](lambda: launch(args))
    verdict = (f"MISMATCH: {'; '.join(problems)}" if problems else
               f"outputs match ({len(expected)} checked)" if expected else "no outputs to check")
    print(f"{title}: {verdict}; {ms:.4f} ms ({timer} time)")
    sys.exit(1 if problems else 0)
# --- end of the kernelviz repro harness -------------------------------------------------------------------
