"""jiterator kernels that run inside a capture, listed as their own graph-less entries.

``torch.cuda.jiterator._create_jit_fn`` and ``_create_multi_output_jit_fn`` launch through
``torch._C._cuda_jiterator_compile_and_launch_kernel(code, name, return_by_ref, num_outputs, tensors,
kwargs)``; while a capture is active that function is wrapped (and always restored) to see every call.
Each kernel and input signature becomes a pseudo-graph of kind ``"jiterator"``: its one kernel is the CUDA
C++ source, its inputs the tensors' dtypes, shapes and strides, and its code a small Python module whose
``call()`` launches the kernel the same way, so timing, repro and every view treat it as a compiled graph.
"""

from __future__ import annotations

import contextlib
import keyword
import threading
from dataclasses import dataclass, field
from typing import Any

from .model import Capture, Graph, Kernel, Launch, TensorSpec
from .patches import Patches

MAX_SIGNATURES = 16  # entries per kernel; further input signatures are counted in a warning


@dataclass
class JitCall:
    """The calls of one jiterator kernel with one input signature."""

    code: str
    name: str
    return_by_ref: bool
    num_outputs: int
    inputs: list[TensorSpec]
    kwargs: dict[str, Any]
    count: int = 0


@dataclass
class _Recorder:
    calls: dict[tuple, JitCall] = field(default_factory=dict)
    dropped: int = 0


_lock = threading.Lock()
_recorders: list[_Recorder] = []
_patches: Patches | None = None  # installed while a capture records


def _spec(i: int, tensor: Any) -> TensorSpec:
    return TensorSpec(name=f"arg{i}", shape=[str(s) for s in tensor.shape], stride=[str(s) for s in tensor.stride()],
                      dtype=str(tensor.dtype).removeprefix("torch."), device=str(tensor.device), recorded=True)


def note_call(recorder: _Recorder, code: str, name: str, return_by_ref: bool, num_outputs: int, tensors: Any,
              kwargs: dict[str, Any]) -> None:
    """Count one call in ``recorder``, keyed by kernel and input signature."""
    inputs = [_spec(i, t) for i, t in enumerate(tensors)]
    kwargs = dict(kwargs or {})
    key = (code, name, bool(return_by_ref), int(num_outputs),
           tuple((s.dtype, tuple(s.shape), tuple(s.stride), s.device) for s in inputs), repr(sorted(kwargs.items())))
    if key not in recorder.calls:
        if sum(1 for k in recorder.calls if k[:2] == key[:2]) >= MAX_SIGNATURES:
            recorder.dropped += 1
            return
        recorder.calls[key] = JitCall(code, name, bool(return_by_ref), int(num_outputs), inputs, kwargs)
    recorder.calls[key].count += 1


def _install() -> Patches:
    patches = Patches()

    def wrap(original):
        def launch(code, name, return_by_ref, num_outputs, tensors, kwargs):
            for recorder in list(_recorders):
                try:
                    note_call(recorder, code, name, return_by_ref, num_outputs, tensors, kwargs)
                except Exception:  # noqa: BLE001, S110 - recording must never break the user's call
                    pass
            return original(code, name, return_by_ref, num_outputs, tensors, kwargs)

        return launch

    patches.wrap("torch._C", "", "_cuda_jiterator_compile_and_launch_kernel", wrap)
    return patches


@contextlib.contextmanager
def recording(capture: Capture):
    """Record jiterator calls while the block runs; at its end (also on an error) the patch is undone, when
    no other capture needs it, and the calls are added to ``capture`` as graphs."""
    global _patches
    recorder = _Recorder()
    with _lock:
        if _patches is None:
            _patches = _install()
        _recorders.append(recorder)
    try:
        yield recorder
    finally:
        with _lock:
            _recorders.remove(recorder)
            if not _recorders and _patches is not None:
                _patches.undo()
                _patches = None
        capture.graphs.extend(jiterator_graph(i, call) for i, call in enumerate(recorder.calls.values()))
        if recorder.dropped:
            capture.warnings.append(f"{recorder.dropped} jiterator calls with further input signatures "
                                    f"(over {MAX_SIGNATURES} per kernel) are not listed")


def _identifier(name: str) -> str:
    ok = name.isidentifier() and not keyword.iskeyword(name) and name not in ("torch", "call", "args", "result")
    return name if ok else f"jit_{abs(hash(name)) % 10**8}"


def jiterator_graph(index: int, call: JitCall) -> Graph:
    """The pseudo-graph of one jiterator kernel and input signature."""
    name = _identifier(call.name)
    kwargs = "".join(f", {k}={v!r}" for k, v in call.kwargs.items())
    make = (f"_create_multi_output_jit_fn({call.code!r}, {call.num_outputs}{kwargs})" if call.return_by_ref
            else f"_create_jit_fn({call.code!r}{kwargs})")
    args = [spec.name for spec in call.inputs]
    lines = [f"# kernelviz: torch.cuda.jiterator kernel {call.name}, not compiled by Inductor",
             "import torch", "", f"{name} = torch.cuda.jiterator.{make}", "", "",
             "def call(args):", f"    {', '.join(args)}{',' if len(args) == 1 else ''} = args" if args else "    pass",
             "    args.clear()", f"    result = {name}({', '.join(args)}{kwargs})",
             "    return tuple(result) if isinstance(result, (tuple, list)) else (result,)"]
    first = lines.index("def call(args):") + 1
    launch_line = first + 3
    launch = Launch(index=0, step=0, kernel_name=name, args=args, writes=["result"], line=launch_line,
                    text=lines[launch_line - 1].strip())
    kernel = Kernel(name=name, kind="jiterator", source=call.code)
    return Graph(id=f"jiterator_{index}_{call.name}", kind="jiterator", device="cuda", code="\n".join(lines) + "\n",
                 kernels=[kernel], launches=[launch], inputs=call.inputs, outputs=["result"],
                 call_span=[first, len(lines)], calls=call.count, cache=None)
