"""The hardware sheets of context/hardware/: each card the device tool lends finds exactly its own
sheet by nvidia-smi's name, and a sheet's ceilings can only make roofline floors lenient (a
measured ceiling never above the datasheet's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.hardware import CONTEXT_DIR, find_hardware, front_matter, roofline_floor_s

SHEETS = sorted(CONTEXT_DIR.glob("*.md"))
FIELDS = {"name": str, "match": list, "arch": str, "sms": int, "l2_bytes": int, "smem_per_block_bytes": int,
          "registers_per_sm": int, "peak_bf16_tflops": float, "peak_bf16_tflops_datasheet": float,
          "hbm_tbps": float, "hbm_tbps_datasheet": float}


@pytest.mark.parametrize("sheet", SHEETS, ids=[p.name for p in SHEETS])
def test_every_sheet_has_the_fields_the_harness_and_the_brief_read(sheet: Path):
    meta = front_matter(sheet)
    for name, kind in FIELDS.items():
        assert isinstance(meta.get(name), kind), (sheet.name, name, meta.get(name))
    assert meta["match"] and all(isinstance(m, str) and m for m in meta["match"])
    # a floor from a ceiling above the datasheet's would reject kernels that physics allows
    assert 0 < meta["peak_bf16_tflops"] <= meta["peak_bf16_tflops_datasheet"]
    assert 0 < meta["hbm_tbps"] <= meta["hbm_tbps_datasheet"]
    assert len(sheet.read_text().split("+++", 2)[2].strip()) > 200  # prose for the LLM, not only numbers


@pytest.mark.parametrize("device_name, sheet", [
    ("NVIDIA H200", "h200.md"),
    ("NVIDIA H100 80GB HBM3", "h100.md"),
    ("NVIDIA H100 PCIe", None),   # 114 SMs and 2 TB/s: the SXM sheet's floors would be wrong for it
    ("NVIDIA H100 NVL", None),
    ("NVIDIA A100-SXM4-80GB", None),
])
def test_each_lent_card_finds_its_own_sheet_and_other_cards_none(device_name, sheet):
    found = find_hardware(device_name)
    assert (found["file"] if found else None) == sheet
    matching = [p.name for p in SHEETS if any(m in device_name for m in front_matter(p)["match"])]
    assert len(matching) <= 1, matching  # never two sheets for one card


def test_the_h100s_floor_for_a_memory_bound_decode_is_the_h200s_times_their_bandwidths():
    h100, h200 = find_hardware("NVIDIA H100 80GB HBM3"), find_hardware("NVIDIA H200")
    # B=64 with 16 heads: memory-bound on both (with 128 heads the H200's floor is its matrix units')
    nbytes, flops = 64 * 2048 * 1152, 64 * 2 * 16 * 2048 * 1088
    ratio = roofline_floor_s(flops, nbytes, h100) / roofline_floor_s(flops, nbytes, h200)
    assert ratio == pytest.approx(h200["hbm_tbps"] / h100["hbm_tbps"])
