"""The what-ifs in every view (``views/whatif.py``): rows best first with their noise, a change that alters the
outputs flagged and ranked below every one that keeps them, a change that could not run saying why; the findings
that suggest a measured change show the measured figure in place of their estimate (text, report, payload); the
report escapes what the rows hold."""

import json

from whatif_capture import FP32, whatif_capture

from conftest import parse_html
from kernelviz.model import Advice, Capture, WhatIf
from kernelviz.views.html import report
from kernelviz.views.payload import decode, live, payload, saved
from kernelviz.views.text import summary
from kernelviz.views.whatif import FLAG, headline, measured_findings, rows, suggested


def test_rows_best_first_with_their_noise():
    cap = whatif_capture()
    shown = rows(cap)
    assert [(row.kind, row.status) for row in shown] == [
        ("cudagraphs", "saves"), ("cpp_wrapper", "saves"), ("launch_config", "no-gain"),
        ("coordinate_descent", "slower"), ("tf32", "differs"), ("launch_config", "differs"),
        ("max_autotune", "not-run")]
    best = shown[0]
    assert best.saving == "saves 0.95 ± 0.035 ms"
    assert best.graphs == "graph 3_backward: 2.27 ± 0.02 ms → 1.32 ± 0.015 ms (-41.9%)"
    assert best.step == "step: 6 ms → 5.05 ± 0.035 ms (-15.8%)"
    assert best.compile == "compiled in 4.1 s"
    assert best.numerics == f"outputs as captured, within {FP32}: max abs diff 0, max rel diff 0"
    assert best.patch == 'model = torch.compile(model, mode="reduce-overhead")' and best.flag == ""
    assert shown[2].saving == "within the noise (saves 10 ± 40 µs)"
    assert shown[3].saving == "slower by 0.13 ± 0.05 ms" and shown[3].graphs.endswith("(+5.7%)")


def test_a_change_that_alters_the_outputs_is_never_a_win():
    cap = whatif_capture()
    tf32 = next(w for w in cap.whatifs if w.kind == "tf32")
    cpp = next(w for w in cap.whatifs if w.kind == "cpp_wrapper")
    assert tf32.before_ms - tf32.after_ms > cpp.before_ms - cpp.after_ms  # it saved more than a win below it
    shown = rows(cap)
    flagged = [i for i, row in enumerate(shown) if row.flag]
    assert flagged == [4, 5] and all(shown[i].flag == FLAG for i in flagged)
    assert all(row.status != "differs" for row in shown[:4])
    assert shown[4].saving == "ran 0.37 ± 0.04 ms faster, but the outputs differ"
    assert not shown[4].saving.startswith("saves")
    assert shown[4].numerics == f"outputs differ beyond {FP32}: max abs diff 0.0123, max rel diff 0.0041"


def test_a_change_that_could_not_run_says_why_in_one_line():
    row = rows(whatif_capture())[-1]
    assert row.saving == "not run: no GEMM in these graphs to tune: their extern calls are not mm, bmm or addmm"
    assert (row.graphs, row.step, row.compile, row.numerics, row.flag) == ("", "", "", "", "")
    untimed = WhatIf("freezing", "freeze the parameters", "torch._inductor.config.freezing = True", [0])
    assert rows(Capture(graphs=whatif_capture().graphs, whatifs=[untimed]))[0].saving == (
        "not run: no time was measured")


def test_findings_are_linked_to_what_measured_their_suggestion():
    cap = whatif_capture()
    launch_bound, sum_5, sum_1 = cap.findings[0], cap.findings[1], cap.findings[2]
    assert (launch_bound.rule, sum_5.launches, sum_1.launches) == ("launch-bound", [7], [1])
    assert suggested(launch_bound) == ["cudagraphs", "cpp_wrapper"]  # its rule, and cpp_wrapper its suggestion names
    measured = measured_findings(cap, cap.findings)
    assert sorted(measured) == [0, 1, 2]  # the latency-bound finding suggests nothing measured
    assert measured[0].text == "measured: saves 0.95 ± 0.035 ms"  # the better of the two it suggests
    assert measured[0].how.startswith("measured by cap.whatif(): run the graphs as CUDA graphs (reduce-overhead); "
                                      "graph 3_backward: 2.27 ± 0.02 ms → 1.32 ± 0.015 ms (-41.9%)")
    assert "0.97 ms estimated (measured: plain call() 2.27 ms" in measured[0].how
    assert measured[1].text == "measured: within the noise (saves 10 ± 40 µs)"  # its kernel's config
    assert measured[2].text == "measured: changes the outputs" and measured[2].status == "differs"
    assert "outputs differ beyond" in measured[2].how


