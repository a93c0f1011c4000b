"""GPU tier: PDL genomes called back to back in one CUDA graph, each call on its own inputs, as a
decode step's graph runs them. With PDL every split kernel is a programmatic dependent of the
previous call's combine kernel, which lets it launch at its start; the split kernel waits for it
(griddepcontrol.wait) before it overwrites the partials (the caching allocator gives consecutive
calls the same partial buffers) or reads its inputs. Every call's outputs are poisoned before the
replay and checked against the float64 reference after it: the chained launches run and every
call is right. That the wait comes before the first global access is checked on the text, by the
cpu tier (a missing wait would seldom show here: the next split's first stores come microseconds
after the previous combine's last reads)."""

from __future__ import annotations

import pytest

from tests.gpu._cuda_setup import load_entry, replay_checked, seesaw_params


@pytest.mark.gpu
@pytest.mark.parametrize("genes", [
    {"SCHEDULE": "scorer", "TOPK_TILE": 32, "Q_LOAD": "tma", "PARTIALS": "bf16", "PDL": True},
    {"SCHEDULE": "scorer", "TOPK_TILE": 32, "Q_LOAD": "tma", "PARTIALS": "bf16", "PDL": True, "ROW_STORE": "staged"},
    {"TOPK_TILE": 64, "PARTIALS": "bf16", "PDL": True, "VALUE_SPLIT": 2},
    {"MMA": "mma_sync", "PIPELINE": "serial", "STAGES": 2, "GATHER_LANES": 4, "PDL": True},
], ids=["scorer", "scorer-staged-rows", "lockstep-64rows-value-split", "mma_sync"])
@pytest.mark.parametrize("batch", [1, 8, 64])
def test_pdl_calls_chained_in_one_graph_are_each_correct(tmp_path, genes, batch):
    import torch

    from evaluators.problem import Workload

    _, _, entry, problem, dev = load_entry(seesaw_params(**genes), tmp_path)
    w = Workload(f"b{batch}", batch, 128, 2048, 8192, invalid_fraction=0.1)
    pool = problem.new_pool(dev, [w])
    sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(40 + i), pool), problem.poisoned_outputs(w, dev))
            for i in range(6)]
    for inp, out in sets:  # the first launches (module loading) outside the graph
        problem.call(entry, inp, out)
    replay_checked(problem, entry, sets, dev)
