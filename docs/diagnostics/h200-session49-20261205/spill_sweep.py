# The FP8 scorer genomes (SPLIT_STEP x VALUE_ISSUE x PAIRING x FIRST_GATHER x PARTIALS) compiled
# here with nvcc, their split kernel's registers and spill bytes printed (forty-ninth session):
#   python3 docs/diagnostics/h200-session49-20261205/spill_sweep.py TEMPLATE OUT.json
import itertools, json, subprocess, sys, concurrent.futures as cf
tpl, out = sys.argv[1], sys.argv[2]
base = {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "STAGES": 2, "Q_LOAD": "tma", "TOPK_TILE": 32,
        "GATHER_LANES": 8, "PDL": True, "COMBINE": "siblings", "KV_FORMAT": "fp8_656"}
genomes = []
for ss, vi, pr, fg, pa in itertools.product(["pair", "tile"], ["at_p", "after_scores", "after_softmax"], ["fixed", "adaptive"],
                                            ["pair_first", "tile_first", "all"], ["i8", "bf16"]):
    genomes.append(dict(base, SPLIT_STEP=ss, VALUE_ISSUE=vi, PAIRING=pr, FIRST_GATHER=fg, PARTIALS=pa))
def build(gn):
    r = subprocess.run([sys.executable, "-m", "engine", "compile", tpl, "--genome", json.dumps(gn), "--cache", "/tmp/kg-spill-sweep-cache"], capture_output=True, text=True)
    o = r.stdout
    try:
        d = json.loads(o[o.index("{"):])
        k = [k for k in d["kernels"] if k["name"].endswith("split")][0]
        return gn, (k["registers"], k["spill_store_bytes"], k["spill_load_bytes"]), d.get("error")
    except Exception as e:
        return gn, None, (o + r.stderr)[-500:]
with cf.ThreadPoolExecutor(2) as ex:
    res = list(ex.map(build, genomes))
json.dump([[g, f, e] for g, f, e in res], open(out, "w"))
for g, f, e in res:
    print(g["SPLIT_STEP"], g["VALUE_ISSUE"], g["PAIRING"], g["FIRST_GATHER"], g["PARTIALS"], f, (e or "")[:100])
