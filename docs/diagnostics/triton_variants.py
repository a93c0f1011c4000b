"""Diagnostics: compile chosen genomes (and source variants), report regs/spills/smem and
whether the gather is pipelined (async copies) and on wgmma; time them through the harness."""
import json, os, re, subprocess, sys, time, glob
from pathlib import Path
sys.path.insert(0, os.getcwd())
OUT = Path(os.environ.get("OUT", "/tmp"))
os.environ["TRITON_CACHE_DIR"] = "/tmp/tcache"
from engine.template import load_template
from evaluators.runner import WorkerRunner
t = load_template(Path("templates/sparse_mla.triton.j2")); s = t.load_space()
best = {"COMBINE":"separate","HEADS_PER_PROGRAM":64,"NUM_SPLITS":1,"NUM_STAGES":2,"NUM_WARPS":8,"PREFETCH_INDICES":False,"TOPK_TILE":64,"MASK_INVALID_ROWS":True,"SCORE_LAYOUT":"heads_by_rows","PROGRAM_SPLIT":"heads"}
variants = json.loads(open(os.environ.get("VARIANTS", ".scratch/variants.json")).read()) if Path(os.environ.get("VARIANTS", ".scratch/variants.json")).exists() else []
jobs = [("best", t.render(best))]
for name, params, edits in variants:
    src = t.render(dict(best, **params))
    for a, b in edits:
        assert a in src, (name, a)
        src = src.replace(a, b)
    jobs.append((name, src))
r = WorkerRunner(Path("/tmp/kgw"), OUT / "worker.log", device="auto", timeout_s=300)
r.start()
report = []
for name, src in jobs:
    before = set(glob.glob("/tmp/tcache/*/*.cubin"))
    res = r.evaluate({"problem": t.problem, "language": "triton", "entry": t.entry, "source": src, "seed": 2})
    new = sorted(set(glob.glob("/tmp/tcache/*/*.cubin")) - before)
    info = []
    for cubin in new:
        d = os.path.dirname(cubin)
        ttgir = "".join(open(f).read() for f in glob.glob(d + "/*.ttgir"))
        meta = json.load(open(glob.glob(d + "/*.json")[0])) if glob.glob(d + "/*.json") else {}
        res_use = subprocess.run(["cuobjdump", "-res-usage", cubin], capture_output=True, text=True).stdout
        sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
        info.append({"kernel": meta.get("name"), "shared": meta.get("shared"),
                     "async_copy": ttgir.count("async_copy_global_to_local"), "wgmma": ttgir.count("warp_group_dot"),
                     "HGMMA": sass.count("HGMMA"), "LDGSTS": sass.count("LDGSTS"), "LDG": sass.count("LDG."),
                     "STL": sass.count("STL"), "res": " ".join(re.findall(r"REG:\d+|STACK:\d+|SHARED:\d+|LOCAL:\d+", res_use))})
    wl = {w["name"]: round(w["median_us"], 1) for w in res.get("workloads", [])}
    line = f"{name:28s} {res['status']:12s} b1={wl.get('b1_ctx32k')} b8={wl.get('b8_ctx32k')} b64={wl.get('b64_ctx32k')} b128={wl.get('b128_ctx32k')} {(res.get('error') or '')[:200]}"
    print(line, flush=True)
    for i in info: print("    ", i, flush=True)
    report.append({"name": name, "result": res, "info": info})
(OUT / "diag.json").write_text(json.dumps(report, indent=1))
r.stop()
