"""The plain call() a graph in a CUDA-graph mode is timed by, as it runs where reduce-overhead skipped its CUDA
graph: the module's own partition functions run eagerly, never the runner's partitions as Inductor replaced them
(CUDA-graph trees, whose replays would overwrite the user's outputs). On the Runner of real Inductor output code
(H100, torch 2.11, mode="reduce-overhead")."""

from conftest import FIXTURES
from kernelviz.calls.instrument import _plain

CODE = (FIXTURES / "cuda-h100-torch2.11" / "reduce_overhead_0.py").read_text()


def _module(ran: list[str]) -> dict:
    """The fixture's Runner and module-level names, run over a partition_0 that says it ran."""
    def partition_0(args):
        ran.append("own")
        return (args[0],)

    scope = {"partition_0": partition_0}
    start, end = CODE.index("class Runner:"), CODE.index("def get_args():")
    exec(CODE[start:end], scope)
    return scope


def test_the_plain_call_runs_the_modules_own_partitions_after_inductor_replaced_the_runners():
    ran: list[str] = []
    scope = _module(ran)

    def replaced(original):
        def replay(args):
            ran.append("cudagraph")
            return original(args)
        return replay

    scope["recursively_apply_fns"]([replaced])  # as reduce-overhead wraps each partition in a CUDA-graph tree
    plain = _plain(scope, 1)
    out = plain(list(range(7)))
    assert ran == ["own"] and out == (2,)  # partition0_args puts arg2_1 first
    scope["call"](list(range(7)))
    assert ran == ["own", "cudagraph", "own"]  # the live runner's call() still replays


def test_a_module_without_partitions_is_timed_by_its_own_call_and_one_without_call_by_none():
    def call(args):
        return args

    assert _plain({"call": call}, 0) is call
    assert _plain({}, 0) is None
    assert _plain({"call": call}, 1) is None  # partitions but no runner's call(): no plain call made up
