"""Bounds on the scorer's softmax (timing only, wrong results by design): applies the twenty-sixth
session's knockout_pair.py (gene SCORE_PAIR_KO: a pair's scores as one m64n64 chain) and adds a
bool gene SOFTMAX_FREE_KO: the scorer's finish_tile publishes a constant maximum (0) and arrives
on the tile's "P ready" barrier without its softmax (no scaling, masking, maxima, exponentials or
P stores; the value products read whatever the tile's RoPE block holds, the row sums are 1).
Everything else (the waits on the scores, the proxy fence, the hand-off barriers, the value
products, the gather, the merge) runs as in the genome. With both genes: what a pair of tiles
scored as one m64n64 product could reach if its softmaxes cost nothing, the bound for any design
that hides them (two scorers, or the next pair's scores issued under them). Edits the files in
place (run on the device's copy). Usage: python3 knockout_free_softmax.py"""
import runpy
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the pair knockout's edits first; its file names and its edit helper serve here too
pair = runpy.run_path(str(HERE.parent / "h200-session26-20261202" / "knockout_pair.py"))
T, S, edit = pair["T"], pair["S"], pair["edit"]

t = T.read_text()
t = edit(t, '''      const int buf = t % BUFS;
      float m_t[2];
      softmax_tile(s, s_valid + buf * BK, tile_at(t) + 8 * BLK, s_mt + buf * 64, m_prev, m_t, m_l, l_run, scale_log2,
                   lane, row0);
      async_proxy_fence();  // ordinary stores that the tensor cores read next''', '''      const int buf = t % BUFS;
      float m_t[2];
{%- if SOFTMAX_FREE_KO %}
      // knockout: no softmax; a constant maximum, row sums of 1, P left as the RoPE block holds it
      m_t[0] = m_t[1] = 0.f;
      m_l[0] = m_l[1] = 0.f;
      l_run[0] = l_run[1] = 1.f;
      if ((lane & 3) == 0) {
        s_mt[buf * 64 + row0] = 0.f;
        s_mt[buf * 64 + row0 + 8] = 0.f;
      }
      asm volatile("" ::"f"(s[0]), "f"(s[BK / 2 - 1]));
{%- else %}
      softmax_tile(s, s_valid + buf * BK, tile_at(t) + 8 * BLK, s_mt + buf * 64, m_prev, m_t, m_l, l_run, scale_log2,
                   lane, row0);
{%- endif %}
      async_proxy_fence();  // ordinary stores that the tensor cores read next''')
T.write_text(t)
s = S.read_text()
s = edit(s, '''[genes.FIRST_GATHER]''', '''[genes.SOFTMAX_FREE_KO]
type = "bool"
default = false
doc = "knockout (timing only, wrong results): the scorer's softmax skipped, a constant maximum published"

[genes.FIRST_GATHER]''')
S.write_text(s)
