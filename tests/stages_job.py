"""A GPU job of its own process (as a notebook's kernel is: no TRITON_CACHE_DIR, Inductor's compile workers
on) that captures a model twice, plain and with ``bench=True``, and prints what each capture kept of every
Triton kernel's compiled stages as one JSON line. Run by tests/test_stages_gpu.py:

    python tests/stages_job.py llama|gpt2 bench,plain|plain,bench [dump folder]

The first capture compiles (the Inductor cache given by TORCHINDUCTOR_CACHE_DIR is new), the second is a
cache hit (dynamo reset between them)."""

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

import kernelviz
from kernelviz.ir.stages import StageError, cache_root

DEVICE = os.environ.get("KERNELVIZ_JOB_DEVICE", "cuda")  # "cpu" to try the job out where there is no GPU
_MARK = re.compile(r'^\s*//## File "([^"]*)", line (\d+)(.*)$')
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/")


class Block(nn.Module):
    """A pre-norm transformer block: RMSNorm (llama) or LayerNorm with dropout (gpt2), SDPA, an MLP."""

    def __init__(self, dim: int, heads: int, llama: bool):
        super().__init__()
        self.llama, self.heads = llama, heads
        norm = nn.RMSNorm if llama else nn.LayerNorm
        self.n1, self.n2 = norm(dim), norm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim, bias=not llama), nn.Linear(dim, dim, bias=not llama)
        self.up, self.gate = nn.Linear(dim, 4 * dim, bias=not llama), nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(4 * dim, dim, bias=not llama)
        self.drop = nn.Dropout(0.0 if llama else 0.1)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        if self.llama:  # rotary embedding
            angle = torch.arange(t, device=x.device)[:, None] / 10000 ** (
                torch.arange(0, d // self.heads, 2, device=x.device) / (d // self.heads))
            cos, sin = angle.cos().repeat(1, 2), angle.sin().repeat(1, 2)
            rot = lambda u: u * cos + torch.cat([-u[..., u.shape[-1] // 2:], u[..., :u.shape[-1] // 2]], -1) * sin  # noqa: E731
            q, k = rot(q), rot(k)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.0 if self.llama else 0.1)
        x = x + self.drop(self.proj(a.transpose(1, 2).reshape(b, t, d)))
        h = self.n2(x)
        h = F.silu(self.gate(h)) * self.up(h) if self.llama else F.gelu(self.up(h), approximate="tanh")
        return x + self.drop(self.down(h))


class Model(nn.Module):
    def __init__(self, llama: bool, vocab: int = 512, dim: int = 128, layers: int = 2):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, dim), nn.Embedding(256, dim)
        self.blocks = nn.ModuleList(Block(dim, 4, llama) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def triton_dir() -> str:
    """Triton's cache folder in this process now: where kernelviz looked before it looked where Inductor puts
    binaries (this job says whether the binaries are there)."""
    try:
        return cache_root()
    except StageError:
        return ""


def sass_coverage(kernel) -> dict:
    """Instruction lines of the kernel's SASS linked to its source, and the files of the unlinked ones."""
    sass = next((s for s in kernel.ir.stages if s.name == "sass"), None)
    if sass is None:
        return {}
    last, unlinked, total, linked, to_source = "(no marker)", Counter(), 0, 0, 0
    helpers = sass.helper_lines or [[] for _ in sass.source_lines]
    for text, found, helper in zip(sass.text.splitlines(), sass.source_lines, helpers):
        if m := _MARK.match(text):
            last = os.path.basename(m.group(1)) + ("" if not m.group(3).strip() else " inlined")
        elif _INSTRUCTION.match(text):
            total += 1
            to_source += bool(found)
            linked += bool(found or helper)
            if not (found or helper):
                unlinked[last] += 1
    return {"instructions": total, "linked": linked, "to_kernel_source": to_source, "tool": sass.tool,
            "unlinked_by_marker": dict(unlinked.most_common(6))}


def one(model, idx, bench: bool, train: bool) -> dict:
    torch._dynamo.reset()
    compiled = torch.compile(model)
    with kernelviz.capture(bench=bench) as cap:
        with torch.autocast(DEVICE, torch.bfloat16):
            out = compiled(idx)
        if train:
            out.float().logsumexp(-1).mean().backward()
    seen_env = os.environ.get("TRITON_CACHE_DIR")
    cap.wait_stages()
    kernels = {}
    for graph in cap.graphs:
        for k in graph.kernels:
            if k.kind.startswith("triton") and k.ir is not None:
                kernels[f"{graph.id}/{k.name}"] = {
                    "stages": [s.name for s in k.ir.stages], "tools": sorted({s.tool for s in k.ir.stages}),
                    "in_triton_dir_now": bool(k.ir.cache_hash) and os.path.isfile(
                        os.path.join(triton_dir(), k.ir.cache_hash, f"{k.name}.json")),
                    "notes": k.ir.notes, "regs": k.ir.num_regs, "sass": sass_coverage(k)}
    return {"bench": bench, "env_at_exit": seen_env, "triton_dir_now": triton_dir(),
            "graphs": [g.id for g in cap.graphs],
            "timed": sum(1 for g in cap.graphs for launch in g.launches if launch.timing and launch.timing.in_graph_ms),
            "kernels": kernels, "capture": cap}


def main() -> None:
    which, order = sys.argv[1], sys.argv[2].split(",")
    dump = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    torch.manual_seed(0)
    model = Model(llama=which == "llama").to(DEVICE)
    idx = torch.randint(0, 512, (4, 128), device=DEVICE)
    train = which == "gpt2"
    if not train:
        model.eval()
    results = []
    for mode in order:
        with torch.set_grad_enabled(train):
            result = one(model, idx, mode == "bench", train)
        cap = result.pop("capture")
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            cap.save(str(dump / f"{which}_{mode}.json"))
        results.append(result)
    print("RESULT " + json.dumps(results))


if __name__ == "__main__":
    main()
