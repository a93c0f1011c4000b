"""GPU tier: the CUDA template's e4m3 -> bf16 dequantization run on the device itself, on every
pair of e4m3 codes (in both halves of a word of four, as the kernel converts them) at
power-of-two scales from 2^-30 to 2^20, against
PyTorch's float8_e4m3fn decoding. The cpu tier runs the same functions on the host
(tests/evaluators/test_fp8_dequant_on_host.py); this one checks what the device compiles them to
(HMUL2.BF16, the PRMT that spreads each byte and its sign)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.evaluators.test_fp8_dequant_on_host import snippet

KERNEL = """
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
namespace kg {
%s
}
extern "C" __global__ void dequant_every_pair(const float* scales, int n_scales, uint32_t* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536 * n_scales) return;
  const float scale = scales[i >> 16];
  // the pair in a word's low half, the pair byte-swapped in its high half: both PRMT selectors
  const uint32_t two = i & 0xffff, swapped = ((two & 0xff) << 8) | (two >> 8);
  kg::e4m3x4_to_bf16x4_scaled(two | (swapped << 16), kg::scale_bf16x2(scale), out[2 * i], out[2 * i + 1]);
}
"""


@pytest.mark.gpu
def test_the_device_dequantizes_every_e4m3_pair_exactly(tmp_path):
    import torch

    from evaluators.cuda_compile import compile_cuda
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(KERNEL % snippet(), tmp_path)
    assert build.ok, build.log[-3000:]
    dev = torch.device("cuda", 0)
    exponents = list(range(-30, 21))
    scales = torch.tensor([0.0] + [2.0 ** k for k in exponents], device=dev, dtype=torch.float32)
    out = torch.full((2 * 65536 * len(scales),), 0xFFFFFFFF, device=dev, dtype=torch.int64).to(torch.int32)
    module = CubinModule(Path(build.cubin), dev)
    module.launch("dequant_every_pair", (65536 * len(scales) // 256, 1, 1), 256, 0,
                  scales.data_ptr(), np.int32(len(scales)), out.data_ptr())
    torch.cuda.synchronize()

    codes = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn).to(torch.float32)
    ok = ~torch.isnan(codes)
    got = out.view(len(scales), 65536, 2).cpu()
    low_word, high_word = got[..., 0], got[..., 1]  # (lo, hi) and the swapped pair's (hi, lo)
    lo_bits, hi_bits = (low_word & 0xFFFF).to(torch.int32), ((low_word >> 16) & 0xFFFF).to(torch.int32)
    swapped_lo_bits, swapped_hi_bits = (high_word & 0xFFFF).to(torch.int32), ((high_word >> 16) & 0xFFFF).to(torch.int32)
    as_float = lambda bits: (bits << 16).view(torch.float32)  # noqa: E731  bf16 bits -> float
    pairs = torch.arange(65536)
    lo_code, hi_code = pairs & 0xFF, pairs >> 8
    valid = ok[lo_code] & ok[hi_code]
    for k, scale in enumerate(scales.cpu().tolist()):
        want_lo, want_hi = codes[lo_code] * scale, codes[hi_code] * scale
        assert torch.equal(as_float(lo_bits[k])[valid], want_lo[valid]), f"scale {scale}"
        assert torch.equal(as_float(hi_bits[k])[valid], want_hi[valid]), f"scale {scale}"
        assert torch.equal(as_float(swapped_lo_bits[k])[valid], want_hi[valid]), f"scale {scale}, high half"
        assert torch.equal(as_float(swapped_hi_bits[k])[valid], want_lo[valid]), f"scale {scale}, high half"
