"""The CUDA pieces the tensor-core scripts (wgmma_rate.py, wgmma_mix.py, fp8_wgmma_precision.py,
fp8_operand_paths.py) build their kernels from: random nonzero bf16 data (the clock depends on the
data: zeros would flatter), the shared-memory descriptor of a 128-byte-swizzled operand and the
inline PTX of one warpgroup product."""

RANDOM_BF16X2 = r"""__device__ __forceinline__ uint32_t random_bf16x2(uint32_t i) {  // two bf16 in (-2, 2), never zero
  i = i * 2654435761u + 0x9e3779b9u; i ^= i >> 15; i *= 2246822519u; i ^= i >> 13;
  return (i & 0x807f807fu) | 0x3f803f80u;
}
"""

# a wgmma operand's descriptor: 128-byte swizzle, 8-row groups 1 KB apart; `lbo` is used MN-major
# only (the stride of the 64-column blocks), K-major it is 16 and unused
SW128_DESC = r"""__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr, uint32_t lbo = 16) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
"""


def wgmma_asm(n: int, a_regs: bool, first: bool = False, trans_b: int = 0) -> str:
    """The asm statement of one k-step, D[64 x n] (+)= A[64 x 16] B[16 x n], bf16 in, fp32
    accumulators d[n / 2]: A from the registers a[4] or the descriptor da, B the descriptor db
    (MN-major when trans_b); `first`: D written, not added to (scale-d 0)."""
    regs = ", ".join(f"%{i}" for i in range(n // 2))
    outs = ", ".join(f'"{"=" if first else "+"}f"(d[{i}])' for i in range(n // 2))
    a = ("{" + ", ".join(f"%{n // 2 + i}" for i in range(4)) + "}") if a_regs else f"%{n // 2}"
    b = f"%{n // 2 + 4}" if a_regs else f"%{n // 2 + 1}"
    ins = '"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)' if a_regs else '"l"(da), "l"(db)'
    imms = f"1, 1, {trans_b}" if a_regs else f"1, 1, 0, {trans_b}"  # scale-a, scale-b, (trans-a,) trans-b
    return (f'asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 {{{regs}}}, {a}, {b}, '
            f'{0 if first else 1}, {imms};\\n" : {outs} : {ins});')
