"""scripts/device/l2_state.py on a machine without a GPU: its gather-only kernel (the memory floor
it times beside the genomes) builds for sm_90a and reads every 16-byte piece of every row once."""

from __future__ import annotations

import re

from evaluators.cuda_compile import compile_cuda
from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import load_device_script

pytestmark = NEEDS_NVCC


def _script():
    return load_device_script("l2_state.py")


def test_the_gather_kernel_builds_and_covers_each_row_once(tmp_path):
    kernel = _script().GATHER_KERNEL
    build = compile_cuda(kernel, tmp_path)
    assert build.ok, build.log[-2000:]
    assert [k.name for k in build.kernels] == ["gather_read"]
    # 64 rows of 72 pieces of 16 bytes (1152 bytes, a bf16 row of 576) a CTA, strided by its 256 threads
    assert "i < 64 * 72; i += 256" in kernel and "ids + i / 72" in kernel and "id * 72 + i % 72" in kernel
    assert re.search(r"__launch_bounds__\(256\)", kernel)
    # shift 1: CTAs 2c and 2c + 1 read the same 64 rows (two head blocks' reads, launched together)
    assert "(blockIdx.x >> shift) * 64" in kernel
