"""The CUDA template's e4m3 -> bf16 dequantization, run on the CPU: the functions between the
rendered source's `// ---- e4m3 to bf16` and `// ---- e4m3 end` markers are host-and-device code,
so nvcc builds them into a host program that checks every pair of e4m3 codes, times power-of-two
scales from 2^-30 to 2^20 and a zero scale (each pair in both halves of a word of four, the
kernel's conversion), against a decoding of the e4m3 bits written independently here. No GPU is
needed; on the GPU the same functions run inside the kernel (the GPU tier checks the kernel's
output)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from engine.template import load_template
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
SPACE = TEMPLATE.load_space()

CHECK = r"""
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <string.h>  // the check's own memcpy
#include <math.h>
#include <stdio.h>

namespace kg {
%(snippet)s
}

// e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0 is subnormal; S.1111.111 is NaN
static bool decode(uint32_t b, double* v) {
  const int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return false;
  const double mag = e == 0 ? ldexp(m / 8.0, -6) : ldexp(1.0 + m / 8.0, e - 7);
  *v = (b & 0x80) ? -mag : mag;
  return true;
}

static double bf16_value(uint32_t h) {
  uint32_t bits = h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

int main() {
  long checked = 0, wrong = 0;
  for (int k = -31; k <= 20; ++k) {
    const float scale = k == -31 ? 0.f : ldexpf(1.f, k);
    const uint32_t scale2 = kg::scale_bf16x2(scale);
    for (uint32_t two = 0; two < 65536; ++two) {
      double lo, hi;
      if (!decode(two & 0xff, &lo) || !decode(two >> 8, &hi)) continue;
      // the pair as the low half of a word of four whose high half is the pair byte-swapped, so
      // that a conversion reading the wrong half or the wrong byte order cannot pass
      const uint32_t swapped = ((two & 0xff) << 8) | (two >> 8);
      uint32_t r[2];
      kg::e4m3x4_to_bf16x4_scaled(two | (swapped << 16), scale2, r[0], r[1]);
      const double want[2][2] = {{lo * scale, hi * scale}, {hi * scale, lo * scale}};
      for (uint32_t j = 0; j < 2; ++j) {
        ++checked;
        if (bf16_value(r[j] & 0xffff) != want[j][0] || bf16_value(r[j] >> 16) != want[j][1]) {
          if (++wrong <= 5) printf("two=%%04x scale=2^%%d half %%u: got %%g %%g want %%g %%g\n", two, k, j,
                                   bf16_value(r[j] & 0xffff), bf16_value(r[j] >> 16), want[j][0], want[j][1]);
        }
      }
    }
  }
  printf("%%ld mismatches of %%ld\n", wrong, checked);
  return wrong != 0;
}
"""


def snippet() -> str:
    params = {**SPACE.default_params(), "MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "TOPK_TILE": 32,
              "GATHER_LANES": 8, "KV_FORMAT": "fp8_656"}
    source = TEMPLATE.render(params)
    begin, end = source.index("// ---- e4m3 to bf16"), source.index("// ---- e4m3 end")
    return source[begin:end]


@NEEDS_NVCC
def test_every_e4m3_pair_dequantizes_exactly_at_every_scale(tmp_path):
    program = tmp_path / "check.cu"
    program.write_text(CHECK % {"snippet": snippet()})
    build = subprocess.run(["nvcc", "-O2", "-o", str(tmp_path / "check"), str(program)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "check")], capture_output=True, text=True, timeout=300)
    # 254 x 254 non-NaN pairs at 52 scales, both halves of a word each; any mismatch is printed before the count
    assert run.stdout.strip().endswith(f"0 mismatches of {254 * 254 * 52 * 2}"), run.stdout
    assert run.returncode == 0


def test_the_markers_hold_the_whole_conversion():
    text = snippet()
    for name in ("spread_e4m3x2_as_bf16x2_times_2m120", "e4m3x2_as_bf16x2_times_2m120", "bf16x2_mul", "scale_bf16x2",
                 "bf16x2_times_2p120_scaled", "e4m3x4_as_bf16x4_times_2m120",
                 "e4m3x4_to_bf16x4_scaled"):
        assert f" {name}(" in text, name
    # inline PTX would not build for the host: only inside a device-only branch, whose #else holds
    # the host's own code (the code this test runs)
    host_text, rest = "", text
    while "#ifdef __CUDA_ARCH__" in rest:
        before, rest = rest.split("#ifdef __CUDA_ARCH__", 1)
        device, rest = rest.split("#else", 1)
        assert "#endif" in rest and "#if" not in device
        host_text += before
    host_text += rest
    assert "asm" not in host_text
