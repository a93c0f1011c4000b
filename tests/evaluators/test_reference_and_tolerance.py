"""The float64 reference and the comparison that every candidate must pass."""

from __future__ import annotations

import math

import torch

from evaluators.problem import Workload
from evaluators.sparse_mla import (LSE_TOL, OUT_TOL, SparseMlaDecode, compare, make_inputs, reference,
                                   torch_reference_path)

PROBLEM = SparseMlaDecode()


def inputs(w: Workload, seed: int):
    pool = torch.empty(PROBLEM.pool_rows([w]), 576, dtype=torch.bfloat16).normal_()
    return make_inputs(w, torch.Generator().manual_seed(seed), torch.device("cpu"), pool)


def test_reference_matches_a_per_token_softmax_written_out_longhand():
    w = Workload("t", 2, 4, 64, 300, invalid_fraction=0.2)
    inp = inputs(w, 0)
    out, lse = reference(inp)
    kv = inp.kv_cache.view(-1, 576).double()
    for b in range(2):
        rows = kv[[int(i) for i in inp.indices[b] if i >= 0]]
        for h in range(4):
            logits = [float(inp.q[b, h].double() @ r) * inp.sm_scale for r in rows]
            m = max(logits)
            z = sum(math.exp(x - m) for x in logits)
            assert abs(float(lse[b, h]) - (m + math.log(z))) < 1e-9
            want = sum(math.exp(x - m) / z * r[:512] for x, r in zip(logits, rows))
            assert torch.allclose(out[b, h], want, atol=1e-9)


def test_inputs_are_fresh_for_each_seed_and_never_zero():
    w = Workload("t", 2, 4, 64, 500)
    a, b = inputs(w, 1), inputs(w, 2)
    assert not torch.equal(a.q, b.q) and not torch.equal(a.indices, b.indices)
    assert a.q.abs().sum() > 0 and a.kv_cache.abs().sum() > 0


def test_every_gathered_row_is_redrawn_on_a_reused_pool():
    w = Workload("t", 2, 4, 64, 500)
    pool = torch.empty(PROBLEM.pool_rows([w]), 576, dtype=torch.bfloat16).normal_()
    first = make_inputs(w, torch.Generator().manual_seed(1), torch.device("cpu"), pool)
    before = pool.clone()
    second = make_inputs(w, torch.Generator().manual_seed(2), torch.device("cpu"), pool)
    rows = second.indices[second.indices >= 0].long()
    assert (pool[rows] != before[rows]).any(dim=1).all()  # no gathered row keeps old contents
    assert first.kv_cache.data_ptr() == second.kv_cache.data_ptr()  # one buffer, redrawn


def test_indices_are_distinct_tokens_of_the_context_and_short_contexts_pad_with_minus_one():
    w = Workload("t", 3, 4, 256, 100, empty_rows=1)
    idx = inputs(w, 3).indices
    assert (idx[0] == -1).all()
    for row in idx[1:]:
        valid = row[row >= 0]
        assert len(valid) == 100 and len(set(valid.tolist())) == 100
        assert (row[100:] == -1).all()


def test_empty_rows_give_zero_output_and_infinite_lse():
    w = Workload("t", 2, 4, 64, 300, empty_rows=1)
    out, lse = reference(inputs(w, 4))
    assert (out[0] == 0).all() and torch.isinf(lse[0]).all() and (lse[0] > 0).all()
    assert torch.isfinite(lse[1]).all()


def test_pytorch_reference_path_passes_and_a_perturbed_output_fails():
    w = Workload("t", 3, 16, 256, 1000, invalid_fraction=0.1, empty_rows=1)
    inp = inputs(w, 5)
    ref_out, ref_lse = reference(inp)
    out = torch.full((3, 16, 512), float("nan"), dtype=torch.bfloat16)
    lse = torch.full((3, 16), float("nan"))
    torch_reference_path(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse)
    assert compare("out", out, ref_out, OUT_TOL, row_scaled=True) is None
    assert compare("lse", lse, ref_lse, LSE_TOL) is None
    out[1, 3, 7] += 0.25
    assert "out of tolerance" in compare("out", out, ref_out, OUT_TOL, row_scaled=True)
    lse[2, 0] += 0.01
    assert "out of tolerance" in compare("lse", lse, ref_lse, LSE_TOL)


def test_nan_never_passes_and_infinities_must_sit_where_the_reference_has_them():
    ref = torch.tensor([[1.0, float("inf")], [2.0, 3.0]], dtype=torch.float64)
    assert "NaN" in compare("x", torch.tensor([[1.0, float("inf")], [float("nan"), 3.0]]), ref, LSE_TOL)
    assert "infinities" in compare("x", torch.tensor([[1.0, 5.0], [2.0, 3.0]]), ref, LSE_TOL)
    assert compare("x", ref.float(), ref, LSE_TOL) is None


def test_flop_and_byte_counts_follow_the_fact_sheet():
    w = Workload("b128", 128, 128, 2048, 131072)
    assert PROBLEM.flops(w) == 128 * 2176 * 128 * 2048
    per_token = 2048 * 1152 + 128 * 576 * 2 + 128 * 512 * 2 + 2048 * 4 + 128 * 4
    assert PROBLEM.bytes_moved(w) == 128 * per_token


def test_default_gpu_workloads_cover_every_batch_and_context():
    names = {(w.batch, w.context) for w in PROBLEM.workloads("cuda")}
    assert names == {(b, c) for b in (1, 8, 64, 128) for c in (4096, 32768, 131072)}
    assert all(w.heads == 128 and w.topk == 2048 for w in PROBLEM.workloads("cuda"))
    largest = max(PROBLEM.workloads("cuda"), key=lambda w: w.batch * w.context)
    assert largest in PROBLEM.verify_shapes("cuda")
    # verification also reaches a batch between the timed ones (B=5: a split count the timed
    # batches never take), with invalid slots
    odd = [w for w in PROBLEM.verify_shapes("cuda") if w.batch not in (1, 8, 64, 128) and w.invalid_fraction > 0]
    assert any(w.batch == 5 for w in odd), odd


def test_timing_guards_decide_on_the_physical_floor_and_the_device_wide_window():
    from evaluators.guards import below_roofline, hidden_work

    assert below_roofline(40.0, 46.2) and not below_roofline(45.0, 46.2)  # 5% slack
    assert not below_roofline(1.0, None)  # no hardware sheet, no floor
    assert not hidden_work(170.0, 175.0) and not hidden_work(16.0, 60.0)
    assert hidden_work(16.0, 400.0) and not hidden_work(16.0, None)
