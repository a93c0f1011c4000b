"""A bound on scoring a pair of 32-row tiles as one m64n64 product (timing only, wrong results by
design): adds a bool gene SCORE_PAIR_KO to genomes/sparse_mla_cuda.toml and, in the scorer of
templates/sparse_mla.cu.j2, with SCORE_PAIR_KO set, issues each pair's scores as one chain of 36
m64n64k16 (A from the queries' registers, as now) whose B operand is 64 rows of the pair's first
tile's buffer from block c on (its blocks c and c + 1, block 7 for c = 8: inside the buffer),
waits for both tiles, then the two softmaxes on the accumulators' halves. Both tiles are still
gathered and multiplied by the value warpgroups; only the scores' layout is wrong. The real
design would interleave a pair's two tiles block by block (one more constraint: no fifth ring
buffer) and read tile B's rows in the second half. Edits the files in place (run on the
device's copy). Usage: python3 knockout_pair.py"""
from pathlib import Path

T = Path("templates/sparse_mla.cu.j2")
S = Path("genomes/sparse_mla_cuda.toml")


def edit(s: str, old: str, new: str) -> str:
    assert s.count(old) == 1, old
    return s.replace(old, new)


t = T.read_text()
t = edit(t, '''{{ wgmma_rs_fn("wgmma_scores_rs", TOPK_TILE) }}
{%- endif %}''', '''{{ wgmma_rs_fn("wgmma_scores_rs", TOPK_TILE) }}
{{ wgmma_rs_fn("wgmma_pair_rs_first", 2 * TOPK_TILE, True) }}
{{ wgmma_rs_fn("wgmma_pair_rs", 2 * TOPK_TILE) }}
{{ wgmma_fn("wgmma_pair", 2 * TOPK_TILE, False) }}
{%- endif %}''')
t = edit(t, '''    // the softmax of tile t from its finished scores: P and m_t out to the value warpgroups''',
         '''    // knockout: tile t's and t + 1's scores as one m64n64 chain over 64 rows of tile t's buffer
    auto issue_pair_ko = [&](int t, float (&s)[BK]) {
      mbar_wait(bar_full + 8 * (t % BUFS), (t / BUFS) & 1);
      mbar_wait(bar_full + 8 * ((t + 1) % BUFS), ((t + 1) / BUFS) & 1);
      async_proxy_fence();
      wg_fence();
      const uint64_t db0 = sw128_desc(tile_at(t), 16, 1024);
#pragma unroll
      for (int kk = 0; kk < D_QK / 16; ++kk) {
        const int blk = (kk >> 2) < 8 ? (kk >> 2) : 7;
        const uint64_t db = db0 + (uint64_t)((blk * BLK + (kk & 3) * 32) >> 4);
        if (kk == 0)
          wgmma_pair_rs_first(s, qa[kk], db);
        else if (kk < 4 * Q_REG_BLOCKS)
          wgmma_pair_rs(s, qa[kk], db);
        else
          wgmma_pair(s, sw128_desc(smem_addr(s_q) + (kk >> 2) * (64 * 128) + (kk & 3) * 32, 16, 1024), db);
      }
      wg_commit();
    };
    // the softmax of tile t from its finished scores: P and m_t out to the value warpgroups''')
t = edit(t, '''      float sa[BK / 2], sb[BK / 2];
      issue_tile(2 * j, sa);
      issue_tile(2 * j + 1, sb);
{%- if HOLD_SECOND and VALUE_ISSUE == "after_scores" %}
      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go
{%- endif %}
      wg_wait1();
      finish_tile(2 * j, sa);''', '''      float sa[BK / 2], sb[BK / 2];
{%- if SCORE_PAIR_KO %}
      {
        float s64[BK];
        issue_pair_ko(2 * j, s64);
{%- if HOLD_SECOND and VALUE_ISSUE == "after_scores" %}
        mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go
{%- endif %}
        wg_wait0();
#pragma unroll
        for (int i = 0; i < BK / 2; ++i) {
          sa[i] = s64[i];
          sb[i] = s64[BK / 2 + i];
        }
      }
{%- else %}
      issue_tile(2 * j, sa);
      issue_tile(2 * j + 1, sb);
{%- if HOLD_SECOND and VALUE_ISSUE == "after_scores" %}
      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go
{%- endif %}
      wg_wait1();
{%- endif %}
      finish_tile(2 * j, sa);''')
T.write_text(t)
s = S.read_text()
s = edit(s, '''[genes.FIRST_GATHER]''', '''[genes.SCORE_PAIR_KO]
type = "bool"
default = false
doc = "knockout (timing only, wrong results): a pair's scores as one m64n64 chain over 64 rows of its first tile's buffer"

[genes.FIRST_GATHER]''')
S.write_text(s)
