"""Output code inside logs: a ``TORCH_LOGS=output_code`` log, where torch's formatter puts a prefix
before every line, and a ``TORCH_TRACE`` (tlparse) log, where the code is the tab-indented payload of
an ``inductor_output_code`` entry."""

from __future__ import annotations

import re

_LOGGED = re.compile(r"^[A-Z]\d{4} [\d:.]+\s+\d+ \S+\] (?:\[[^\]]*\] )*?\[__output_code\] ?(.*)$")
_TRACE_ENTRY = re.compile(r'^[A-Z]\d{4} [\d:.]+\s+\d+ \S+\] \{"(\w+)"')
_START, _END = "Output code: ", "Output code written to:"


def unwrap(text: str) -> str | None:
    """The output-code modules a log holds, one after another, or None when ``text`` is not such a log."""
    if "[__output_code]" in text:
        return _from_output_code_log(text)
    if '] {"inductor_output_code"' in text:
        return _from_trace(text)
    return None


def _from_output_code_log(text: str) -> str | None:
    modules: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        m = _LOGGED.match(line)
        if m is None:
            continue
        body = m.group(1)
        if body.startswith(_START.strip()) and not body.startswith(_END):
            modules.append([])
            inside = True
        elif body.startswith(_END):
            inside = False
        elif inside:
            modules[-1].append(body)
    return "\n".join("\n".join(lines) + "\n" for lines in modules) or None


def _from_trace(text: str) -> str | None:
    modules: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("\t"):
            if inside:
                modules[-1].append(line[1:])
            continue
        m = _TRACE_ENTRY.match(line)
        inside = m is not None and m.group(1) == "inductor_output_code"
        if inside:
            modules.append([])
    return "\n".join("\n".join(lines) + "\n" for lines in modules) or None
