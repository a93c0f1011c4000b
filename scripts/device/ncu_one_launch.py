"""Three launches of a CUDA genome on one workload (default b128_ctx32k), for ncu to profile the third
(a regex: a genome with the siblings' merge launches the entry of its split count, e.g.
sparse_mla_decode_split_s8):
    ncu --clock-control none --kernel-name regex:^sparse_mla_decode_split --launch-skip 2 --launch-count 1 \\
        --section SpeedOfLight ... python3 scripts/device/ncu_one_launch.py '{"MMA":"wgmma"}' [--batch 8] [--context 131072]
or, for a variant of a variants file (scripts/device/variants.py: genes, edits of the source, another
template text), `... ncu_one_launch.py --variants FILE.json NAME [--batch 8]`.
The genes (changes from the space's defaults) are checked against the space before anything runs."""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from engine.template import load_template
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.problem import Workload
from cuda_entry import build_entry
from variants import load_variants, parse_variants

ap = argparse.ArgumentParser()
ap.add_argument("genes", help="gene changes from the space's defaults, as JSON; with --variants, a variant's name")
ap.add_argument("--variants", help="a variants file: `genes` names one of its variants")
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--context", type=int, default=32768)
args = ap.parse_args()
template = load_template(Path("templates/sparse_mla.cu.j2"))
if args.variants:
    variants = load_variants(args.variants, template, language="cuda")
    if args.genes not in variants:
        sys.exit(f"{args.variants}: no variant named {args.genes!r}; it has {list(variants)}")
    variant = variants[args.genes]
else:
    variant = parse_variants({"genome": json.loads(args.genes)}, template, where="argv[1]", language="cuda")["genome"]
dev = torch.device("cuda", 0)
fn = build_entry(variant.render(), Path("results/ncu/cubins"), dev)
if fn is None:
    sys.exit(1)
problem = SparseMlaDecode(variant.params["KV_FORMAT"])
w = Workload(f"b{args.batch}_ctx{args.context // 1024}k", args.batch, 128, 2048, args.context)
inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(1), problem.new_pool(dev, [w]))
out, lse = problem.poisoned_outputs(w, dev)
for _ in range(3):
    problem.call(fn, inp, (out, lse))
torch.cuda.synchronize()
print("ok", problem.check(inp, (out, lse))[0])
