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


def run_job(target, world: int, out: Path) -> list[dict]:
    """Run ``target`` on ``world`` ranks (one process each, NVLink multicast off in all) and return what each
    rank reported."""
    import torch.multiprocessing as mp

    os.environ.update(NO_MULTICAST)  # the children inherit it (and set it again themselves)
    mp.spawn(target, args=(world, free_port(), str(out)), nprocs=world, join=True)
    return [json.loads((out / f"result.rank{r}.json").read_text()) for r in range(world)]


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


# GPU jobs (NCCL, one process a GPU) --------------------------------------------------------------------

def _split(step) -> dict | None:
    return None if step is None else {"unit": step.unit, "window_ms": step.window_ms, "compute_ms": step.compute_ms,
                                      "comm_ms": step.comm_ms, "overlap_ms": step.overlap_ms, "idle_ms": step.idle_ms,
                                      "ops": {c.op: c.calls for c in step.collectives}, "note": step.note}


def _graphs(cap) -> list[dict]:
    return [{"id": g.id, "kind": g.kind, "timed_on": g.timed_on, "warnings": g.warnings,
             "timed": sum(1 for launch in g.launches if launch.timing and launch.timing.in_graph_ms is not None),
             "launches": len(g.launches)} for g in cap.graphs]


class MLP(torch.nn.Module):
    """A model of the user's own (dynamo starts tracing at user frames, not at torch.nn's own modules)."""

    def __init__(self, width: int, layers: int):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x))
        return x


DDP_WIDTH, DDP_LAYERS, DDP_BATCH = 4096, 4, 256  # 64 MB per layer: one DDP bucket each (bucket_cap_mb=64)


def ddp_step(rank: int, out: Path, name: str) -> dict:
    """A DDP training step of a compiled model, captured warm with bench=True; returns what the rank saw."""
    from torch.nn.parallel import DistributedDataParallel

    import kernelviz

    torch.manual_seed(0)
    model = MLP(DDP_WIDTH, DDP_LAYERS).cuda()
    ddp = DistributedDataParallel(model, device_ids=[rank], bucket_cap_mb=64)
    compiled = torch.compile(ddp)  # dynamo's DDPOptimizer splits the graph at the bucket boundaries
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    torch.manual_seed(100 + rank)
    x, y = torch.randn(DDP_BATCH, DDP_WIDTH, device="cuda"), torch.randn(DDP_BATCH, DDP_WIDTH, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(compiled(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(2):  # compile (forward and backward) outside the capture
        step()
    with kernelviz.capture(bench=True) as cap:
        step()
        kept = [p.detach().clone() for p in model.parameters()]
    found = {"graphs": _graphs(cap), "split": _split(cap.step), "warnings": cap.warnings,
             "rank": cap.rank, "world": cap.world_size, "device": cap.device, "backend": cap.backend,
             "host": cap.host, "saved": str(cap.save(out / name))}
    found["params_kept"] = all(torch.equal(a, b) for a, b in zip(kept, model.parameters()))
    sums = torch.stack([p.double().sum() for p in model.parameters()])
    together = sums.clone()
    dist.all_reduce(together)  # DDP keeps the ranks' parameters equal: both sums equal half the total
    found["params_agree"] = bool(torch.allclose(2 * sums, together))
    return found


def ddp_rank(rank: int, world: int, port: int, out: str) -> None:
    start(rank, world, port, "nccl")
    report(Path(out), rank, ddp_step(rank, Path(out), "ddp"))
    dist.destroy_process_group()


class Block(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


def fsdp_rank(rank: int, world: int, port: int, out: str) -> None:
    """FSDP2 on NCCL, one GPU a rank (see :func:`fsdp_job`)."""
    fsdp_job(rank, world, port, out, "nccl")


def fsdp_gloo_rank(rank: int, world: int, port: int, out: str) -> None:
    """FSDP2 on gloo, on the CPU (see :func:`fsdp_job`)."""
    fsdp_job(rank, world, port, out, "gloo")


def fsdp_job(rank: int, world: int, port: int, out: str, backend: str) -> None:
    """FSDP2: each block sharded (fully_shard) and compiled (its hooks, with the all-gathers and
    reduce-scatters, stay eager); a warm step captured with bench=True."""
    from torch.distributed.fsdp import fully_shard

    import kernelviz

    out = Path(out)
    start(rank, world, port, backend)
    device, width = ("cuda", 1024) if backend == "nccl" else ("cpu", 256)
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(width) for _ in range(2)]).to(device)
    for block in model:
        fully_shard(block)
    fully_shard(model)
    for block in model:
        block.compile()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    torch.manual_seed(100 + rank)
    x = torch.randn(64, width, device=device)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    for _ in range(2):
        step()
    with kernelviz.capture(bench=True) as cap:
        step()
        kept = [p.to_local().detach().clone() for p in model.parameters()]
    found = {"graphs": _graphs(cap), "split": _split(cap.step), "warnings": cap.warnings,
             "saved": str(cap.save(out / "fsdp")),
             "params_kept": all(torch.equal(a, p.to_local()) for a, p in zip(kept, model.parameters()))}
    found["after_step_finite"] = bool(torch.isfinite(step()).item())  # the job goes on after the timing
    report(out, rank, found)
    dist.destroy_process_group()


FUNCOL_ELEMENTS = 16 * 2**20  # 64 MB of float32 all-reduced


def funcol_rank(rank: int, world: int, port: int, out: str) -> None:
    """Functional collectives inside a compiled graph on NCCL: timed in lockstep, then rank 1 stays away."""
    import kernelviz

    out = Path(out)
    start(rank, world, port, "nccl")
    torch.manual_seed(rank)
    x, w = torch.randn(FUNCOL_ELEMENTS // 4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    inputs = (x.clone(), w.clone())
    compiled = torch.compile(talk)
    first = compiled(x, w)
    with kernelviz.capture(bench=True) as cap:
        again = compiled(x, w)
    rng = torch.cuda.get_rng_state()
    found = {"graphs": _graphs(cap), "saved": str(cap.save(out / "funcol")),
             "result_kept": bool(torch.equal(compiled(x, w), again)) and bool(torch.equal(first, again)),
             "inputs_kept": all(torch.equal(a, b) for a, b in zip((x, w), inputs))}
    found["collectives"] = [
        {"op": c.op, "bytes": c.bytes, "ms": launch.timing.in_graph_ms if launch.timing else None,
         "kernels": launch.timing.device_kernels if launch.timing else [], "bus": c.bus_gb_per_s,
         "alone_bus": c.alone_bus_gb_per_s, "wait_ms": c.wait_ms}
        for g in cap.graphs for launch in g.launches if (c := launch.collective)]
    with kernelviz.capture() as alone:
        compiled(x, w)
    if rank == 0:
        began = time.perf_counter()
        alone.bench(progress=False, limit_s=5.0)
        found["alone_s"] = time.perf_counter() - began
        found["alone_warnings"] = [w for g in alone.graphs for w in g.warnings]
    dist.barrier()
    found["rng_kept"] = bool(torch.equal(rng, torch.cuda.get_rng_state()))
    found["after_result_kept"] = bool(torch.equal(compiled(x, w), again))
    report(out, rank, found)
    dist.destroy_process_group()
