"""Write the cpp_wrapper fixture pairs: the transformer block of tests/test_cpp_wrapper_capture.py compiled with and
without cpp_wrapper, inference and a training step, each module's code as Inductor saved it.

    python tests/make_cpp_wrapper_fixtures.py tests/cpp_wrapper_fixtures/cpu-torch2.13
"""

import sys
from pathlib import Path

import torch
from test_cpp_wrapper_capture import Block, _step
from torch._inductor.graph import GraphLowering


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for cpp, suffix in ((True, "cpp"), (False, "python")):
        for name, names in (("block", ["block"]), ("train", ["train_forward", "train_backward"])):
            written = iter(names)
            original = GraphLowering.save_output_code
            GraphLowering.save_output_code = staticmethod(
                lambda code, written=written, suffix=suffix: (folder / f"{next(written)}_{suffix}.py").write_text(code))
            try:
                torch._dynamo.reset()
                torch.manual_seed(0)
                model, x = Block(), torch.randn(2, 8, 32)
                with torch._inductor.config.patch(cpp_wrapper=cpp, fx_graph_cache=False):
                    if name == "block":
                        with torch.no_grad():
                            torch.compile(model)(x)
                    else:
                        _step(torch.compile(model), x)
            finally:
                GraphLowering.save_output_code = original


if __name__ == "__main__":
    main(Path(sys.argv[1]))
