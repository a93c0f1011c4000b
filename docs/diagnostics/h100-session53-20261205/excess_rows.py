"""The SASS lines of an ncu source-page CSV (`ncu -i R --page source --csv --print-source sass`)
with excess shared-memory wavefronts (bank conflicts): the header's shared-memory columns, then each
such line with its counts, most excess first. Usage: python3 excess_rows.py FILE.csv"""
import csv, sys

rows = list(csv.reader(open(sys.argv[1], newline="")))
head_at = next((i for i, r in enumerate(rows) if any("Source" in c for c in r)), None)
if head_at is None:
    sys.exit("no header with a 'Source' column; the file starts: " + repr(rows[:3]))
head = rows[head_at]
shared = [i for i, c in enumerate(head) if "Shared" in c]
excess = [i for i in shared if "Excessive" in head[i]]
src = next(i for i, c in enumerate(head) if "Source" in c)
print("columns:", [head[i] for i in shared])


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


hits = [r for r in rows[head_at + 1:] if len(r) == len(head) and any(num(r[i]) > 0 for i in excess)]
hits.sort(key=lambda r: -sum(num(r[i]) for i in excess))
print(f"{len(hits)} lines with excess shared wavefronts; total excess "
      f"{sum(num(r[i]) for r in hits for i in excess):.0f}")
for r in hits[:60]:
    print(r[src].strip()[:90], "|", " ".join(f"{head[i]}={r[i]}" for i in shared if num(r[i]) > 0))
