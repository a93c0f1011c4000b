"""trace_scorer_tiles.py's stamps placed for SOFTMAX_WARPGROUP genomes (session 30, a one-off):
the scorer's thread stamps tile t's rows in and its scores done (after its wait, before it stores
them); the softmax warpgroup's first thread stamps the scores read (s_seen) and P published; the
value warpgroups' stamps are trace_scorer_tiles.py's. Usage as trace_scorer_tiles.py."""
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, "scripts/device")
import trace_scorer_tiles as T

T.EVENTS.append("s_seen")
T.NE = len(T.EVENTS) + 1
ev = T.ev
T.PROBES[:] = [
    ("#include <stdint.h>\n", "#include <stdint.h>\n" + T.HEADER.format(n=T.MAX_CTAS * T.MAX_TILES * T.NE,
                                                                        tiles=T.MAX_TILES, ctas=T.MAX_CTAS, ne=T.NE)),
    T.PROBES[1], T.PROBES[2],
    ("      wg_wait0();\n      if (t > 0) mbar_wait(bar_scores_free, (t - 1) & 1);\n",
     f"      wg_wait0();\n      if (tid == 256) kg_stamp(t, {ev('scores_done')});\n"
     "      if (t > 0) mbar_wait(bar_scores_free, (t - 1) & 1);\n"),
    ("      mbar_arrive(bar_scores_free);\n      const int buf = t % BUFS;\n",
     f"      mbar_arrive(bar_scores_free);\n      if (tid == 384) kg_stamp(t, {ev('s_seen')});\n"
     "      const int buf = t % BUFS;\n"),
    ("      mbar_arrive(bar_ready + 8 * buf);\n      m_prev[0] = m_t[0];\n",
     f"      mbar_arrive(bar_ready + 8 * buf);\n      if (tid == 384) kg_stamp(t, {ev('p_published')});\n"
     "      m_prev[0] = m_t[0];\n"),
] + T.PROBES[4:]

if __name__ == "__main__":
    T.main()
