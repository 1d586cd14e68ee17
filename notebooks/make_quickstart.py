"""Write notebooks/quickstart.ipynb (cells only; CI executes it with nbclient)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    new_markdown_cell("# kernelviz quickstart (CPU)\n\nCapture what `torch.compile` generates for a cell: graphs, "
                      "kernels, their C++ source and where each kernel came from. Select a row of the panel to see "
                      "a kernel's source, its source-node → ATen mapping and graph fragment."),
    new_code_cell("import torch\n%load_ext kernelviz\ntorch.manual_seed(0)\n"
                  "model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),\n"
                  "                            torch.nn.Linear(128, 10))\n"
                  "x, target = torch.randn(32, 64), torch.randint(0, 10, (32,))"),
    new_markdown_cell("## A forward pass"),
    new_code_cell("%%kernelviz -o fwd\nwith torch.no_grad():\n    y = torch.compile(model)(x)"),
    new_markdown_cell("## A training step: forward and backward graphs, timed on the CPU"),
    new_code_cell("def train_step(x, target):\n    loss = torch.nn.functional.cross_entropy(model(x), target)\n"
                  "    loss.backward()\n    return loss"),
    new_code_cell("%%kernelviz --bench -o step\nloss = torch.compile(train_step)(x, target)"),
    new_markdown_cell("## A graph break gives one graph per part"),
    new_code_cell("def with_break(x):\n    y = torch.sin(x) * 2\n    torch._dynamo.graph_break()\n"
                  "    return torch.cos(y).sum()\n\nwith kernelviz_capture() as parts:\n    torch.compile(with_break)(x)\n"
                  "parts".replace("kernelviz_capture", "kernelviz.capture")),
    new_markdown_cell("## Share it: a self-contained HTML report"),
    new_code_cell("step.save_html('kernelviz_report.html')\n"
                  "print([k.name for k in step.kernels])"),
]
CELLS[8].source = "import kernelviz\n\n" + CELLS[8].source

nb = new_notebook(cells=CELLS, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                         "language": "python"}})
nbformat.write(nb, Path(__file__).with_name("quickstart.ipynb"))
