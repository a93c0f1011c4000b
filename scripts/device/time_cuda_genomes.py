"""Side-by-side timing of chosen CUDA genomes in one worker (same GPU, same call); edit the
variants below. Usage: python3 scripts/device/time_cuda_genomes.py; writes $OUT/cuda_compare.json."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
from engine.template import load_template
from evaluators.runner import WorkerRunner

t = load_template(Path("templates/sparse_mla.cu.j2")); space = t.load_space()
base = space.default_params()
W = dict(base, MMA="wgmma")
variants = {
    "evolve-best(wgmma,bk64,s2)": dict(W, TOPK_TILE=64, STAGES=2),
    "wgmma,bk32,s4": dict(W, TOPK_TILE=32, STAGES=4),
    "wgmma,bk32,s3": dict(W, TOPK_TILE=32, STAGES=3),
    "wgmma,bk32,s2,overlap": dict(W, TOPK_TILE=32, STAGES=2, PIPELINE="overlap"),
    "evolve-best-fp8(wgmma,bk64,s1,overlap)": dict(W, TOPK_TILE=64, STAGES=1, KV_FORMAT="fp8_656", PIPELINE="overlap"),
    "fp8,wgmma,bk32,s4": dict(W, TOPK_TILE=32, STAGES=4, KV_FORMAT="fp8_656"),
    "fp8,wgmma,bk32,s1,overlap": dict(W, TOPK_TILE=32, STAGES=1, KV_FORMAT="fp8_656", PIPELINE="overlap"),
    "small:wgmma,bk32,s4,32 splits fused": dict(W, TOPK_TILE=32, STAGES=4, NUM_SPLITS=32, COMBINE="fused"),
    "small:wgmma,bk32,s4,16 splits": dict(W, TOPK_TILE=32, STAGES=4, NUM_SPLITS=16),
}
runner = WorkerRunner(Path("results/compare/kernels"), Path("results/compare/worker.log"), device="cuda", timeout_s=240)
runner.start()
rows = []
for name, p in variants.items():
    assert space.is_valid(p), (name, space.violations(p))
    res = runner.evaluate(t.request(t.render(p), p))
    wl = {w["name"]: (round(w["median_us"], 1), round(w["iqr_us"], 1)) for w in res.get("workloads") or []}
    print(f"{res['status']:<10} {name}: {json.dumps({k: v[0] for k, v in wl.items()})} {(res.get('error') or '')[:300]}", flush=True)
    rows.append({"name": name, "params": p, "status": res["status"], "resources": res.get("resources"),
                 "workloads": res.get("workloads"), "error": res.get("error")})
runner.stop()
Path(os.environ.get("OUT", "/tmp"), "cuda_compare.json").write_text(json.dumps(rows))
