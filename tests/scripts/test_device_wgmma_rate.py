"""scripts/device/wgmma_rate.py on a machine without a GPU: its kernels (one per product width and
source of A) build for sm_90a with their products in SASS, on random data and without spills."""

from __future__ import annotations

from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import build_without_spills, load_device_script

pytestmark = NEEDS_NVCC


def _script():
    return load_device_script("wgmma_rate.py")


def test_every_width_and_source_builds_without_spills(tmp_path):
    script = _script()
    source, build = build_without_spills(script, tmp_path)
    names = {k.name for k in build.kernels}
    assert names == {name for name, _, _, _ in script.kernels()}
    assert {f"rate_{a}_{n}" for a in script.SOURCES for n in script.WIDTHS} | {"rate_rs_t_256", "rate_ss_t_256"} == names
    assert "wgmma.mma_async instructions are serialized" not in build.log, build.log  # products stay asynchronous
    # each kernel issues four k-steps of its own width, A from registers (braced) or a descriptor;
    # the value products' width also with B MN-major (trans-b 1, the last immediate of both forms)
    for n in script.WIDTHS:
        assert source.count(f"m64n{n}k16.f32.bf16.bf16") == (4 if n == 256 else 2)
    assert source.count("1, 1, 1;\\n") == 1 and source.count("1, 1, 0, 1;\\n") == 1
    assert "| 0x3f803f80u" in source  # shared memory and A's registers: random nonzero bf16, never zeros
