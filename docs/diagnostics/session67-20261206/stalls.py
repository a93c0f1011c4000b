"""Where the warps of one launch stall, from ncu's per-SASS-line samples (call1.sh's
call1-sass-bN.csv.gz: `ncu -i REPORT --page source --csv --print-source sass`): the share of
each stall reason over the launch, the same within each of the entry's loops (a predicated backward
branch spanning more than 1 KB; the mbarrier waits' retry stubs at the function's end return to
the body by unpredicated branches, which are not loops)
and outside them, and the lines with the most samples.
    python3 docs/diagnostics/session67-20261206/stalls.py docs/diagnostics/session67-20261206/call1-sass-b8.csv.gz"""
import collections
import csv
import gzip
import re
import sys

LOOP_MIN_BYTES = 1024
with gzip.open(sys.argv[1], "rt") as f:
    rows = list(csv.reader(f))
header, lines = rows[1], rows[2:]  # rows[0] names the kernel
col = {name: i for i, name in enumerate(header)}
reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
base = int(lines[0][col["Address"]], 16)
sass = [(int(r[col["Address"]], 16) - base, r[col["Source"]].strip(), r) for r in lines]

loops = []
for offset, text, _ in sass:
    m = re.search(r"^@!?U?P\w+\s+BRA(?:\.\w+)*\s+0x([0-9a-f]+)", text)
    if m and offset - (int(m.group(1), 16) - base) > LOOP_MIN_BYTES:
        target = int(m.group(1), 16) - base
        if 0 <= target < offset:
            loops.append((target, offset))
loops = [lp for lp in loops if not any(o != lp and o[0] <= lp[0] and lp[1] <= o[1] for o in loops)]  # outermost


def region(offset):
    for lo, hi in loops:
        if lo <= offset <= hi:
            return f"loop {lo:#06x}-{hi:#06x}"
    return "outside the loops"


total = collections.Counter()
by_region = collections.defaultdict(collections.Counter)
for offset, _, r in sass:
    for h in reasons:
        n = int(r[col[h]] or 0)
        total[h] += n
        by_region[region(offset)][h] += n
samples = sum(total.values())
print(f"{rows[0][1]}: {samples} samples over {len(sass)} instructions")
print("  all: " + ", ".join(f"{h[6:]} {n / samples:.1%}" for h, n in total.most_common(8)))
for name, c in sorted(by_region.items()):
    share = sum(c.values()) / samples
    print(f"  {name}: {share:.1%} of the samples; " + ", ".join(f"{h[6:]} {n / samples:.1%}" for h, n in c.most_common(4)))
print("  lines with the most samples:")
ns = col["Warp Stall Sampling (All Samples)"]
for offset, text, r in sorted(sass, key=lambda s: -int(s[2][ns] or 0))[:12]:
    top = sorted(((int(r[col[h]] or 0), h[6:]) for h in reasons), reverse=True)[:2]
    print(f"    {offset:#06x} {int(r[ns]):5d}  {text[:58]:58s} " + ", ".join(f"{h} {n}" for n, h in top if n))
