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


def recompiles(x, n):
    return (x * n).sin().sum()


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


def tiny_chain(x, w):
    """Many tiny launches in a row: a 16x16 matmul (an extern call) and a pointwise kernel, 32 times."""
    for _ in range(32):
        x = torch.tanh(x @ w)
    return x


def gpt2_training_step(batch: int = 4):
    """A 2-layer GPT-2 training step on CUDA (transformers' GPT2LMHeadModel: dropout everywhere, SDPA), compiled;
    no weights downloaded. Returns a function that runs forward and backward."""
    import transformers

    config = transformers.GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=1000, n_positions=128,
                                     resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).cuda().train()
    ids = torch.randint(0, 1000, (batch, 128), device="cuda")
    compiled = torch.compile(model)
    return lambda: compiled(ids, labels=ids).loss.backward()


def resnet50_training_step():
    """A resnet50 training step on CUDA: channels-last, bf16 autocast, batch 64, compiled."""
    import torchvision

    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    compiled = torch.compile(model)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(compiled(x), y)
        loss.backward()

    return step
