"""Side-by-side timing of chosen CUDA genomes in one worker (same GPU, same call).

Usage: python3 scripts/device/time_cuda_genomes.py [VARIANTS.json] [--repeats N] [--timeout-s S]
                                                   [--old OLD.cu.j2] [--json NAME]
VARIANTS.json maps a name to gene changes from the space's defaults (without it, the list below),
or to {"genes": {...}, "edits": [[old, new], ...], "template": PATH}, each field optional
(scripts/device/variants.py says what each means): a variant with a "template" (another template,
e.g. templates/sparse_mla.gluon.j2, or an edited copy of this one) is timed once, in the same worker.
Each repeat times every variant once, in order, so the spread between repeats says what a
difference means. With --old (a former version of the template, e.g. from `git show
REV:templates/sparse_mla.cu.j2`), each variant is timed with the old and the current template in
turn. Every CUDA source is compiled first, in parallel, into the worker's cubin cache, so the
serial worker spends no device time on nvcc. A variant that times out is not tried again, nor are
later ones sharing its PIPELINE: a hung schedule would burn the timeout on each. With --reference,
each repeat first times the PyTorch reference path in the same worker on each cache format a
variant reads: bf16 as the row named "pytorch reference", FP8-656 (its path dequantizes the gathered
rows first) as "pytorch reference fp8_656", so that a table's PyTorch column for each format comes
from the same call.
Writes $OUT/NAME (default cuda_compare.json)."""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine.template import load_template, template_from_text
from evaluators.cuda_compile import CompileAhead
from evaluators.runner import WorkerRunner
from variants import load_variants, parse_variants

TEMPLATE = Path("templates/sparse_mla.cu.j2")
DEFAULT_VARIANTS = {
    "wgmma,bk64,s2": {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 2},
    "fp8,wgmma,bk64,s1,overlap": {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 1, "KV_FORMAT": "fp8_656",
                                  "PIPELINE": "overlap"},
}


def main(argv=None, default_variants=DEFAULT_VARIANTS):
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="?")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--old", type=Path, help="a former version of the template, timed beside the current one")
    ap.add_argument("--json", default="cuda_compare.json")
    ap.add_argument("--reference", action="store_true", help="also time the PyTorch reference path, each repeat")
    args = ap.parse_args(argv)
    t = load_template(TEMPLATE)
    variants = (load_variants(args.variants, t) if args.variants
                else parse_variants(default_variants, t, where="the built-in variants"))
    versions = {"new": t}
    if args.old:  # the old text, rendered with the same genes (those it does not read are ignored)
        versions = {"old": template_from_text(TEMPLATE, args.old.read_text(), t.space_path.resolve()), "new": t}
    runs = {(name, label): (tv, v.render(tv)) for name, v in variants.items()
            for label, tv in ({"new": v.template} if v.template_file else versions).items()}
    kernels = Path("results/compare/kernels")
    ahead = CompileAhead(kernels.parent / "cubins")  # the harness's cache: beside the worker's kernels
    for build in [ahead.submit(src) for tv, src in runs.values() if tv.language == "cuda"]:
        build.result()
    ahead.close()
    runner = WorkerRunner(kernels, Path("results/compare/worker.log"), device="cuda", timeout_s=args.timeout_s)
    runner.start()
    rows, hung = [], set()

    def record(rep, label, name, p, res):
        wl = {w["name"]: round(w["median_us"], 1) for w in res.get("workloads") or []}
        print(f"{rep} {label} {res['status']:<10} {name}: {json.dumps(wl)} {(res.get('error') or '')[:400]}",
              flush=True)
        rows.append({"rep": rep, "version": label, "name": name, "params": p, "status": res["status"],
                     "resources": res.get("resources"), "workloads": res.get("workloads"),
                     "error": res.get("error")})

    # the PyTorch path on each cache format the CUDA variants read (a Gluon variant reads bf16)
    formats = sorted({v.params.get("KV_FORMAT", "bf16") for v in variants.values()}, key=lambda f: f != "bf16")
    defaults = t.load_space().default_params()
    for rep in range(args.repeats):
        for fmt in formats if args.reference else ():
            name = "pytorch reference" + ("" if fmt == "bf16" else f" {fmt}")
            genes = {"KV_FORMAT": fmt}
            record(rep, "ref", name, genes, runner.evaluate(t.request(None, {**defaults, **genes},
                                                                      builtin="torch_reference")))
        for (name, label), (tv, src) in runs.items():
            p = variants[name].params
            if (label, p.get("PIPELINE")) in hung:
                continue
            res = runner.evaluate(tv.request(src, p))
            if res["status"] == "timeout":
                hung.add((label, p.get("PIPELINE")))
            record(rep, label, name, p, res)
    runner.stop()
    Path(os.environ.get("OUT", "/tmp"), args.json).write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
