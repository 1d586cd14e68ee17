"""Make the CPU fixtures of the diff tests: output code of small models compiled twice with one change
between them (torch 2.13 on the CPU; run from the repository root, a few minutes):

    PYTHONPATH=$PWD python tests/make_diff_fixtures.py tests/fixtures/diff-cpu-torch2.13

Each variant's capture is written as ``<variant>.json``, with the per-kernel metadata a live capture
records (source nodes and ATen ops of C++ kernels); its graph's ``code`` is the output code alone, as
``kernelviz diff before.py after.py`` reads it (C++ kernels there carry no source nodes). The pairs the tests compare:

- ``gpt_2`` / ``gpt_3``: a GPT-2-style stack (layer norm, causal attention, GELU MLP) of 2 and 3 blocks;
- ``gpt_2`` / ``gpt_2_wide``: the MLP's hidden width 128 -> 256;
- ``mlp_gelu`` / ``mlp_relu``: GELU swapped for ReLU;
- ``mlp_dropout`` / ``mlp_gelu``: dropout (train mode) on and off;
- ``mlp_gelu`` / ``mlp_bf16``: fp32 against bf16 autocast;
- ``mlp_frozen`` / ``mlp_autotune``: frozen weights (mkl linear, then the GELU and the layer norm as
  kernels) against max-autotune, where Inductor fused each linear into a C++ GEMM template with its epilogue.
"""

import sys
from pathlib import Path

import torch

import kernelviz


class Block(torch.nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.up, self.down = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        x = x + self.proj(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


def gpt(depth: int, hidden: int = 128):
    return torch.nn.Sequential(*[Block(32, hidden) for _ in range(depth)], torch.nn.LayerNorm(32))


def mlp(act, dropout: float = 0.0):
    return torch.nn.Sequential(torch.nn.Linear(32, 64), act, torch.nn.Dropout(dropout), torch.nn.Linear(64, 32),
                               torch.nn.LayerNorm(32))


VARIANTS = {  # name -> (model, input shape, train mode, autocast, inductor config)
    "gpt_2": (lambda: gpt(2), (4, 16, 32), False, False, {}),
    "gpt_3": (lambda: gpt(3), (4, 16, 32), False, False, {}),
    "gpt_2_wide": (lambda: gpt(2, hidden=256), (4, 16, 32), False, False, {}),
    "mlp_gelu": (lambda: mlp(torch.nn.GELU()), (64, 32), False, False, {}),
    "mlp_relu": (lambda: mlp(torch.nn.ReLU()), (64, 32), False, False, {}),
    "mlp_dropout": (lambda: mlp(torch.nn.GELU(), 0.1), (64, 32), True, False, {}),
    "mlp_bf16": (lambda: mlp(torch.nn.GELU()), (64, 32), False, True, {}),
    "mlp_frozen": (lambda: mlp(torch.nn.GELU()), (64, 32), False, False, {"freezing": True}),
    "mlp_autotune": (lambda: mlp(torch.nn.GELU()), (64, 32), False, False,
                     {"freezing": True, "max_autotune": True, "max_autotune_gemm_backends": "CPP,ATEN"}),
}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (make, shape, train, autocast, config) in VARIANTS.items():
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = make().train(train)
        with torch.no_grad(), torch._inductor.config.patch(config), \
                torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast), \
                kernelviz.capture(fresh_compile=True) as cap:
            torch.compile(model)(torch.randn(*shape))
        assert len(cap.graphs) == 1, cap.graphs
        graph = cap.graphs[0]
        (out / f"{name}.json").write_text(cap.to_json())
        print(f"{name}: {len(graph.kernels)} kernels, {len(graph.launches)} launches", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
