"""The card's two roofline ceilings, as context/hardware/*.md takes them: a device-to-device copy
(bytes read plus bytes written, a 1 GiB tensor, far beyond the L2) and an 8192^3 bf16 matrix
product (random data: the tensor cores' power, so the clock, depends on it; zeros would flatter).
Each is timed with CUDA events over several repetitions after a warm-up; the figure a sheet takes
is the median, beside the spread, the best and the card's name and clocks.

Usage: python3 scripts/device/ceilings.py [--reps 20]. Prints a JSON line and writes
$OUT/ceilings.json.
"""
import argparse
import json
import os
import statistics
import subprocess

import torch


def timed_ms(fn, reps: int) -> list[float]:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def summary(values: list[float]) -> dict:
    q = statistics.quantiles(values, n=4)
    return {"median": statistics.median(values), "iqr": q[2] - q[0], "best": max(values), "n": len(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    nbytes = 1 << 30
    src = torch.randint(-2**31, 2**31 - 1, (nbytes // 4,), dtype=torch.int32, device="cuda", generator=gen)
    dst = torch.empty_like(src)
    copy_tbps = [2 * nbytes / (ms * 1e-3) / 1e12 for ms in timed_ms(lambda: dst.copy_(src), args.reps)]
    del src, dst
    n = 8192
    a = torch.randn(n, n, device="cuda", generator=gen).to(torch.bfloat16)
    b = torch.randn(n, n, device="cuda", generator=gen).to(torch.bfloat16)
    mm_tflops = [2 * n ** 3 / (ms * 1e-3) / 1e12 for ms in timed_ms(lambda: a @ b, args.reps)]
    smi = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "clocks_after": smi,
              "copy_tbps": summary(copy_tbps), "bf16_matmul_8192_tflops": summary(mm_tflops)}
    print(json.dumps(report))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "ceilings.json"), "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
