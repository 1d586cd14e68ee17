"""Build notebooks/gpu_tour.ipynb from cells executed on a GPU machine.

The GPU machine has no Jupyter, so the cells (plain Python, the kernelviz API) run there in one
namespace and their outputs are written as notebook outputs; a machine with nbformat assembles them:

    python notebooks/make_gpu_tour.py run outputs.json          # on the GPU machine
    python notebooks/make_gpu_tour.py assemble outputs.json     # here: writes gpu_tour.ipynb
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import sys
from pathlib import Path

CELLS = [
    ("markdown", "# kernelviz GPU tour (H100)\n\nTriton kernels, cuBLAS/cuDNN extern calls and their measured "
                 "time, captured with `kernelviz.capture(bench=True)`. This notebook was executed on a GPU "
                 "machine and saved with its outputs: the panel below renders from the saved capture."),
    ("code", "import torch, kernelviz\n"
             "torchvision = kernelviz.needs('torchvision', 'vision', 'gpu_tour.ipynb')\n"
             "print(torch.__version__, torch.cuda.get_device_name())"),
    ("markdown", "## An MLP: matmuls go to cuBLAS, the rest is fused into Triton kernels"),
    ("code", "torch.manual_seed(0)\n"
             "mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024),\n"
             "                          torch.nn.LayerNorm(1024)).cuda().bfloat16()\n"
             "x = torch.randn(4096, 1024, device='cuda', dtype=torch.bfloat16)\n"
             "with torch.no_grad(), kernelviz.capture(bench=True) as mlp_cap:\n"
             "    torch.compile(mlp)(x)\n"
             "mlp_cap"),
    ("markdown", "## A training step: forward and backward graphs, both timed on the tensors they ran with"),
    ("code", "def train_step(x, target):\n"
             "    loss = torch.nn.functional.cross_entropy(mlp(x).float(), target)\n"
             "    loss.backward()\n"
             "    return loss\n\n"
             "target = torch.randint(0, 1024, (4096,), device='cuda')\n"
             "with kernelviz.capture(bench=True) as step:\n"
             "    torch.compile(train_step)(x, target)\n"
             "step"),
    ("markdown", "## resnet18 (channels-last, batch 32, eval): cuDNN convolutions and fused batch norm + relu"),
    ("code", "net = torchvision.models.resnet18().eval().cuda().to(memory_format=torch.channels_last)\n"
             "images = torch.randn(32, 3, 224, 224, device='cuda').to(memory_format=torch.channels_last)\n"
             "with torch.no_grad(), kernelviz.capture(bench=True) as resnet:\n"
             "    torch.compile(net)(images)\n"
             "resnet"),
    ("code", "graph = resnet.graphs[0]\n"
             "total = sum(l.timing.in_graph_ms for l in graph.launches)\n"
             "conv = sum(l.timing.in_graph_ms for l in graph.launches if l.op)\n"
             "print(f'in-graph total {total:.3f} ms, of which extern (cuDNN) {conv:.3f} ms; GPU busy {graph.gpu_busy_ms:.3f} ms')\n"
             "for k in graph.kernels[:5]:\n"
             "    print(k.name, k.timing.isolated_ms, k.timing.config, k.timing.num_regs, 'regs')"),
]


def run(out: Path) -> None:
    from kernelviz import Capture
    from kernelviz.notebook.display import static_bundle

    namespace: dict = {}
    outputs = []
    for kind, source in CELLS:
        if kind != "code":
            outputs.append([])
            continue
        tree = ast.parse(source)
        last = tree.body.pop() if isinstance(tree.body[-1], ast.Expr) else None
        stream = io.StringIO()
        with contextlib.redirect_stdout(stream):
            exec(compile(tree, "<cell>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) if last else None
        cell = [{"output_type": "stream", "name": "stdout", "text": stream.getvalue()}] if stream.getvalue() else []
        if isinstance(value, Capture):
            cell.append({"output_type": "display_data", "data": static_bundle(value), "metadata": {}})
        elif value is not None:
            cell.append({"output_type": "execute_result", "data": {"text/plain": repr(value)}, "metadata": {}})
        outputs.append(cell)
        print(f"cell done: {source.splitlines()[0][:60]}", file=sys.stderr, flush=True)
    out.write_text(json.dumps(outputs))


def assemble(outputs_file: Path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    outputs = json.loads(outputs_file.read_text())
    cells, count = [], 0
    for (kind, source), outs in zip(CELLS, outputs):
        if kind == "markdown":
            cells.append(new_markdown_cell(source))
            continue
        count += 1
        made = []
        for o in outs:
            if o["output_type"] == "execute_result":
                made.append(new_output("execute_result", data=o["data"], execution_count=count))
            else:
                made.append(new_output(**{k: v for k, v in o.items()}))
        cells.append(new_code_cell(source, outputs=made, execution_count=count))
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                             "language": "python"}})
    nbformat.write(nb, Path(__file__).with_name("gpu_tour.ipynb"))


if __name__ == "__main__":
    {"run": run, "assemble": assemble}[sys.argv[1]](Path(sys.argv[2]))
