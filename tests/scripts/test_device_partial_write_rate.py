"""scripts/device/partial_write_rate.py on a machine without a GPU: its kernels (one per way of
moving a CTA's 64 KB of partials) build for sm_90a without spills, each with the memory
instruction it is named for, on nonzero data."""

from __future__ import annotations

import re

from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import build_without_spills, load_device_script

pytestmark = NEEDS_NVCC


def test_every_mode_builds_without_spills_and_moves_64_kb_a_cta(tmp_path):
    script = load_device_script("partial_write_rate.py")
    source, build = build_without_spills(script, tmp_path)
    assert {k.name for k in build.kernels} == set(script.MODES)
    kernels = dict(re.findall(r'extern "C" __global__ void __launch_bounds__\(\d+, 1\) (\w+)\((.*?)\n}', source, re.S))
    assert "red.global.add.noftz.v4.bf16x2" in kernels["red_bf16x2_v4"] and "red." not in kernels["store"]
    assert "red.global.add.v4.f32" in kernels["red_f32_v4"] and "__ldcg" in kernels["load"]
    assert "cp.async.bulk.global.shared::cta" in kernels["bulk_store"] and "cp.async.bulk.wait_group 0" in kernels["bulk_store"]
    # each ends on the arrival's release but the one that measures what the release costs
    assert all(("fence.acq_rel.gpu" in body) == (name != "store_no_fence") for name, body in kernels.items())
    # 16-byte pieces: 64 KB a CTA over its threads (fp32 sums: twice the bytes)
    assert script.BLOCK_BYTES == 64 * 512 * 2 and script.BLOCK_BYTES // 16 % script.THREADS == 0
    assert "| 0x3f803f80u" in source  # the stored values: random nonzero bf16, never zeros
