"""scripts/device/fp8_wgmma_precision.py on a machine without a GPU: its kernel builds for sm_90a
with FP8 products that ptxas keeps asynchronous, and its host side (the queries' hi/lo split, the
blocks' sums to scores, the softmax) passes the harness's tolerances with exact sums and fails with
hi alone, on inputs drawn as the harness draws them."""

from __future__ import annotations

import torch

from evaluators import sparse_mla as M
from evaluators.problem import Workload
from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import build_without_spills, load_device_script


def _script():
    return load_device_script("fp8_wgmma_precision.py")


@NEEDS_NVCC
def test_the_kernel_builds_with_fp8_products_and_nothing_for_the_compiler_to_note(tmp_path):
    source, build = build_without_spills(_script(), tmp_path)
    assert [k.name for k in build.kernels] == ["fp8_block_sums"]
    assert "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3" in source
    assert build.notes() == (), build.notes()  # no wgmma serialized, no warning


def _outputs(script, inp, which: str):
    """out [1, 128, 512] and lse [1, 128] of batch element 0 from block sums of `which` kind."""
    k8, scales, rope, values = script.gathered_rows(inp.kv_cache.view(-1, 656)[inp.indices[0].long()])
    out = torch.empty(1, 128, 512, dtype=torch.bfloat16)
    lse = torch.empty(1, 128)
    for hb in range(2):
        q = inp.q[0, 64 * hb:64 * hb + 64].double()
        hi, lo, s_q = script.split_queries(q[:, :512])
        if which == "exact":
            sums = script.exact_block_sums(hi, k8) + script.exact_block_sums(lo, k8)
        elif which == "hi":
            sums = script.exact_block_sums(hi, k8)
        else:
            sums = script.model_block_sums([hi, lo], k8, 13, chain=True)
        s = script.scores_from_block_sums(sums, s_q, scales, q[:, 512:], rope, inp.sm_scale)
        out[0, 64 * hb:64 * hb + 64], lse[0, 64 * hb:64 * hb + 64] = script.outputs_from_scores(s, values)
    return out, lse


def test_the_host_side_passes_with_exact_sums_and_fails_with_hi_alone():
    script = _script()
    problem = M.SparseMlaDecode("fp8_656")
    w = Workload("precision", 1, 128, 2048, 4096)
    inp = problem.make_inputs(w, torch.Generator().manual_seed(3), problem.new_pool(torch.device("cpu"), [w]))
    ref_out, ref_lse = M.reference(inp)
    ref_out, ref_lse = ref_out[:1], ref_lse[:1]
    out, lse = _outputs(script, inp, "exact")
    assert M.compare("out", out, ref_out, M.OUT_TOL, row_scaled=True) is None
    assert M.compare("lse", lse, ref_lse, M.LSE_TOL) is None
    hi_out, _ = _outputs(script, inp, "hi")
    assert "out of tolerance" in (M.compare("out", hi_out, ref_out, M.OUT_TOL, row_scaled=True) or "")
    _, model_lse = _outputs(script, inp, "model13")  # the 13-bit truncation model moves lse further
    assert M.rel_l2(model_lse, ref_lse) > 10 * M.rel_l2(lse, ref_lse)
    # hi + lo is a bf16 query exactly but for its head's smallest values (below 1/128 of its
    # largest, where lo falls among e4m3's subnormals), and those within 2^-10 of the largest
    q = inp.q[0, :64, :512].double()
    hi, lo, s = script.split_queries(q)
    back, amax = (hi.double() + lo.double()) / s, q.abs().amax(dim=-1, keepdim=True)
    large = q.abs() >= amax / 128
    assert torch.equal(back[large], q[large]) and large.double().mean() > 0.95
    assert bool(((back - q).abs() <= amax * 2.0 ** -10).all())
