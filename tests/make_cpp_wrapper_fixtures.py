"""Write the fixtures: a transformer block's output code with and without cpp_wrapper, inference and a
training step. `python make_cpp_wrapper_fixtures.py 1 infer|train FOLDER` (1: cpp_wrapper, 0: the Python wrapper)."""
import sys

import torch
import torch._inductor.config as cfg
cfg.cpp_wrapper = sys.argv[1] == "1"
tag = "cpp" if cfg.cpp_wrapper else "py"
from torch._inductor import graph as g
orig = g.GraphLowering.save_output_code
n = [0]
def hook(code):
    n[0] += 1
    open(f"{sys.argv[3]}/{tag}_{sys.argv[2]}_{n[0]}.py", "w").write(code)
g.GraphLowering.save_output_code = staticmethod(hook)
torch.manual_seed(0)
class Block(torch.nn.Module):
    def __init__(s, d=32, h=4):
        super().__init__(); s.h = h
        s.ln = torch.nn.LayerNorm(d); s.qkv = torch.nn.Linear(d, 3*d); s.o = torch.nn.Linear(d, d)
        s.fc1 = torch.nn.Linear(d, 4*d); s.fc2 = torch.nn.Linear(4*d, d)
    def forward(s, x):
        B, T, D = x.shape
        q, k, v = s.qkv(s.ln(x)).split(D, -1)
        q, k, v = (t.view(B, T, s.h, D // s.h).transpose(1, 2) for t in (q, k, v))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + s.o(a.transpose(1, 2).reshape(B, T, D))
        return x + s.fc2(torch.nn.functional.gelu(s.fc1(x)))
m = Block(); x = torch.randn(2, 8, 32)
if sys.argv[2] == "infer":
    with torch.no_grad():
        print(torch.compile(m)(x).sum())
else:
    y = torch.compile(m)(x.requires_grad_()); y.sum().backward(); print(x.grad.sum())
