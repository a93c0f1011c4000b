"""Knockouts of the scorer's cluster merge (wrong results by design, timing only): edits
templates/sparse_mla.cu.j2 in place, as call1-scorer-cluster-stores.diff leaves it (run on the
device's copy; call2.sh restores it from a copy between knockouts).
Usage: python3 knockout.py NAME, NAME one of:
  no_push      the rows and LSEs are not stored into the mergers' shared memory
  no_merge     no_push, and no merge after the second barrier (nothing written)
  one_barrier  the rows are pushed without the first cluster barrier (into rings still in use)
  no_barriers  no_merge, and neither cluster barrier (the kernel ends after its row sums)"""
import sys
from pathlib import Path

T = Path("templates/sparse_mla.cu.j2")
PUSH = ["      st_peer_u2(row_at + (j * 8 + (second ? 8 : 0) + (q & 1) * 4) * 2, second ? b_lo : a_lo, second ? b_hi : a_hi);\n",
        "    if (wg == 0 && q == 0) st_peer_f32(peer_addr(recv + S * H * PUSH_ROW + (split * H + hh) * 4, owner), row_lse);\n"]
MERGE = ("  const int rank = (int)cluster_rank(), h0 = hb * HPC;\n",
         "  if (S > 0) return;\n  const int rank = (int)cluster_rank(), h0 = hb * HPC;\n")
FIRST = "  cluster_sync();  // every CTA of the cluster is past its ring, which now takes the pushed rows\n"
SECOND = "  cluster_sync();  // every row is in its merger's shared memory\n"
SCORER_TWO = "      cluster_sync();\n      cluster_sync();\n    }\n{%- endif %}\n{%- if COMBINE == \"siblings\" %}"


def edit(s: str, old: str, new: str) -> str:
    assert s.count(old) == 1, old
    return s.replace(old, new)


def main(name: str) -> None:
    s = T.read_text()
    if name in ("no_push", "no_merge", "no_barriers"):
        for line in PUSH:
            s = edit(s, line, "")
    if name in ("no_merge", "no_barriers"):
        s = edit(s, *MERGE)
    if name in ("one_barrier", "no_barriers"):
        s = edit(s, FIRST, "")
        s = edit(s, SCORER_TWO, SCORER_TWO.replace("      cluster_sync();\n", "", 1))
    if name == "no_barriers":
        s = edit(s, SECOND, "")
        s = edit(s, SCORER_TWO.replace("      cluster_sync();\n", "", 1), SCORER_TWO.replace("      cluster_sync();\n      cluster_sync();\n", ""))
    T.write_text(s)


main(sys.argv[1])
