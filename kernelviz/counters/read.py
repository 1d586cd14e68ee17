"""Read an Nsight Compute report with its own Python reader (``ncu_report``, in ncu's ``extras/python``):
``python -m kernelviz.counters.read REPORT`` prints one JSON object, ``{"tool": ..., "results": [...]}``,
a result per profiled kernel: its NVTX tag (``kv<graph>:<launch>``, the launch it belongs to), name, the
kernel-level figures, NVIDIA's rule findings, and per PC the instructions executed and stall samples with
the source file and line they come from. It runs in its own process: ncu_report loads ncu's native libraries,
which the user's process never gets."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

TAG = re.compile(r"^kv(\d+):(\d+)$")
METRICS = {  # field: Nsight Compute metric
    "duration_ns": "gpu__time_duration.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "l1_hit_rate": "l1tex__t_sector_hit_rate.pct",
    "l2_hit_rate": "lts__t_sector_hit_rate.pct",
    "sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "memory_pct": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_pct": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "achieved_occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy": "sm__maximum_warps_per_active_cycle_pct",
}
# CUDA-core floating-point instructions executed, per thread; an FMA is two operations
FLOP_METRICS = {f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum": 2 if op == "fma" else 1
                for p in "dfh" for op in ("add", "mul", "fma")}
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
PC_STALL = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+)$")
INSTRUCTIONS = ("inst_executed", "sass__inst_executed", "smsp__inst_executed")
SAMPLES = ("smsp__pcsamp_sample_count",)
NOT_STALLS = {"not_issued", "selected"}


def _value(action: Any, name: str) -> float | None:
    metric = action.metric_by_name(name)
    if metric is None:
        return None
    value = metric.value()
    return float(value) if isinstance(value, (int, float)) else None


def _per_pc(action: Any, names: tuple[str, ...]) -> dict[int, float]:
    """An instanced metric's values by PC (its correlation ids), from the first of ``names`` the report has."""
    for name in names:
        metric = action.metric_by_name(name)
        if metric is None or not metric.has_correlation_ids() or not metric.num_instances():
            continue
        ids = metric.correlation_ids()
        return {int(ids.value(i)): float(metric.value(i) or 0) for i in range(metric.num_instances())}
    return {}


def _tag(action: Any) -> str | None:
    """The innermost ``kv<graph>:<launch>`` NVTX push/pop range around the kernel, where there is one."""
    state = action.nvtx_state()
    if state is None:
        return None
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        for name in reversed(list(domain.push_pop_ranges())):
            if TAG.match(name):
                return name
    return None


MESSAGE_TYPES = {2: "optimization", 3: "warning", 4: "error"}  # NvRules' MsgType (0 none, 1 ok)
_SECTION_LINK = re.compile(r"@section:[^:@]*:([^@]*)@")
_URL_LINK = re.compile(r"@url:([^:@]*):([^@]*)@")


def _one_line(text: str) -> str:
    """Rule text as one plain line: ncu's ``@section:Id:Title@`` links as their title, ``@url:Title:URL@``
    as ``Title (URL)``."""
    text = _URL_LINK.sub(r"\1 (\2)", _SECTION_LINK.sub(r"\1", str(text)))
    return " ".join(text.split())[:600]


def _findings(action: Any) -> list[str]:
    out = []
    for rule in action.rule_results_as_dicts():
        message = rule.get("rule_message") or {}
        text = _one_line(message.get("message", "")) if isinstance(message, dict) else ""
        if not text:
            continue
        kind = MESSAGE_TYPES.get(message.get("type"), "")
        speedup = rule.get("speedup_estimation") or {}
        gain = speedup.get("speedup") if isinstance(speedup, dict) else None
        title = _one_line(message.get("title", "") or rule.get("name", ""))
        out.append(f"{title}{f' ({kind})' if kind else ''}: {text}"
                   + (f" [estimated speedup {gain:.0f}%]" if isinstance(gain, (int, float)) and gain > 0 else ""))
    return out


def _stalls(action: Any) -> dict[str, float]:
    found = {}
    for name in action.metric_names():
        m = STALL.match(name)
        if m and m.group(1) not in NOT_STALLS:
            value = _value(action, name)
            if value:
                found[m.group(1)] = value
    return found


def _pcs(action: Any) -> list[list[Any]]:
    """Per PC: [pc, instructions, stall samples, top stall reason, file, line] (file None where unknown)."""
    inst, samples = _per_pc(action, INSTRUCTIONS), _per_pc(action, SAMPLES)
    reasons: dict[int, tuple[float, str]] = {}
    for name in action.metric_names():
        m = PC_STALL.match(name)
        if not m or m.group(1) in NOT_STALLS:
            continue
        for pc, v in _per_pc(action, (name,)).items():
            if v > reasons.get(pc, (0.0, ""))[0]:
                reasons[pc] = (v, m.group(1))
    rows = []
    for pc in sorted(set(inst) | set(samples)):
        info = action.source_info(pc)
        file = info.file_name() if info is not None else None
        line = info.line() if info is not None else None
        rows.append([pc, int(inst.get(pc, 0)), int(samples.get(pc, 0)), reasons.get(pc, (0, None))[1], file, line])
    return rows


def result(action: Any) -> dict[str, Any]:
    """One profiled kernel as plain data."""
    out: dict[str, Any] = {"tag": _tag(action), "name": action.name(), "error": None}
    for field, metric in METRICS.items():
        out[field] = _value(action, metric)
    flops = [(_value(action, m), k) for m, k in FLOP_METRICS.items()]
    out["flops"] = sum(v * k for v, k in flops if v) if any(v is not None for v, _ in flops) else None
    out["stalls"] = _stalls(action)
    out["findings"] = _findings(action)
    out["pcs"] = _pcs(action)
    wanted = {row[4] for row in out["pcs"] if row[4] and row[4].endswith(".py")}
    out["files"] = {f: text for f, text in (action.source_files() if wanted else {}).items() if f in wanted}
    return out


def read(path: str) -> dict[str, Any]:
    import ncu_report

    context = ncu_report.load_report(path)
    results = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            try:
                results.append(result(action))
            except Exception as exc:  # noqa: BLE001 - one kernel unread: the others still count
                results.append({"tag": None, "name": action.name(), "error": f"{type(exc).__name__}: {exc}"})
    return {"results": results}


if __name__ == "__main__":
    sys.stdout.write(json.dumps(read(sys.argv[1])) + "\n")
