"""Time the Triton template's best genomes (per workload, from the archived sweep) in one worker,
so that the CUDA run's figures have the Triton figures of the same call beside them.
Usage: python3 scripts/device/time_triton_best.py [GPU]; writes $OUT/triton_best.json."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
from engine.template import load_template
from engine.store.reader import read_records
from evaluators.runner import WorkerRunner

gpu = int(sys.argv[1]) if len(sys.argv) > 1 else None
t = load_template(Path("templates/sparse_mla.triton.j2"))
rows = [r for r in read_records(Path("docs/runs/h200-sweep-slice-20261130")) if r["kind"] == "genome" and r["status"] == "ok"]
best = {}
for r in rows:
    for w in r["workloads"]:
        if w["name"] not in best or w["median_us"] < best[w["name"]][0]:
            best[w["name"]] = (w["median_us"], r["genome_id"], r["params_json"])
ids = {}
for name, (_, gid, pj) in best.items():
    ids.setdefault(gid, pj)
runner = WorkerRunner(Path("results/triton-best/kernels"), Path("results/triton-best/worker.log"), device="cuda",
                      timeout_s=300, gpu_index=gpu)
runner.start()
out = []
for gid, pj in ids.items():
    p = json.loads(pj)
    res = runner.evaluate(t.request(t.render(p), p))
    out.append({"genome_id": gid, "params": p, "status": res["status"], "workloads": res.get("workloads")})
    print(gid, res["status"], {w["name"]: round(w["median_us"], 1) for w in res.get("workloads") or []}, flush=True)
runner.stop()
Path(os.environ.get("OUT", "/tmp"), "triton_best.json").write_text(json.dumps(out))
