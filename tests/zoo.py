"""Small workloads for live captures (CPU in CI; the same on CUDA in GPU tests)."""

import torch


def layer_norm_relu(x, w, b):
    y = torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b)
    return torch.relu(y)


def pointwise(x):
    return torch.sigmoid(x) * 2 + torch.relu(x)


def reduction(x):
    return (x * x).sum(dim=-1)


def make_mlp(device="cpu"):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32),
                               torch.nn.LayerNorm(32)).to(device)


def training_step(model, x, target):
    loss = torch.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    return loss


def with_graph_break(x):
    y = torch.sin(x) * 2
    torch._dynamo.graph_break()
    return torch.cos(y).sum()


def graph_break_in_loop(x):
    for _ in range(3):
        x = torch.sin(x)
        torch._dynamo.graph_break()
    return x


def refused_fusion(x, w):
    """Inductor refuses to fuse the softmax with the product after it: the cumsum (an extern call on the CPU)
    between them needs the softmax's output ("intermediate nodes between node1 & node2")."""
    y = torch.softmax(x @ w, -1)
    return (y.cumsum(0) * y).sum(1)
