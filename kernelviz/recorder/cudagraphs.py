"""reduce-overhead's CUDA graphs, read where Inductor decides: each skip with its reason and the user's line
(``log_cudagraph_skip_and_bump_counter``, in every module that took it by name), each recording of a graph and,
for a graph recorded again, why (new input sizes, or the invariant its recording no longer met:
``check_invariants``), each replay (``execute_node``), and the memory of the trees' pool.

Events are told with the code key of the graph they concern (:data:`routing.running`: set while a graph runs and
while its compile's post-compile step decides on CUDA graphs, by :mod:`.inductor`).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from ..model import CudaGraphEvent, SourceLocation
from ..patches import Patches
from . import routing

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)')
_MAX_KEPT = 512
_shapes_seen: OrderedDict[str, set[str]] = OrderedDict()  # code key -> input sizes recorded in this process
_last_call: OrderedDict[str, tuple[object, int]] = OrderedDict()  # code key -> (its call() that recorded last, count)
_status = threading.local()  # .last: why the last recorded graph's invariants failed in this thread


def skip_event(message: str) -> CudaGraphEvent:
    """Inductor's skip message as an event: its reason, and the last frame it names (the user's line)."""
    text = str(message)
    reason = text.split(" Found from", 1)[0].strip()
    reason = re.sub(r"^skipping cudagraphs? (due to |for )?", "", reason).rstrip(".")
    frames = _FRAME.findall(text)
    location = None
    if frames:
        file, line, function, code = frames[-1]
        location = SourceLocation(file, int(line), function, code.strip())
    return CudaGraphEvent("skip", reason, location)


def _tell(event: CudaGraphEvent | None) -> None:
    key = routing.running.get()
    for recorder in routing.targets(key):
        recorder.on_cudagraph(event, key)


def _sizes(inputs: Any) -> str:
    return ", ".join("x".join(map(str, x.shape)) or "scalar" for x in inputs or () if hasattr(x, "shape"))


def _partition(key: str | None) -> int:
    """Which recording of this run of the graph's call() this is: 0, then 1, 2, ... for its further partitions."""
    call = routing.call.get()
    if key is None or call is None:
        return 0
    with routing.lock:
        last, count = _last_call.get(key, (None, -1))
        index = count + 1 if last is call else 0
        _last_call[key] = (call, index)
        _last_call.move_to_end(key)
        while len(_last_call) > _MAX_KEPT:
            _last_call.popitem(last=False)
    return index


def _on_record(inputs: Any) -> None:
    key, shapes = routing.running.get(), _sizes(inputs)
    last, _status.last = getattr(_status, "last", None), None
    index = _partition(key)
    if index:  # a further partition of the same call(): each is a CUDA graph of its own
        _tell(CudaGraphEvent("record", f"partition {index + 1}", None, shapes))
        return
    with routing.lock:
        seen = _shapes_seen.setdefault(key, set()) if key is not None else set()
        earlier = set(seen)
        seen.add(shapes)
        while len(_shapes_seen) > _MAX_KEPT:
            _shapes_seen.popitem(last=False)
    if not earlier:
        _tell(CudaGraphEvent("record", shapes=shapes))
    elif shapes not in earlier:
        _tell(CudaGraphEvent("re-record", f"new input sizes ({', '.join(sorted(earlier))} recorded before)", None,
                             shapes))
    else:
        _tell(CudaGraphEvent("re-record", last or "recorded again where the tree of CUDA graphs held no recording "
                                                 "for this place (after another graph, or a new generation)",
                             None, shapes))


def _on_status(status: Any, describe: Any) -> None:
    if getattr(status, "name", "SUCCESS") != "SUCCESS":
        _status.last = str(describe() if callable(describe) else describe)


def install(patches: Patches) -> None:
    """Read reduce-overhead's skips, recordings and replays, undone with ``patches``."""

    def skip(original):
        def wrapper(message, *args, **kwargs):
            routing.safely(lambda: _tell(skip_event(message)))
            return original(message, *args, **kwargs)

        return wrapper

    for module in ("cudagraph_utils", "compile_fx", "output_code", "cudagraph_trees"):
        name = f"torch._inductor.{module}"
        try:
            held = hasattr(__import__(name, fromlist=["_"]), "log_cudagraph_skip_and_bump_counter")
        except ImportError:
            held = False
        if held:
            patches.wrap(name, "", "log_cudagraph_skip_and_bump_counter", skip)

    def record_function(original):
        def wrapper(self, new_inputs, *args, **kwargs):
            routing.safely(_on_record, new_inputs)
            return original(self, new_inputs, *args, **kwargs)

        return wrapper

    def execute_node(original):
        def wrapper(self, node, *args, **kwargs):
            routing.safely(_tell, None)
            return original(self, node, *args, **kwargs)

        return wrapper

    def check_invariants(original):
        def wrapper(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            if isinstance(result, tuple) and len(result) == 2:
                routing.safely(_on_status, *result)
            return result

        return wrapper

    trees = "torch._inductor.cudagraph_trees"
    patches.wrap(trees, "CUDAGraphTreeManager", "record_function", record_function)
    patches.wrap(trees, "CUDAGraphTreeManager", "execute_node", execute_node)
    patches.wrap(trees, "CUDAGraphNode", "check_invariants", check_invariants)


def pool_bytes() -> int | None:
    """Bytes the CUDA-graph trees' memory pool holds on the current device now (None where there is none)."""
    try:
        import torch
        from torch._inductor import cudagraph_trees

        if not torch.cuda.is_available():
            return None
        container = cudagraph_trees.get_container(torch.cuda.current_device())
        manager = getattr(container, "tree_manager", None)
        pool = getattr(manager, "cuda_graphs_thread_pool", None)
        if pool is None:
            return None
        segments = torch.cuda.memory_snapshot()
        return sum(int(s.get("total_size", 0)) for s in segments if tuple(s.get("segment_pool_id", ())) == tuple(pool))
    except Exception:  # noqa: BLE001 - a torch without these internals: the pool's size is not known
        return None
