"""scripts/device/wgmma_mix.py on a machine without a GPU: its kernels (one per tile height, A's
source and B's major) build for sm_90a without spills, with every product asynchronous (no
serialization and no fence that ptxas injects: a branch around a product, or a read of
accumulators in flight, would time something other than the products), on random data."""

from __future__ import annotations

from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import build_without_spills, load_device_script

pytestmark = NEEDS_NVCC


def test_every_kernel_builds_with_asynchronous_products(tmp_path):
    script = load_device_script("wgmma_mix.py")
    source, build = build_without_spills(script, tmp_path)
    assert {k.name for k in build.kernels} == set(script.KERNELS)
    assert "serialized" not in build.log and "is injected" not in build.log, build.log
    assert "| 0x3f803f80u" in source  # shared memory and A's registers: random nonzero bf16, never zeros


def test_modes_name_built_kernels_and_active_warpgroups():
    script = load_device_script("wgmma_mix.py")
    for mode, (kernel, active) in script.MODES.items():
        assert kernel in script.KERNELS, mode
        assert 0 < active < 8, mode
    # the mixes the diagnostic is for: scores beside both value warpgroups, for every tile height
    assert {script.KERNELS[k][0] for k, a in script.MODES.values() if a == 7} == {32, 64}
