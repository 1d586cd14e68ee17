"""A verdict as CI shows it: Markdown for a GitHub Actions job summary, and JUnit XML (a test case per check)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from .verdict import CHECKS, Verdict

MAX_ROWS = 50  # a job summary holds at most 1 MiB; a verdict of more reasons lists the first ones


def markdown(verdict: Verdict) -> str:
    """A heading with the verdict, the notes, and a table of the reasons (check, graph, launch, change, line)."""
    a, b = verdict.diff.labels
    head = "❌ failed" if verdict.failed else "✅ passed"
    out = [f"### kernelviz check: {head}", "",
           f"`{_cell(b)}` against the baseline `{_cell(a)}`, threshold {100 * verdict.slower:g}% "
           "(and beyond the noise between processes)", ""]
    out += [f"> {_cell(n)}" for n in verdict.notes] + ([""] if verdict.notes else [])
    if verdict.reasons:
        out += ["| check | graph | launch | change | your code |", "|---|---|---|---|---|"]
        out += [f"| {r.check} | {_cell(r.graph)} | {_cell(r.launch)} | {_cell(r.change)} | {_cell(r.where)} |"
                for r in verdict.reasons[:MAX_ROWS]]
        more = len(verdict.reasons) - MAX_ROWS
        out += ["", f"and {more} more reason(s)"] if more > 0 else []
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell: no pipe, no line break, backticks kept as code."""
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def junit(verdict: Verdict) -> str:
    """A test suite ``kernelviz check`` with a test case per check, failed with its reasons' lines."""
    suite = ET.Element("testsuite", name="kernelviz check", tests=str(len(CHECKS)),
                       failures=str(len({r.check for r in verdict.reasons})), errors="0", skipped="0")
    if verdict.notes:
        ET.SubElement(suite, "system-out").text = "\n".join(verdict.notes)
    for check in CHECKS:
        case = ET.SubElement(suite, "testcase", classname="kernelviz.check", name=check)
        lines = [r.line() for r in verdict.reasons if r.check == check]
        if lines:
            ET.SubElement(case, "failure", message=lines[0], type="regression").text = "\n".join(lines)
    suites = ET.Element("testsuites")
    suites.append(suite)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
