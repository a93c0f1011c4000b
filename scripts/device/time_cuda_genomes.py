"""Side-by-side timing of chosen CUDA genomes in one worker (same GPU, same call).

Usage: python3 scripts/device/time_cuda_genomes.py [VARIANTS.json] [--repeats N] [--timeout-s S]
VARIANTS.json maps a name to gene changes from the space's defaults (without it, the list below).
Each repeat times every variant once, in order, so the spread between repeats says what a
difference means. A variant that times out is not tried again, nor are later ones sharing its
PIPELINE: a hung schedule would burn the timeout on each. Writes $OUT/cuda_compare.json."""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
from engine.template import load_template
from evaluators.runner import WorkerRunner

DEFAULT_VARIANTS = {
    "wgmma,bk64,s2": {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 2},
    "fp8,wgmma,bk64,s1,overlap": {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 1, "KV_FORMAT": "fp8_656",
                                  "PIPELINE": "overlap"},
}

ap = argparse.ArgumentParser()
ap.add_argument("variants", nargs="?")
ap.add_argument("--repeats", type=int, default=1)
ap.add_argument("--timeout-s", type=float, default=120)
args = ap.parse_args()
changes = json.loads(Path(args.variants).read_text()) if args.variants else DEFAULT_VARIANTS
t = load_template(Path("templates/sparse_mla.cu.j2")); space = t.load_space()
variants = {name: dict(space.default_params(), **delta) for name, delta in changes.items()}
for name, p in variants.items():
    assert space.is_valid(p), (name, space.violations(p))
runner = WorkerRunner(Path("results/compare/kernels"), Path("results/compare/worker.log"), device="cuda",
                      timeout_s=args.timeout_s)
runner.start()
rows, hung = [], set()
for rep in range(args.repeats):
    for name, p in variants.items():
        if p["PIPELINE"] in hung:
            continue
        res = runner.evaluate(t.request(t.render(p), p))
        if res["status"] == "timeout":
            hung.add(p["PIPELINE"])
        wl = {w["name"]: round(w["median_us"], 1) for w in res.get("workloads") or []}
        print(f"{rep} {res['status']:<10} {name}: {json.dumps(wl)} {(res.get('error') or '')[:400]}", flush=True)
        rows.append({"rep": rep, "name": name, "params": p, "status": res["status"], "resources": res.get("resources"),
                     "workloads": res.get("workloads"), "error": res.get("error")})
runner.stop()
Path(os.environ.get("OUT", "/tmp"), "cuda_compare.json").write_text(json.dumps(rows))
