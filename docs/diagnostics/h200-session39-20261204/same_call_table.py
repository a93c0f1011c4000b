"""Issue 4's same-call table from call 4's reports: per workload, the best CUDA bf16 and FP8-656
genome (by the lower of its two repeats' medians), their TFLOP/s and roofline fraction, the
Gluon and Triton templates' best, and PyTorch; each figure the two repeats' medians (low-high).
Usage: python3 same_call_table.py call4-same_call.json call4-triton_best.json"""
import json
import re
import sys
from collections import defaultdict

same, triton = (json.load(open(p)) for p in sys.argv[1:3])
runs = defaultdict(lambda: defaultdict(list))  # name -> workload -> [(median, tflops, roofline)]
for row in same:
    assert row["status"] == "ok", row["name"]
    for w in row["workloads"]:
        runs[row["name"]][w["name"]].append((w["median_us"], w["tflops"], w["roofline_frac"]))
workloads = [w["name"] for w in same[0]["workloads"]]


def span(values, fmt="{:.1f}"):
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def best(prefix, w):
    names = [n for n in runs if n.startswith(prefix)]
    return min(names, key=lambda n: min(m for m, _, _ in runs[n][w]))


def label(name):  # a run genome's id prefix, else the variant's own name
    word = name.split(" ", 2)[2].split(" (")[0]
    return f"`{word}`" if re.fullmatch(r"[0-9a-f]{8}", word) else word


print("| workload | CUDA bf16 | TFLOP/s | roofline | genome | FP8-656 | TFLOP/s | genome | Gluon | Triton | PyTorch | CUDA / PyTorch |")
print("|---|" + "---|" * 11)
for w in workloads:
    b, f, g = best("cuda bf16", w), best("cuda fp8", w), best("gluon", w)
    tri = min(next(x["median_us"] for x in t["workloads"] if x["name"] == w) for t in triton if t["status"] == "ok")
    ref = [m for m, _, _ in runs["pytorch reference"][w]]
    bm = [m for m, _, _ in runs[b][w]]
    print(f"| {w} | {span(bm)} | {span([t for _, t, _ in runs[b][w]], '{:.0f}')} | "
          f"{span([r for _, _, r in runs[b][w]], '{:.2f}')} | {label(b)} | {span([m for m, _, _ in runs[f][w]])} | "
          f"{span([t for _, t, _ in runs[f][w]], '{:.0f}')} | {label(f)} | {span([m for m, _, _ in runs[g][w]])} | "
          f"{tri:.1f} | {span(ref)} | {min(ref) / min(bm):.1f}x |")
