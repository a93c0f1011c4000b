"""DeepSeek-V3.2's 656-byte FP8 cache rows (512 e4m3 + 4 fp32 power-of-two scales + 64 bf16
RoPE values) and the fp8_656 variant of the sparse MLA problem, on the CPU."""

from __future__ import annotations

import math

import pytest
import torch

from evaluators.harness import Evaluator
from evaluators.sparse_mla import (D_V, KV_ROW_BYTES, SparseMlaDecode,
                                   dequantize_fp8_656, quantize_fp8_656, reference, torch_reference_path)

CPU = torch.device("cpu")
GROUP = 128


def scales_of(rows: torch.Tensor) -> torch.Tensor:
    return rows[:, 512:528].contiguous().view(torch.float32)  # [n, 4]


def random_rows(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 576, generator=g)
    # groups of very different magnitudes: each must get its own scale
    return x * torch.tensor([1.0, 1e-3, 37.0, 0.02] + [1.0], dtype=torch.float32).repeat_interleave(
        torch.tensor([128, 128, 128, 128, 64]))


def test_quantized_rows_are_656_bytes_in_deepseeks_layout():
    x = random_rows(300, 0)
    rows = quantize_fp8_656(x)
    assert rows.shape == (300, 656) and rows.dtype == torch.uint8 and rows.is_contiguous()
    scales = scales_of(rows)
    assert torch.isfinite(scales).all() and (scales > 0).all()
    exponents = torch.log2(scales)
    assert torch.equal(exponents, exponents.round())  # powers of two
    # bytes 528..656: the 64 RoPE values as bf16, bit for bit
    assert torch.equal(rows[:, 528:].contiguous().view(torch.bfloat16), x[:, 512:].bfloat16())
    # bytes 0..512: e4m3 of value / scale, none of them NaN (|value / scale| <= 448)
    e4m3 = rows[:, :512].contiguous().view(torch.float8_e4m3fn).float()
    assert torch.isfinite(e4m3).all() and e4m3.abs().max() <= 448


def test_dequantized_rows_are_exact_in_bf16_and_within_e4m3_rounding_of_the_input():
    x = random_rows(300, 1)
    rows = quantize_fp8_656(x)
    deq = dequantize_fp8_656(rows)
    assert deq.shape == (300, 576) and deq.dtype == torch.float32
    assert torch.equal(deq.bfloat16().float(), deq)  # e4m3 times a power of two fits bf16 exactly
    assert torch.equal(deq[:, 512:], x[:, 512:].bfloat16().float())
    nope, got = x[:, :D_V].view(300, 4, GROUP), deq[:, :D_V].view(300, 4, GROUP)
    err = (got - nope).abs()
    amax = nope.abs().amax(dim=-1, keepdim=True)
    assert (err.amax(dim=-1, keepdim=True) < amax / 16).all()  # 3 mantissa bits: half an ulp is 1/16
    # per element: relative rounding of a normal e4m3 value, or half the subnormal step (2^-9 * scale)
    scale = scales_of(rows).view(300, 4, 1)
    assert (err <= nope.abs() / 16 + scale * 2.0 ** -10).all()
    assert err.max() > 0  # it did round something: the check above is not vacuous


def test_dequantize_keeps_leading_dimensions():
    rows = quantize_fp8_656(random_rows(6, 2))
    assert torch.equal(dequantize_fp8_656(rows.view(2, 3, 656)), dequantize_fp8_656(rows).view(2, 3, 576))


@pytest.mark.parametrize("amax, exponent", [(1.0, -8), (448.0, 0), (449.0, 1), (0.5, -9), (3.0, -7),
                                            (1e-6, -13), (0.0, -13)])
def test_group_scale_is_two_to_the_ceil_of_log2_amax_over_448(amax, exponent):
    # 1 / 448 = 2^-8.8: the scale 2^-8 makes the largest value 256, the e4m3 range ends at 448
    x = torch.zeros(1, 576)
    x[0, 0:128] = torch.linspace(-amax / 2, amax / 2, 128)
    x[0, 77] = -amax                       # the group's amax, negative
    x[0, 128:256] = 1.0                    # the other groups: amax 1 -> 2^-8
    x[0, 256:384] = torch.linspace(0, 1, 128)
    x[0, 384:512] = -1.0
    rows = quantize_fp8_656(x)
    assert scales_of(rows).tolist() == [[2.0 ** exponent, 2.0 ** -8, 2.0 ** -8, 2.0 ** -8]]
    deq = dequantize_fp8_656(rows)[0]
    assert float(deq[77]) == pytest.approx(-amax, rel=1 / 16, abs=1e-30)
    assert torch.equal(deq[128:256], torch.ones(128)) and torch.equal(deq[384:512], -torch.ones(128))
    if exponent != -13:  # not clamped: the amax lands in the top binade of e4m3 (256..448)
        e4m3 = rows[0, :128].contiguous().view(torch.float8_e4m3fn).float()
        assert 224 <= float(e4m3.abs().max()) <= 448


def test_a_zero_group_dequantizes_to_zeros():
    x = random_rows(2, 3)
    x[:, 256:384] = 0.0
    deq = dequantize_fp8_656(quantize_fp8_656(x))
    assert torch.equal(deq[:, 256:384], torch.zeros(2, 128))


