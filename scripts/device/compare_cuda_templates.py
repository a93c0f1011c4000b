"""Old against new CUDA template on chosen wgmma genomes, in one worker and one call, twice.

Usage (on the GPU machine): git show REV:templates/sparse_mla.cu.j2 > old.cu.j2 first, then
    python3 scripts/device/compare_cuda_templates.py old.cu.j2
Writes $OUT/cuda_compare2.json."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
from engine.template import load_template, template_from_text
from evaluators.runner import WorkerRunner

new = load_template(Path("templates/sparse_mla.cu.j2"))
old = template_from_text(Path("templates/sparse_mla.cu.j2"), Path(sys.argv[1]).read_text(),
                         Path("genomes/sparse_mla_cuda.toml").resolve())
space = new.load_space()
W = dict(space.default_params(), MMA="wgmma")
genomes = {"bk64,s2": dict(W, TOPK_TILE=64, STAGES=2), "bk64,s2,splits1": dict(W, TOPK_TILE=64, STAGES=2, NUM_SPLITS=1),
           "bk32,s4": dict(W, TOPK_TILE=32, STAGES=4), "bk64,s2,overlap": dict(W, TOPK_TILE=64, STAGES=2, PIPELINE="overlap")}
runner = WorkerRunner(Path("results/compare2/kernels"), Path("results/compare2/worker.log"), device="cuda", timeout_s=240)
runner.start()
rows = []
for rep in range(2):  # old, new, old, new: the spread between repeats says what a difference means
    for name, p in genomes.items():
        for label, t in (("old", old), ("new", new)):
            res = runner.evaluate(t.request(t.render(p), p))
            wl = {w["name"]: round(w["median_us"], 1) for w in res.get("workloads") or []}
            print(f"{rep} {label} {res['status']:<10} {name}: b1 {wl.get('b1_ctx4k')} b8 {wl.get('b8_ctx4k')} "
                  f"b64 {wl.get('b64_ctx4k')} b128 {wl.get('b128_ctx4k')} {(res.get('error') or '')[:200]}", flush=True)
            rows.append({"rep": rep, "version": label, "name": name, "params": p, "status": res["status"],
                         "resources": res.get("resources"), "workloads": res.get("workloads")})
runner.stop()
Path(os.environ.get("OUT", "/tmp"), "cuda_compare2.json").write_text(json.dumps(rows))
