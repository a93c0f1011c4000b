"""trace_scorer_tiles.py's tile trace for SOFTMAX = values (calls2-4-value-softmax.diff applied,
call 4's loop): the same stamps, read as this design's events. Per tile t:
  rows_in      the scorer's thread: tile t's rows in and tile t - 2's value products issued
  scores_done  its scores of t done
  p_published  its raw scores of t stored and signalled
  v0_p_seen    value warpgroup 0's first thread: the raw scores of t seen (v1_p_seen: warpgroup 1's)
  v0_issued    its products of t issued (after its softmax of t and the wait for t - 1's products)
  v0_gathered  tile t + 4's copies issued
  v0_done      its products of t found done (in step t + 1, after the softmax of t + 1)
Usage as trace_scorer_tiles.py (one SOFTMAX = values variant)."""
import os, sys
sys.path.insert(0, os.getcwd())
sys.path.insert(0, "scripts/device")
import trace_scorer_tiles as tst
from trace_scorer_tiles import ev

def probe(anchor_part):  # trace_scorer_tiles.py's probe whose anchor holds anchor_part
    return next(p for p in tst.PROBES if anchor_part in p[0])


tst.PROBES = [probe("#include <stdint.h>"), probe("allow_dependent_launch();")] + [
    ("      if (t >= 2) mbar_wait(bar_read + 8 * (t & 1), ((t >> 1) - 1) & 1);\n",
     "      if (t >= 2) mbar_wait(bar_read + 8 * (t & 1), ((t >> 1) - 1) & 1);\n"
     f"      if (tid == 256) kg_stamp(t, {ev('rows_in')});\n"),
    probe("finish_tile(2 * j, sa);"),
    ("      mbar_wait(bar_ready + 8 * buf, (t / BUFS) & 1);\n      float s[BK / 2];\n",
     "      mbar_wait(bar_ready + 8 * buf, (t / BUFS) & 1);\n"
     f"      if (tid == 0) kg_stamp(t, {ev('v0_p_seen')});\n      if (tid == 128) kg_stamp(t, {ev('v1_p_seen')});\n"
     "      float s[BK / 2];\n"),
    ("      mbar_arrive(bar_read + 8 * (t & 1));  // its scores are read, its products issued\n",
     "      mbar_arrive(bar_read + 8 * (t & 1));  // its scores are read, its products issued\n"
     f"      if (tid == 0) kg_stamp(t, {ev('v0_issued')});\n"),
    ("        load_ids(u + 1, ids_next);\n      }\n    };\n",
     f"        load_ids(u + 1, ids_next);\n      }}\n      if (tid == 0) kg_stamp(t, {ev('v0_gathered')});\n    }};\n"),
    ("      pin_registers(pa_prev);\n",
     "      pin_registers(pa_prev);\n"
     f"      if (tid == 0 && t > 0) kg_stamp(t - 1, {ev('v0_done')});\n"
     f"      if (tid == 128 && t > 0) kg_stamp(t - 1, {ev('v1_done')});\n"),
]

if __name__ == "__main__":
    tst.main()
