"""The findings at a glance: grouped by rule per graph, the few that matter shown and the rest behind "N more" with
their time in all, the same groups in the text summary, the HTML report and the payload's view annex."""

import kernelviz
from conftest import FIXTURES
from kernelviz.model import Advice, Capture, DynamoEvent, Graph
from kernelviz.views.groups import group_findings
from kernelviz.views.payload import payload
from kernelviz.views.text import summary


def _capture() -> Capture:
    """A forward graph with four memory-bound findings and a launch-bound one, and a graph break hit 3 times."""
    graph = Graph(id="0_forward", kind="forward", device="cuda", code="")
    found = [Advice("launch-bound", "0_forward", [], 0.97, "idle between launches", "try CUDA graphs", "measured")]
    found += [Advice("memory-bound", "0_forward", [], ms, f"kernel {i} at 40% of DRAM", "fuse it", "at the roof")
              for i, ms in enumerate((0.13, 0.12, 0.10, 0.035, 0.012))]
    found.append(Advice("graph-break", None, [], None, "train.py:12 (print(loss)) (3x): Unsupported: print",
                        "remove the print", "not timed"))
    return Capture(graphs=[graph], findings=found,
                   dynamo=[DynamoEvent("graph_break", "Unsupported: print\nExplanation: dynamo does not trace print",
                                       "train.py", 12, "step", "print(loss)")] * 3)


def test_groups_by_rule_and_graph_with_the_rest_behind_n_more():
    cap = _capture()
    launch, memory, breaks = group_findings(cap.findings)
    assert (launch.title, launch.shown, launch.more) == ("graph 0_forward · launch-bound: 1 finding", [0], [])
    assert memory.title == "graph 0_forward · memory-bound: 5 findings, 0.397 ms in all"
    assert (memory.shown, memory.more, memory.more_text) == ([1, 2], [3, 4, 5], "3 more, 0.147 ms in all")
    assert (breaks.graph, breaks.rule, breaks.shown, breaks.more_text) == (None, "graph-break", [6], "")


def test_the_text_summary_shows_the_groups():
    text = summary(_capture(), width=200)
    assert ("  findings by rule and graph (most time at stake first):\n"
            "    graph 0_forward · launch-bound: 1 finding\n") in text
    assert "kernel 1 at 40% of DRAM" in text and "kernel 2 at 40% of DRAM" not in text
    assert "             3 more, 0.147 ms in all (cap.findings has them)\n    dynamo · graph-break: 1 finding\n" in text
    assert text.count("Unsupported: print") == 1  # the finding's line; dynamo's whole text stays on the events


def test_the_report_shows_the_groups_with_the_rest_a_click_away():
    page = _capture().to_html()
    assert page.count('<li class="kv-finding-group">') == 3 + 2  # the header's three, the graph's own two
    more = page.split("<details><summary>3 more, 0.147 ms in all</summary>")[1].split("</details>")[0]
    assert "kernel 2 at 40% of DRAM" in more and "kernel 1 at 40% of DRAM" not in more
    (line,) = [part for part in page.split("<li><details><summary>")[1:]]
    assert line.startswith("graph break 3x at train.py:12 `print(loss)`: Unsupported: print</summary><pre>")
    assert "Explanation: dynamo does not trace print</pre>" in line


def test_the_payload_holds_the_groups_and_dynamos_lines():
    view = payload(_capture())["view"]
    assert [group["title"] for group in view["groups"]] == [g.title for g in group_findings(_capture().findings)]
    assert view["groups"][1]["more"] == [3, 4, 5] and view["groups"][1]["more_text"] == "3 more, 0.147 ms in all"
    assert view["dynamo"] == [["graph break 3x at train.py:12 `print(loss)`: Unsupported: print",
                               "Unsupported: print\nExplanation: dynamo does not trace print"]]
    assert kernelviz.Capture.from_json(_capture().to_json()).findings == _capture().findings


def test_the_text_summary_wraps_between_words_never_inside_a_kernel_name():
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "train_step_1.py")  # the backward: long fused names
    first, last = (k.name for k in (cap.kernels[0], cap.kernels[-1]))
    assert len(first) > 60
    cap.findings.append(Advice("refused-fusion", cap.graphs[0].id, [0, len(cap.graphs[0].launches) - 1], 0.2,
                               f"16.4 KB go through memory from {first} (launch 0) to {last}", "fuse them",
                               "estimated"))
    lines = summary(cap, width=60).splitlines()
    assert any(line.strip() == first for line in lines)  # longer than the line: alone on its own, whole
    assert any(last in line for line in lines)
    assert all(len(line) <= 60 for line in lines if first not in line)
