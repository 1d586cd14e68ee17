"""The ranks of small torch.distributed jobs, run by torch.multiprocessing spawn from the tests (each rank
reports what it saw to ``out/result.rank<N>.json``). NVLink multicast stays off in every process."""

import json
import os
import socket
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(rank: int, world: int, port: int, backend: str) -> None:
    os.environ.update(NO_MULTICAST, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
    if backend == "nccl":
        torch.cuda.set_device(rank)
    dist.init_process_group(backend, rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank) if backend == "nccl" else None)


def report(out: Path, rank: int, found: dict) -> None:
    (out / f"result.rank{rank}.json").write_text(json.dumps(found, indent=1))


def talk(x, w):
    """Work and the three collectives of data and model parallelism, as functional collectives."""
    y = torch.relu(x @ w)
    y = funcol.all_reduce(y, "sum", dist.group.WORLD)
    g = funcol.all_gather_tensor(y * 2, 0, dist.group.WORLD)
    r = funcol.reduce_scatter_tensor(g + 1, "sum", 0, dist.group.WORLD)
    return r.sum() + y.mean()


def gloo_rank(rank: int, world: int, port: int, out: str) -> None:
    """Capture and time ``talk`` in lockstep, save; then time again with rank 1 staying away."""
    import kernelviz

    out = Path(out)
    start(rank, world, port, "gloo")
    found: dict = {}
    torch.manual_seed(rank)
    x, w = torch.randn(8, 16), torch.randn(16, 16)
    inputs = (x.clone(), w.clone())
    compiled = torch.compile(talk)
    with kernelviz.capture(bench=True) as cap:
        first = compiled(x, w)
    found["saved"] = str(cap.save(out / "step"))
    found["result_kept"] = bool(torch.equal(compiled(x, w), first))
    found["inputs_kept"] = all(torch.equal(a, b) for a, b in zip((x, w), inputs))

    # the same graph timed again, with rank 1 staying away: rank 0 gives up after the limit
    with kernelviz.capture() as again:
        second = compiled(x, w)
    rng = torch.get_rng_state()
    if rank == 0:
        began = time.perf_counter()
        again.bench(progress=False, limit_s=3.0)
        found["alone_s"] = time.perf_counter() - began
        found["alone_warnings"] = again.graphs[0].warnings
        found["alone_timed"] = [launch.timing is not None for launch in again.graphs[0].launches]
    dist.barrier()  # rank 1 comes back here: the job goes on, its collectives still line up
    found["rng_kept"] = bool(torch.equal(rng, torch.get_rng_state()))
    found["after_result_kept"] = bool(torch.equal(compiled(x, w), second))
    dist.destroy_process_group()
    report(out, rank, found)
