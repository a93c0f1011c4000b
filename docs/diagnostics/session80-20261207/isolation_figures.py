"""Launcher isolation's cost on a GPU, side by side in one worker: the Triton and Gluon templates'
default genomes, each evaluated four times alternating launcher in the worker / isolated (bench
and e2e on). Prints a line an evaluation: wall seconds, each stage's seconds, and the median us
of three workloads; then, per template and workload, the medians' ratio isolated / in the worker.
Usage, from the repository root on the device (the wheels on the path):
    python3 docs/diagnostics/session80-20261207/isolation_figures.py OUT_FOLDER"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from engine.template import load_template
from evaluators.runner import WorkerRunner

SHOWN = ("b1_ctx4k", "b64_ctx32k", "b128_ctx32k")


def main(out: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="kg-iso-"))
    runner = WorkerRunner(folder / "kernels", out / "isolation-worker.log", device="cuda", timeout_s=400)
    medians: dict[tuple, list] = {}
    try:
        for name in ("sparse_mla.triton.j2", "sparse_mla.gluon.j2"):
            template = load_template(Path("templates") / name)
            params = template.load_space().default_params()
            source = template.render(params)
            for iso in (False, True, False, True):
                t0 = time.monotonic()
                r = runner.evaluate(template.request(source, params, e2e=True, guards={"isolate_launcher": iso}))
                wall = time.monotonic() - t0
                stages = " ".join(f"{k[:-2]} {r.get(k) or 0:.2f}" for k in ("compile_s", "verify_s", "bench_s", "e2e_s"))
                shown = {w["name"]: w["median_us"] for w in r["workloads"]}
                for w in r["workloads"]:
                    medians.setdefault((name, w["name"], iso), []).append(w["median_us"])
                print(f"{name} isolated={iso} {r['status']} wall {wall:.1f} s ({stages}) "
                      + " ".join(f"{k} {shown.get(k, float('nan')):.2f}" for k in SHOWN)
                      + (f" error {r['error'][:300]}" if r["error"] else ""), flush=True)
        for (name, workload, iso), values in sorted(medians.items()):
            if iso and (name, workload, False) in medians:
                alone = medians[(name, workload, False)]
                print(f"{name} {workload}: in the worker {alone} us, isolated {values} us, "
                      f"ratio of best {min(values) / min(alone):.3f}")
    finally:
        runner.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
