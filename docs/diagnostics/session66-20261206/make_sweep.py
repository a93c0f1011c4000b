"""Writes variants_sweep.json: the scorer schedule's small-batch genes crossed (SPLIT_STEP x
VALUE_ISSUE x PAIRING x FIRST_GATHER) on the bars' bf16 and FP8-656 genomes (i8 partials, the
siblings' merge, PDL), with each base genome timed three times (first, middle, last) to bound the
call's drift. Sixty-sixth session; run: python3 docs/diagnostics/session66-20261206/make_sweep.py"""
import itertools
import json
from pathlib import Path

here = Path(__file__).parent
bars = json.loads((here.parent / "session63-20261206" / "variants_bars.json").read_text())
bases = {"bf16": bars["pair i8 (bf16)"]["genes"], "fp8": bars["fp8 small"]["genes"]}
axes = {"SPLIT_STEP": ["pair", "tile"], "VALUE_ISSUE": ["at_p", "after_scores", "after_softmax"],
        "PAIRING": ["fixed", "adaptive"], "FIRST_GATHER": ["all", "pair_first", "tile_first"]}
short = {"pair": "p", "tile": "t", "at_p": "ap", "after_scores": "as", "after_softmax": "ax", "fixed": "f",
         "adaptive": "a", "all": "all", "pair_first": "pf", "tile_first": "tf"}
variants = {}
for fmt, base in bases.items():
    combos = [dict(zip(axes, values)) for values in itertools.product(*axes.values())]
    combos = [c for c in combos if any(base.get(k) != v for k, v in c.items())]
    variants[f"{fmt} base 1"] = {"genes": base}
    for i, c in enumerate(combos):
        if i == len(combos) // 2:
            variants[f"{fmt} base 2"] = {"genes": base}
        variants[f"{fmt} " + "-".join(short[v] for v in c.values())] = {"genes": {**base, **c}}
    variants[f"{fmt} base 3"] = {"genes": base}
(here / "variants_sweep.json").write_text(json.dumps(variants, indent=1) + "\n")
print(len(variants), "variants")
