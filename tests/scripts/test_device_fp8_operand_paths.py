"""scripts/device/fp8_operand_paths.py on a machine without a GPU: its three kernels build for sm_90a
without spills or warnings and with every product asynchronous; the scores' k-slot permutation is
one (each dim of a 16 once), and the permuted queries against the rows' columns in ldmatrix's order
give the same scores as the queries against the rows; the value side's byte permutation turns what
ldmatrix.trans hands a lane into one column's two rows a pair."""

from __future__ import annotations

import pytest
import torch

from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import build_without_spills, load_device_script

pytestmark = NEEDS_NVCC


def _script():
    return load_device_script("fp8_operand_paths.py")


def test_both_paths_build_without_spills_and_keep_their_products_asynchronous(tmp_path):
    script = _script()
    source, build = build_without_spills(script, tmp_path)
    assert {k.name for k in build.kernels} == set(script.KERNELS)
    # (the three-warpgroup kernel too: its registers as setmaxnreg hands them out)
    assert "wgmma.mma_async instructions are serialized" not in build.log, build.log
    assert "setmaxnreg.inc.sync.aligned.u32 192" in source and "setmaxnreg.dec.sync.aligned.u32 120" in source
    # setmaxnreg.inc waits until the CTA's pool holds what it asks for, and the pool is what the launch
    # gave (384 threads x 168): 128 + 2 x 192 hung the mixed kernel on an H200 (fifty-fourth session)
    assert script.MIXED_SCORER_REGS + 2 * script.MIXED_VALUE_REGS <= 3 * 168
    assert "warning" not in build.log.lower(), build.log  # e.g. two declarations of the dynamic shared memory
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in source
    assert "e4m3x4_to_bf16x4_scaled" in source and "endblock" not in source  # the template's conversion, its tags gone
    assert script.SMEM_BYTES <= 232448  # the per-block limit after opting in


def test_the_slot_permutation_matches_what_ldmatrix_hands_a_lane():
    script = _script()
    assert sorted(script.PERM) == list(range(16))
    # lane t of a warp holds bytes 4q..4q+3 of a 16-byte chunk (q = t % 4) in one register; wgmma's
    # A fragment puts that register's halves in k-slots (2q, 2q + 1) and (2q + 8, 2q + 9)
    for q in range(4):
        assert [script.PERM[s] for s in (2 * q, 2 * q + 1, 2 * q + 8, 2 * q + 9)] == [4 * q + i for i in range(4)]
    raw, scales, q16, qp16, p16, ref, ref_v = script.inputs(torch, torch.device("cpu"))
    values = raw.view(torch.float8_e4m3fn).double() * scales.double().repeat_interleave(128, dim=1)
    assert torch.isfinite(values).all() and (values != 0).any()
    order = torch.tensor([16 * s + script.PERM[i] for s in range(32) for i in range(16)])
    # a k-step's slot i of the rows is column order[i]; the permuted queries' slot i is dim order[i] of the queries
    by_slots = qp16.view(torch.bfloat16).double() @ values[:, order].T
    assert torch.allclose(by_slots, ref, rtol=1e-12, atol=1e-12)
    assert not torch.allclose(qp16.view(torch.bfloat16).double() @ values.T, ref)  # the permutation matters
    # the value side's reference: O^T of the 512 columns against P, P a softmax's range
    p = p16.view(torch.bfloat16).double()
    assert p.shape == (64, 64) and (p >= 0).all() and (p <= 1).all()
    assert torch.allclose(ref_v, values.T @ p.T) and ref_v.shape == (512, 64)


def test_the_value_side_regroups_ldmatrix_trans_pairs_into_one_column_two_rows():
    # what `ldmatrix.trans` hands lane t of an 8-row matrix: bytes (2g, 2g + 1) of row 2q, then of
    # row 2q + 1 (g = t / 4, q = t % 4); `prmt 0x3120` must give (row 2q, row 2q + 1) of column 2g,
    # then of column 2g + 1, each pair one bf16x2 of wgmma's A fragment (a column's two k-slots)
    source = _script().kernel_source()
    assert 'prmt.b32 %0, %1, 0, 0x3120;' in source and "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in source
    for g in range(4):
        for q in range(4):
            register = [(2 * q, 2 * g), (2 * q, 2 * g + 1), (2 * q + 1, 2 * g), (2 * q + 1, 2 * g + 1)]  # (row, col) a byte
            selector = 0x3120
            regrouped = [register[(selector >> (4 * i)) & 0xF] for i in range(4)]
            assert regrouped == [(2 * q, 2 * g), (2 * q + 1, 2 * g), (2 * q, 2 * g + 1), (2 * q + 1, 2 * g + 1)]


def test_the_check_fails_a_nan_in_any_part_of_the_sums():
    # the mixed kernel's check covers the scores and the value sums: an unwritten (NaN-poisoned)
    # sum in either must fail it, whichever comes first (max() over [error, nan] would keep the error)
    worst = _script().worst_rel_l2
    want = torch.ones(4, 4, dtype=torch.float64)
    close, poisoned = want * (1 + 1e-6), want.clone()
    poisoned[1, 2] = float("nan")
    assert worst((close, want), (close, want)) < 1e-5
    assert worst((close, want), (want * 1.5, want)) == pytest.approx(0.5)
    for pairs in (((close, want), (poisoned, want)), ((poisoned, want), (close, want))):
        result = worst(*pairs)
        assert result != result and not result < 1e-3
