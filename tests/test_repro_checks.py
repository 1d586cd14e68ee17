"""The repro harness's check of an output against its expected record: whole up to 1 KB, else 128 values in the
output's own dtype and its sums; a record made before (512 float64 values) is still checked as it was."""

import base64

import torch

from kernelviz.repro import harness


def _old_record(name, tensor):
    """What the harness recorded before the sample kept the output's dtype: 512 values as float64."""
    flat = tensor.reshape(-1)
    at = torch.arange(512) * (flat.numel() - 1) // 511
    total, abs_total = harness._totals(flat)
    return {"name": name, "dtype": str(tensor.dtype).removeprefix("torch."), "numel": flat.numel(),
            "sample": base64.b64encode(bytes(flat[at].double().contiguous().untyped_storage())).decode(),
            "total": total, "abs_total": abs_total}


def test_a_large_output_is_kept_as_a_sample_in_its_dtype_and_a_change_is_caught():
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.bool):
        out = torch.randn(64, 100).to(dtype) if dtype != torch.bool else torch.rand(64, 100) > 0.5
        record = harness.summarize("buf0", out)
        assert record["sample_dtype"] == str(dtype).removeprefix("torch.") and "data" not in record
        assert len(base64.b64decode(record["sample"])) == harness.SAMPLE * out.element_size()
        assert harness.check(out.clone(), record) is None
        changed = out.clone().reshape(-1)
        at = (out.numel() - 1) * 3 // (harness.SAMPLE - 1)  # the fourth sampled position
        changed[at] = ~changed[at] if dtype == torch.bool else changed[at] + 7
        assert harness.check(changed.view_as(out), record) is not None, dtype


def test_a_change_between_the_sampled_positions_moves_the_sums():
    out = torch.randn(10_000)
    record = harness.summarize("buf1", out)
    changed = out.clone()
    changed[1] += 1.0  # not a sampled position (those are 0, 78, 157, ...)
    assert harness.check(changed, record).startswith("buf1: sum")


def test_a_small_output_is_kept_whole():
    out = torch.randn(16, 16)  # 1 KB
    record = harness.summarize("buf2", out)
    assert "sample" not in record and len(base64.b64decode(record["data"])) == 1024
    changed = out.clone()
    changed[3, 5] += 1e-2
    assert harness.check(out, record) is None and "1 of 256 values differ" in harness.check(changed, record)


def test_a_record_from_before_is_checked_as_it_was_made():
    out = torch.randn(50, 60)
    record = _old_record("buf3", out)
    assert harness.check(out.clone(), record) is None
    changed = out.clone().reshape(-1)
    changed[(out.numel() - 1) * 2 // 511] += 1.0  # its third sampled position, the sum kept
    changed[1] -= 1.0
    assert "1 of 512 values differ" in harness.check(changed.view_as(out), record)
