"""Writes variants2.json: the scorer's softmax made leaner, as edits of the rendered source of
the best small-batch genome ("tile held first"), cumulatively:
  ex2    the exponentials as ex2.approx.ftz.f32 (one MUFU.EX2; exp2f's ex2.approx.f32 keeps
         denormal results, which costs a compare and two multiplies around each one)
  vote   the quad's shuffles for the rows' maxima only where some row's maximum could pass
         the maximum in use by RESCALE_SLACK (a warp vote): bit-identical m_t
  tree   the per-thread maxima and row sums as trees instead of chains
  flags  each tile's row flags read from shared memory right after its scores are issued, not
         after the wait for them (the shared loads' latency then off the softmax's path)"""
import json, sys

base = {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "STAGES": 2, "Q_LOAD": "tma", "TOPK_TILE": 32,
        "GATHER_LANES": 8, "PARTIALS": "bf16", "PDL": True, "COMBINE": "siblings", "SPLIT_STEP": "tile",
        "VALUE_ISSUE": "after_scores", "FIRST_GATHER": "pair_first"}

EX2 = [
    ["// P = 2^(s - m_use) of this thread's two rows as bf16 pairs",
     "__device__ __forceinline__ float ex2_ftz(float x) {\n"
     "  float y;\n"
     "  asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n"
     "  return y;\n"
     "}\n"
     "// P = 2^(s - m_use) of this thread's two rows as bf16 pairs"],
    ["    const float p0 = exp2f(s[j * 4 + 0] - m_use[0]), p1 = exp2f(s[j * 4 + 1] - m_use[0]);\n"
     "    const float p2 = exp2f(s[j * 4 + 2] - m_use[1]), p3 = exp2f(s[j * 4 + 3] - m_use[1]);",
     "    const float p0 = ex2_ftz(s[j * 4 + 0] - m_use[0]), p1 = ex2_ftz(s[j * 4 + 1] - m_use[0]);\n"
     "    const float p2 = ex2_ftz(s[j * 4 + 2] - m_use[1]), p3 = ex2_ftz(s[j * 4 + 3] - m_use[1]);"],
    ["      l_run[hf] *= exp2f(m_l[hf] - m_t[hf]);", "      l_run[hf] *= ex2_ftz(m_l[hf] - m_t[hf]);"],
    ["        alpha[hf] = m[hf] > m_o[hf] ? exp2f(m_o[hf] - m[hf]) : 1.f;",
     "        alpha[hf] = m[hf] > m_o[hf] ? ex2_ftz(m_o[hf] - m[hf]) : 1.f;"],
]

VOTE = [
    ["  float tmax[2], m_use[2];\n  scale_mask_max(s, mask, scale_log2, lane, tmax);\n",
     "  float tmax[2], m_use[2];\n  scale_mask_local(s, mask, scale_log2, lane, tmax);\n"
     "  // the rows' maxima over the quad only where one may pass m_prev by the slack (m_t is then\n"
     "  // m_prev, whatever the maxima): one vote of the warp instead of four shuffles\n"
     "  if (__any_sync(0xffffffffu, tmax[0] > m_prev[0] + RESCALE_SLACK || tmax[1] > m_prev[1] + RESCALE_SLACK)) {\n"
     "#pragma unroll\n"
     "    for (int hf = 0; hf < 2; ++hf) {\n"
     "      tmax[hf] = fmaxf(tmax[hf], __shfl_xor_sync(0xffffffffu, tmax[hf], 1));\n"
     "      tmax[hf] = fmaxf(tmax[hf], __shfl_xor_sync(0xffffffffu, tmax[hf], 2));\n"
     "    }\n"
     "  } else {\n"
     "    tmax[0] = m_prev[0];\n"
     "    tmax[1] = m_prev[1];\n"
     "  }\n"],
]


def local_fn(tree: bool, flags: bool = False) -> str:
    # the scaling loop, each key kept (tree) or folded into the thread's maxima at once (chain)
    keep = "        v[hf][j * 2 + e] = x;\n" if tree else "        tmax[hf] = fmaxf(tmax[hf], x);\n"
    body = (
        ("  float v[2][BK / 4];\n" if tree else "  tmax[0] = tmax[1] = -INFINITY;\n") +
        "#pragma unroll\n"
        "  for (int j = 0; j < BK / 8; ++j) {\n"
        "#pragma unroll\n"
        "    for (int e = 0; e < 2; ++e) {\n"
        "      const float flag = mask[j * 8 + 2 * (lane & 3) + e];\n"
        "#pragma unroll\n"
        "      for (int hf = 0; hf < 2; ++hf) {\n"
        "        float& x = s[j * 4 + hf * 2 + e];\n"
        "        x = fmaf(x, scale_log2, flag);\n" + keep +
        "      }\n"
        "    }\n"
        "  }\n")
    if tree:
        body += (
            "#pragma unroll\n"
            "  for (int hf = 0; hf < 2; ++hf) {\n"
            "#pragma unroll\n"
            "    for (int w = BK / 8; w >= 1; w /= 2)\n"
            "#pragma unroll\n"
            "      for (int i = 0; i < w; ++i) v[hf][i] = fmaxf(v[hf][i], v[hf][i + w]);\n"
            "    tmax[hf] = v[hf][0];\n"
            "  }\n")
    if flags:
        body = body.replace("mask[j * 8 + 2 * (lane & 3) + e]", "flags[j * 2 + e]")
    mask_arg = "const float (&flags)[BK / 4]" if flags else "const float* mask"
    return ("// scale_mask_max without the quad's shuffles: this thread's maxima of its two rows\n"
            "__device__ __forceinline__ void scale_mask_local(float (&s)[BK / 2], " + mask_arg + ", float scale_log2, int lane,\n"
            "                                                 float (&tmax)[2]) {\n"
            + body + "}\n")