def test_a_suggestion_is_matched_by_the_option_it_names_on_its_graph():
    cap = whatif_capture()
    extern = Advice("memory-bound", "3_backward", [3], 0.05, "mm well below the bandwidth",
                    "another layout (channels_last for convolutions), a lower precision, or max_autotune")
    assert suggested(extern) == ["launch_config", "max_autotune", "channels_last"]
    tf32 = Advice("memory-bound", "3_backward", [3], 0.05, "mm", "allow TF32: torch.backends.cuda.matmul.allow_tf32")
    assert measured_findings(cap, [extern, tf32]) == {1: measured_findings(cap, [tf32])[0]}  # max_autotune: not run
    assert measured_findings(cap, [tf32])[0].text == "measured: changes the outputs"
    elsewhere = Advice("launch-bound", "9_forward", [], 1.0, "idle", "reduce-overhead")
    assert measured_findings(cap, [elsewhere]) == {}  # no what-if was compiled for that graph
    for whatif in cap.whatifs:
        whatif.graphs = [1]  # another graph's
    assert measured_findings(cap, cap.findings) == {}


def test_the_text_summary_shows_the_rows_and_the_measured_figures():
    text = summary(whatif_capture(), width=120)
    assert "measured: saves 0.95 ± 0.035 ms  launch-bound  graph 3_backward: the GPU is idle" in text
    assert "measured: changes the outputs  memory-bound  graph 3_backward launch 1" in text
    assert "     3.0 µs  latency-bound" in text  # not measured: its estimate
    assert "0.970 ms  launch-bound" not in text
    lines = text.splitlines()
    at = lines.index("  what if (cap.whatif(): each change measured on the captured graphs, best first):")
    assert lines[at + 1:at + 3] == ["    saves 0.95 ± 0.035 ms — run the graphs as CUDA graphs (reduce-overhead)",
                                    '        model = torch.compile(model, mode="reduce-overhead")']
    flagged = next(line for line in lines if "TF32" in line)
    assert flagged == ("    ran 0.37 ± 0.04 ms faster, but the outputs differ — TF32 matmuls and convolutions  "
                       f"[{FLAG}]")
    assert "    not run: no GEMM in these graphs to tune" in text
    assert "what if" not in summary(Capture(graphs=whatif_capture().graphs), width=120)


def test_the_report_shows_the_rows_and_escapes_what_they_hold():
    cap = whatif_capture()
    hostile = "<img src=x onerror=alert(1)>"
    cap.whatifs[0].reason = f"compile failed: {hostile}"
    cap.whatifs[3].change = f"run {hostile} as CUDA graphs"
    cap.whatifs[3].patch = 'if a < b && c > d: torch.compile(model, mode="reduce-overhead")'
    html = report(cap)
    tags = parse_html(html)
    assert not any(tag == "img" for tag, _ in tags.tags)
    text = "".join(tags.text)
    assert f"saves 0.95 ± 0.035 ms — run {hostile} as CUDA graphs" in text
    assert 'if a < b && c > d: torch.compile(model, mode="reduce-overhead")' in text
    assert f"not run: compile failed: {hostile}" in text
    patches = [attrs for tag, attrs in tags.tags if tag == "pre" and attrs.get("class") == "kv-whatif-patch"]
    assert len(patches) == 7
    items = [attrs["class"] for tag, attrs in tags.tags if tag == "li" and "kv-whatif" in attrs.get("class", "")]
    assert items == ["kv-whatif kv-whatif-saves"] * 2 + ["kv-whatif kv-whatif-no-gain", "kv-whatif kv-whatif-slower"] \
        + ["kv-whatif kv-whatif-differs"] * 2 + ["kv-whatif kv-whatif-not-run"]
    assert text.count(FLAG) == 2
    assert "measured: saves 0.95 ± 0.035 ms" in text and "measured: changes the outputs" in text
    assert "What if" not in report(Capture(graphs=cap.graphs))


def test_the_payload_carries_the_rows_and_the_measured_figures():
    cap = whatif_capture()
    data = json.loads(json.dumps(payload(cap)))  # as the panel reads it
    view = data["view"]
    assert view["whatifs"]["rows"] == [row.to_json() for row in rows(cap)]
    assert view["whatifs"]["note"] == "cap.whatif(): each change measured on the captured graphs, best first"
    assert view["whatifs"]["headline"] == ("What if: 7 changes measured; the best saves 0.95 ± 0.035 ms: run the "
                                           "graphs as CUDA graphs (reduce-overhead)")
    assert view["measured"]["0"] == {"text": "measured: saves 0.95 ± 0.035 ms", "status": "saves",
                                     "how": measured_findings(cap, cap.findings)[0].how}
    assert sorted(view["measured"]) == ["0", "1", "2"] and "whatif" in view["tabs"]
    kept = live(payload(cap))["view"]
    assert kept["whatifs"] == view["whatifs"] and kept["measured"] == view["measured"]
    read = decode(saved(cap))["view"]  # what a notebook saves, which JupyterLab's renderer shows
    assert read["whatifs"] == view["whatifs"] and read["measured"] == view["measured"]
    for whatif in cap.whatifs[1:]:
        whatif.verdict = "differs"  # only max-autotune, not run, and changes that alter the outputs are left
    assert headline(cap) == ("What if: 7 changes measured; none saves time beyond the noise with the outputs as "
                             "captured")
    plain = payload(Capture(graphs=cap.graphs))["view"]
    assert "whatifs" not in plain and "measured" not in plain and "whatif" not in plain["tabs"]
    assert headline(Capture(graphs=cap.graphs)) == ""
