"""What seven tiles a CTA would give B=7 (timing only, wrong results by design): B=7 takes 8 splits
of 8 tiles a (token, head block) today, and no split plan of whole groups gives every CTA 7 (64
tiles in 10 splits would make 140 CTAs on 132 SMs). A plan whose CTAs cross from one group into
the next (stream-K, as FlashMLA's scheduler metadata does) could. Before building one, this bounds
it: the launcher's split plan is replaced for marked genomes so that each CTA takes 7 tiles (224
rows) and the rows past them are dropped:
  NUM_SPLITS = 16 marks 9 splits of 224 rows at B=7 (126 CTAs, every CTA 7 tiles, the
    siblings' merge over 9, which the variant's edit gives merge_range);
  NUM_SPLITS = 8 marks 8 splits of 224 rows at B=7 and B=8 (as today's CTAs, one tile fewer).
Other batches and genomes keep the launcher's plan. Runs scripts/device/time_in_graph.py with the
same arguments. Usage: python3 knockout_seven_tiles.py VARIANTS.json [time_in_graph options]"""
import os
import runpy
import sys

sys.path.insert(0, os.getcwd())  # the repository root, as the device scripts run
import evaluators.sparse_mla_cuda as launcher

KNOCKOUT_PLANS = {(16, 7): (9, 224), (8, 7): (8, 224), (8, 8): (8, 224)}  # (marker, batch): (splits, rows)
launcher_plan = launcher.split_plan
announced = set()  # (marker, batch) pairs whose plan was printed


def seven_tile_plan(contract, batch, heads, topk, sm_count, *args, **kwargs):
    plan = KNOCKOUT_PLANS.get((contract.num_splits, batch))
    if plan is not None and (contract.num_splits, batch) not in announced:
        announced.add((contract.num_splits, batch))
        print(f"knockout plan at B={batch}: {plan[0]} splits of {plan[1]} rows (of {topk})", flush=True)
    if plan is not None:
        return plan
    return launcher_plan(contract, batch, heads, topk, sm_count, *args, **kwargs)


launcher.split_plan = seven_tile_plan  # make_entry's launches look it up at call time
sys.argv = ["scripts/device/time_in_graph.py", *sys.argv[1:]]
runpy.run_path("scripts/device/time_in_graph.py", run_name="__main__")