ANCHOR = "// P = 2^(s - m_use) of this thread's two rows as bf16 pairs"

TREE_SUM = [
    ["  rowsum[0] = rowsum[1] = 0.f;\n#pragma unroll\n  for (int j = 0; j < BK / 8; ++j) {\n",
     "  float sums[2][BK / 8];\n#pragma unroll\n  for (int j = 0; j < BK / 8; ++j) {\n"],
    ["    rowsum[0] += p0 + p1;\n    rowsum[1] += p2 + p3;\n",
     "    sums[0][j] = p0 + p1;\n    sums[1][j] = p2 + p3;\n"],
    ["                 : \"memory\");\n  }\n}\n",
     "                 : \"memory\");\n  }\n"
     "#pragma unroll\n  for (int hf = 0; hf < 2; ++hf) {\n"
     "#pragma unroll\n    for (int w = BK / 16; w >= 1; w /= 2)\n"
     "#pragma unroll\n      for (int i = 0; i < w; ++i) sums[hf][i] += sums[hf][i + w];\n"
     "    rowsum[hf] = sums[hf][0];\n  }\n}\n"],
]


def with_local(edits, tree, flags=False):
    # the helper goes right after ex2_ftz's definition (EX2's first edit puts the anchor after it)
    return edits + [[ANCHOR, local_fn(tree, flags) + ANCHOR]]


FLAGS = [
    ["__device__ __forceinline__ void softmax_tile(float (&s)[BK / 2], const float* mask, uint32_t p_tile, float* mt,",
     "__device__ __forceinline__ void softmax_tile(float (&s)[BK / 2], const float (&flags)[BK / 4], uint32_t p_tile, float* mt,"],
    ["  scale_mask_local(s, mask, scale_log2, lane, tmax);", "  scale_mask_local(s, flags, scale_log2, lane, tmax);"],
    ["    auto finish_tile = [&](int t, float (&s)[BK / 2]) {\n"
     "      const int buf = t % BUFS;\n"
     "      float m_t[2];\n"
     "      softmax_tile(s, s_valid + buf * BK,",
     "    auto load_flags = [&](int t, float (&fl)[BK / 4]) {\n"
     "#pragma unroll\n"
     "      for (int j = 0; j < BK / 8; ++j)\n"
     "#pragma unroll\n"
     "        for (int e = 0; e < 2; ++e) fl[j * 2 + e] = s_valid[(t % BUFS) * BK + j * 8 + 2 * (lane & 3) + e];\n"
     "    };\n"
     "    auto finish_tile = [&](int t, float (&s)[BK / 2], const float (&fl)[BK / 4]) {\n"
     "      const int buf = t % BUFS;\n"
     "      float m_t[2];\n"
     "      softmax_tile(s, fl,"],
    ["      issue_tile(2 * j + 1, sb);\n"
     "      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go\n"
     "      wg_wait1();\n"
     "      finish_tile(2 * j, sa);\n"
     "      wg_wait0();\n"
     "      finish_tile(2 * j + 1, sb);\n",
     "      issue_tile(2 * j + 1, sb);\n"
     "      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go\n"
     "      float fa[BK / 4], fb[BK / 4];\n"
     "      load_flags(2 * j, fa);\n"
     "      load_flags(2 * j + 1, fb);\n"
     "      wg_wait1();\n"
     "      finish_tile(2 * j, sa, fa);\n"
     "      wg_wait0();\n"
     "      finish_tile(2 * j + 1, sb, fb);\n"],
    ["      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go\n"
     "      wg_wait0();\n"
     "      finish_tile(n_tiles - 1, sa);\n",
     "      mbar_arrive(bar_scored);  // VALUE_ISSUE = after_scores: the held tile's products may go\n"
     "      float fa[BK / 4];\n"
     "      load_flags(n_tiles - 1, fa);\n"
     "      wg_wait0();\n"
     "      finish_tile(n_tiles - 1, sa, fa);\n"],
]


# the edits apply to the template as it was at 20ff46f (main before this session), rendered from
# a copy (`git show 20ff46f:templates/sparse_mla.cu.j2 > MAIN`); "lean softmax" is the working
# tree's template, which makes the same four changes in the template itself
MAIN = "docs/diagnostics/h200-session33-20261203/main.cu.j2"
v = {
    "tile held first": {"genes": base, "template": MAIN},
    "ex2": {"genes": base, "edits": EX2, "template": MAIN},
    "ex2 vote": {"genes": base, "edits": with_local(EX2, False) + VOTE, "template": MAIN},
    "ex2 vote tree": {"genes": base, "edits": with_local(EX2, True) + VOTE + TREE_SUM, "template": MAIN},
    "ex2 vote tree flags": {"genes": base, "edits": with_local(EX2, True, True) + VOTE + TREE_SUM + FLAGS,
                            "template": MAIN},
    "lean softmax (template)": base,
    "tile held first again": {"genes": base, "template": MAIN},
}
json.dump(v, open(sys.argv[1], "w"), indent=1)
