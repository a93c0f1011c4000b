"""The same-call table of call2-same_call.json (an H100): for each workload, each column's best
variant by its better median of the two repeats, shown as that variant's two medians (us); the
PyTorch path of each cache format beside the CUDA genomes of that format. Run from this folder."""
import json
from collections import defaultdict

rows = json.load(open("call2-same_call.json"))
triton_best = defaultdict(lambda: float("inf"))
for genome in json.load(open("call2-triton_best.json")):
    for w in genome.get("workloads") or []:
        triton_best[w["name"]] = min(triton_best[w["name"]], w["median_us"])


def column(row):
    if row["version"] == "ref":
        return "torch fp8" if "fp8" in row["name"] else "torch bf16"
    if row["name"].startswith("gluon"):
        return "gluon"
    return "cuda fp8" if row["name"].startswith("cuda fp8") else "cuda bf16"


times = defaultdict(lambda: defaultdict(list))  # workload -> column -> [(variant, median, tflops)]
for row in rows:
    assert row["status"] == "ok", row["name"]
    for w in row["workloads"]:
        times[w["name"]][column(row)].append((row["name"], w["median_us"], w["tflops"]))


def best(cells):
    by_variant = defaultdict(list)
    for name, us, tf in cells:
        by_variant[name].append((us, tf))
    name = min(by_variant, key=lambda n: min(us for us, _ in by_variant[n]))
    us = sorted(u for u, _ in by_variant[name])
    tf = sorted(t for _, t in by_variant[name])
    return name, us, tf


def span(values, fmt):
    lo, hi = fmt.format(values[0]), fmt.format(values[-1])
    return lo if lo == hi else f"{lo}-{hi}"


print("| workload | CUDA bf16 | TFLOP/s | PyTorch bf16 | bf16 / PyTorch | CUDA FP8-656 | TFLOP/s | PyTorch FP8-656 "
      "| FP8 / its PyTorch | Gluon | Triton |")
print("|---" * 11 + "|")
for workload, cols in times.items():
    _, cb, cbt = best(cols["cuda bf16"])
    _, cf, cft = best(cols["cuda fp8"])
    _, tb, _ = best(cols["torch bf16"])
    _, tfp, _ = best(cols["torch fp8"])
    _, gl, _ = best(cols["gluon"])
    print(f"| {workload} | {span(cb, '{:.1f}')} | {span(cbt, '{:.0f}')} | {span(tb, '{:.1f}')} | "
          f"{span([tb[0] / cb[-1], tb[-1] / cb[0]], '{:.1f}')}x | {span(cf, '{:.1f}')} | {span(cft, '{:.0f}')} | "
          f"{span(tfp, '{:.1f}')} | {span([tfp[0] / cf[-1], tfp[-1] / cf[0]], '{:.1f}')}x | {span(gl, '{:.1f}')} | "
          f"{triton_best[workload]:.1f} |")