# -- the fp8_656 problem -----------------------------------------------------------------------------
FP8 = SparseMlaDecode("fp8_656")
BF16 = SparseMlaDecode("bf16")


@pytest.fixture(scope="module")
def fp8_pool():
    return FP8.new_pool(CPU)


def test_the_fp8_pool_holds_656_byte_rows_that_dequantize_to_finite_values(fp8_pool):
    assert fp8_pool.dtype == torch.uint8 and fp8_pool.dim() == 2 and fp8_pool.shape[1] == 656
    shapes = FP8.workloads("cpu") + FP8.verify_shapes("cpu")
    assert fp8_pool.shape[0] == FP8.pool_rows(shapes)
    sample = dequantize_fp8_656(fp8_pool[:: max(1, fp8_pool.shape[0] // 512)])
    assert torch.isfinite(sample).all() and sample.abs().amax() > 0
    assert FP8.pool_key != BF16.pool_key  # the harness keeps one pool per format
    assert FP8.row_bytes == KV_ROW_BYTES["fp8_656"] == 656


@pytest.mark.parametrize("problem", [FP8, BF16], ids=["fp8_656", "bf16"])
def test_a_pool_for_chosen_workloads_holds_their_rows_only(problem):
    w = FP8.workloads("cpu")[0]
    pool = problem.new_pool(CPU, [w])
    assert pool.shape == (problem.pool_rows([w]), problem.row_bytes // pool.element_size())
    assert pool.shape[0] < problem.pool_rows(problem.workloads("cpu") + problem.verify_shapes("cpu"))
    inp = problem.make_inputs(w, torch.Generator().manual_seed(3), pool)  # the workload fits in it
    assert inp.kv_cache.shape[0] * 64 <= pool.shape[0]


@pytest.mark.parametrize("w", FP8.verify_shapes("cpu"), ids=lambda w: w.name)
def test_pytorch_path_on_the_fp8_cache_passes_the_float64_check(fp8_pool, w):
    inp = FP8.make_inputs(w, torch.Generator().manual_seed(7), fp8_pool)
    blocks = math.ceil(w.context / 64) * w.batch
    assert inp.kv_cache.shape == (blocks, 64, 656) and inp.kv_cache.dtype == torch.uint8
    assert inp.q.shape == (w.batch, w.heads, 576) and inp.indices.shape == (w.batch, w.topk)
    outputs = FP8.poisoned_outputs(w, CPU)
    FP8.call(torch_reference_path, inp, outputs)
    failure, errors = FP8.check(inp, outputs)
    assert failure is None, failure
    assert errors["out_rel_l2"] < 1e-2 and errors["lse_rel_l2"] < 1e-4


def test_the_fp8_cache_moves_496_fewer_bytes_per_gathered_row():
    for device_kind in ("cpu", "cuda"):
        for w in BF16.workloads(device_kind) + BF16.verify_shapes(device_kind):
            saved = BF16.bytes_moved(w) - FP8.bytes_moved(w)
            assert saved == SparseMlaDecode.valid_rows(w) * (1152 - 656) * w.batch > 0, w
            assert FP8.flops(w) == BF16.flops(w)


def test_an_unknown_cache_format_is_refused_by_name():
    with pytest.raises(ValueError, match="nvfp4"):
        SparseMlaDecode("nvfp4")


def test_forgetting_the_scales_fails_the_check(fp8_pool):
    """The PyTorch path run on a copy of the cache whose scales all read 1.0 (the e4m3 values used
    unscaled) must fail the check against the real cache."""
    w = FP8.verify_shapes("cpu")[0]
    inp = FP8.make_inputs(w, torch.Generator().manual_seed(8), fp8_pool)
    unscaled = inp.kv_cache.clone()
    unscaled[..., D_V:D_V + 16] = torch.ones(4).view(torch.uint8)
    outputs = FP8.poisoned_outputs(w, CPU)
    torch_reference_path(inp.q, unscaled, inp.indices, inp.sm_scale, *outputs)
    failure, _ = FP8.check(inp, outputs)
    assert failure is not None and "out of tolerance" in failure
    # the same mistake cannot hide behind the bf16 reference either: the checked cache is the fp8 one
    ref_out, _ = reference(inp)
    assert not torch.allclose(outputs[0].double(), ref_out, atol=1e-2)


# -- the PyTorch path through the harness (in process, CPU) ----------------------------------------
def test_harness_verifies_the_pytorch_path_on_the_fp8_problem(tmp_path):
    evaluator = Evaluator(CPU, tmp_path / "kernels")
    result = evaluator.evaluate({"problem": "sparse_mla_decode", "language": "cuda", "builtin": "torch_reference",
                                 "problem_args": {"kv_format": "fp8_656"}, "seed": 4, "bench": False})
    assert result["status"] == "ok", result["error"]
    assert [v["shape"] for v in result["verify"]] == [w.name for w in FP8.verify_shapes("cpu")]
    assert set(evaluator._pools) == {FP8.pool_key}
    assert evaluator._pools[FP8.pool_key].shape[1] == 656


def test_harness_runs_the_canary_request_the_cli_sends_after_a_fault(tmp_path):
    canary = {"problem": "sparse_mla_decode", "builtin": "torch_reference", "seed": 5, "bench": False}
    result = Evaluator(CPU, tmp_path / "kernels").evaluate(canary)  # the form engine/cli.py builds
    assert result["status"] == "ok", result["error"]
