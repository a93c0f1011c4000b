#include <stdint.h>
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
// four k32 steps of one block into acc; the first writes it (scale-d 0)
__device__ __forceinline__ void block4(float (&d)[16], uint32_t a, uint32_t b) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint64_t da = sw128_desc(a + 32 * k), db = sw128_desc(b + 32 * k);
    if (k == 0)
      asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
                   "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 0, 1, 1;\n"
                   : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
                     "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15])
                   : "l"(da), "l"(db));
    else
      asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
                   "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1, 1, 1;\n"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                     "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                   : "l"(da), "l"(db));
  }
}
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// s += acc times each column's scale (a thread's columns: 8 j + 2 (lane & 3) + {0, 1})
__device__ __forceinline__ void fold(float (&s)[16], const float (&acc)[16], const float* sc) {
#pragma unroll
  for (int i = 0; i < 16; ++i) s[i] = fmaf(acc[i], sc[i & 3], s[i]);
}
extern "C" __global__ void __launch_bounds__(128, 1) rolling(float* out, const float* scales, int tiles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  float s[16];
  for (int t = 0; t < tiles; ++t) {
    float acc0[16], acc1[16], sc[4];
#pragma unroll
    for (int i = 0; i < 16; ++i) s[i] = 0.f;
    fence();
    block4(acc0, base, base + 65536 + t * 16384); commit();
    block4(acc1, base + 8192, base + 65536 + t * 16384 + 4096); commit();
    wait<1>();
    for (int i = 0; i < 4; ++i) sc[i] = scales[t * 16 + 0 * 4 + i];
    fold(s, acc0, sc);
    fence();
    block4(acc0, base + 16384, base + 65536 + t * 16384 + 8192); commit();
    wait<1>();
    for (int i = 0; i < 4; ++i) sc[i] = scales[t * 16 + 1 * 4 + i];
    fold(s, acc1, sc);
    fence();
    block4(acc1, base + 24576, base + 65536 + t * 16384 + 12288); commit();
    wait<1>();
    for (int i = 0; i < 4; ++i) sc[i] = scales[t * 16 + 2 * 4 + i];
    fold(s, acc0, sc);
    wait<0>();
    for (int i = 0; i < 4; ++i) sc[i] = scales[t * 16 + 3 * 4 + i];
    fold(s, acc1, sc);
#pragma unroll
    for (int i = 0; i < 16; ++i) out[(t * 128 + threadIdx.x) * 16 + i] = s[i];
  }
}
