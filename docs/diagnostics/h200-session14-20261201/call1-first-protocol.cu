// Call 1's wait of the siblings' merge (replaced before call 2; kept for the record of what it
// cost): two words a group, adjacent groups sharing a line; thread 0 fenced with __threadfence
// (MEMBAR.SC.GPU in SASS) before its arrival and, as the last to arrive, again before it re-armed
// the count and moved a generation word that the others polled. B=8 took 18.92 us a call in a
// graph against 17.97 with the separate merge kernel; call 2's release/acquire words, a line a
// group, took 17.71.
template <typename Sync>
__device__ __forceinline__ void wait_for_siblings(int* arrivals, int b, int hb, int num_splits, Sync sync, int tid) {
  sync();
  if (tid == 0) {
    int* count = arrivals + 2 * ((size_t)b * gridDim.x + hb);
    int* generation = count + 1;
    const int g0 = load_acquire(generation);
    __threadfence();
    if (atomicAdd(count, 1) == num_splits - 1) {
      __threadfence();
      *count = 0;
      store_release(generation, g0 + 1);
    } else {
      while (load_acquire(generation) == g0) {
      }
    }
  }
  sync();
}
