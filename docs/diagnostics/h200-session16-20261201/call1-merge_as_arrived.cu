// Arrives with a bit of its own in the group's mask (after every thread's stores: the barrier,
// then thread 0's release) and returns to every thread how many siblings arrived before it.
template <typename Sync>
__device__ __forceinline__ int arrive_in_mask(unsigned* mask, int split, int* s_slot, Sync sync, int tid) {
  sync();
  if (tid == 0) {
    unsigned before;
    asm volatile("atom.release.gpu.global.or.b32 %0, [%1], %2;\n" : "=r"(before) : "l"(mask), "r"(1u << split) : "memory");
    s_slot[0] = __popc(before);
  }
  sync();
  return s_slot[0];
}
__device__ __forceinline__ unsigned load_acquire_mask(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The merge of n splits (5 to 32), shared among the n - 1 CTAs that arrive first; the last to
// arrive leaves at once. The others have the partials of everyone before it folded in by then,
// so after the last arrival a CTA loads only the last one's rows of its share, an (n - 1)-th of
// them; a share for every CTA fixed in advance (merge_share) made the last one load its whole
// share after it arrived, behind one poll and three barriers. The block's rows are units of 32
// quads (a warp's loads of one split: a quarter of a head's 512 values); merger `order` takes
// units [order U / (n - 1), (order + 1) U / (n - 1)), its warp w every eighth from the first + w,
// R at a time. Each warp polls the mask itself (no barrier between warps) and folds the newly
// arrived splits in, G at a time, one round trip for all of its units (add_batch: a running
// maximum). Once it has seen all arrive, a warp counts itself out in the group's second word;
// the last of the (n - 1) x 8 re-arms both words.
template <typename Sync>
__device__ __forceinline__ void merge_as_arrived(const PartT* part_out, const float* part_lse, __nv_bfloat16* out,
                                                 float* lse, int* words, int* s_slot, int b, int h0, int split,
                                                 int heads, int n, Sync sync, int tid) {
  static_assert(sizeof(PartT) == 2, "the siblings' merge holds bf16 partials in flight");
  constexpr int UNITS = HPC * (D_V / 4) / 32, WARPS = 8, R = 5, G = 4;  // the epilogue's 256 threads
  static_assert(UNITS / 31 >= WARPS, "up to 32 splits, every warp of every merger has a unit (and polls)");
  unsigned* mask = reinterpret_cast<unsigned*>(words);
  const int order = arrive_in_mask(mask, split, s_slot, sync, tid);
  if (order == n - 1) return;  // the last to arrive: the others fold its rows in
  const unsigned all = n == 32 ? 0xffffffffu : (1u << n) - 1;
  const int warp = tid >> 5, lane = tid & 31, mergers = n - 1;
  const int first = order * UNITS / mergers, last = (order + 1) * UNITS / mergers;
  const size_t token_rows = (size_t)b * n * heads + h0;  // [B, splits, H]: split k of head h0 + i at + k H + i
  unsigned seen = 0;
  int ticket = 0;
  for (int u0 = first + warp; u0 < last; u0 += WARPS * R) {
    float m[R], denom[R];
    float4 acc[R];
    int at[R];  // this lane's first value of unit r, in row units of D_V from token_rows (past the end: the last)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int u = min(u0 + r * WARPS, last - 1);
      at[r] = (u / 4) * D_V + 4 * ((u % 4) * 32 + lane);
      m[r] = -INFINITY;
      denom[r] = 0.f;
      acc[r] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    unsigned have = 0;
    for (;;) {
      if (seen != all) {
        seen = load_acquire_mask(mask);
        if (seen == all && lane == 0) ticket = atomicAdd(words + 1, 1);  // its answer is needed at the end
      }
      unsigned fresh = seen & ~have;
      have = seen;
      while (fresh) {
        int k[G];
#pragma unroll
        for (int j = 0; j < G; ++j) {
          k[j] = fresh ? __ffs(fresh) - 1 : -1;
          fresh &= fresh - 1;
        }
        float l[R][G];
        uint2 raw[R][G];
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int j = 0; j < G; ++j) {  // a slot without a split: weighed 0, its values 0 (never NaN)
            const size_t row = token_rows + (size_t)max(k[j], 0) * heads;
            l[r][j] = k[j] >= 0 ? __ldcg(part_lse + row + at[r] / D_V) : -INFINITY;
            raw[r][j] = k[j] >= 0 ? __ldcg(reinterpret_cast<const uint2*>(part_out + row * D_V + at[r])) : make_uint2(0, 0);
          }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          float4 o[G];
#pragma unroll
          for (int j = 0; j < G; ++j)
            o[j] = make_float4(__uint_as_float(raw[r][j].x << 16), __uint_as_float(raw[r][j].x & 0xffff0000u),
                               __uint_as_float(raw[r][j].y << 16), __uint_as_float(raw[r][j].y & 0xffff0000u));
          add_batch(l[r], o, m[r], acc[r], denom[r]);
        }
      }
      if (have == all) break;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int u = u0 + r * WARPS;
      if (u >= last) break;
      store_merged(out, lse, (size_t)b * heads + h0 + u / 4, (u % 4) * 32 + lane, acc[r], denom[r], m[r]);
    }
  }
  if (lane == 0 && ticket == mergers * WARPS - 1) {  // every merger's warps have seen all arrive
    store_relaxed(words, 0);  // strong stores, as every other access to the words in this grid
    store_relaxed(words + 1, 0);
  }
}

// The siblings' merge from a CTA's epilogue (256 threads, `sync` their barrier, `s_w` 2 * HPC free
// floats): 2 or 4 splits wait for all, then merge a fixed share each (merge_share: every thread's
// loads in one round trip); 5 to 32 merge as they arrive (merge_as_arrived); 3 splits and more
// than 32 wait for all, then merge an n-th of the items each (merge_items: slower, the same result).
template <typename Sync>
__device__ __forceinline__ void merge_with_siblings(const PartT* part_out, const float* part_lse, __nv_bfloat16* out,
                                                    float* lse, int* arrivals, float* s_w, int b, int hb, int h0,
                                                    int split, int heads, int num_splits, Sync sync, int tid) {
  int* words = arrivals + SIBLING_WORDS * ((size_t)b * gridDim.x + hb);  // this group's line
  if (num_splits >= 5 && num_splits <= 32) {
    merge_as_arrived(part_out, part_lse, out, lse, words, reinterpret_cast<int*>(s_w), b, h0, split, heads,
                     num_splits, sync, tid);
    return;
  }
  const int ticket = wait_for_siblings(words, num_splits, sync, tid);
  switch (num_splits) {
    case 2: merge_share<2>(part_out, part_lse, out, lse, s_w, b, h0, split, heads, sync, tid); break;
    case 4: merge_share<4>(part_out, part_lse, out, lse, s_w, b, h0, split, heads, sync, tid); break;
    default: {
      constexpr int end = HPC * (D_V / 4);
      const int first = (int)((long long)split * end / num_splits), last = (int)((long long)(split + 1) * end / num_splits);
      merge_items<1>(part_out, part_lse, out, lse, b, h0, tid, 256, heads, num_splits, first, last);
    }
  }
  leave_siblings(words, num_splits, ticket, tid);
}
