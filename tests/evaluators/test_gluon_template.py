"""The Gluon template (templates/sparse_mla.gluon.j2) on a machine without a GPU: every valid
genome renders and passes the static guard, chosen genomes compile through Triton's own compiler
for sm_90a (the compiler needs no GPU) within the shared-memory limit and without spills in the
consumers' loop, and the command line refuses to run it on the interpreter in one line."""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.guards import static_check_triton
from evaluators.rejection import Rejection

REPO = Path(__file__).resolve().parents[2]
TEMPLATE_REL = "templates/sparse_mla.gluon.j2"
TEMPLATE = load_template(REPO / TEMPLATE_REL)
SPACE = TEMPLATE.load_space()
SMEM_LIMIT = 232448

gluon_runtime = pytest.importorskip("triton.experimental.gluon._runtime")


def _guard_refusal(params: dict, source: str) -> str | None:
    try:
        static_check_triton(source, TEMPLATE.entry)
    except Rejection as exc:
        return f"{params}: {exc}"
    return None


# The static guard reads names, attributes, imports and calls, never a literal's value: two
# genomes whose modules differ only in their numbers (block sizes, stages, warps) get one verdict.
_NUMBER = re.compile(r"\b\d+(?:\.\d*)?(?:[eE][+-]?\d+)?\b")


def test_every_valid_genome_renders_and_passes_the_static_guard():
    points = list(SPACE.valid_points())
    assert len(points) > 100
    # Every genome is rendered (the template compiled once, a render well under a millisecond);
    # the guard, at 0.1 s a module, runs once for each shape of module the genomes render to
    # (1,924 genomes, 24 shapes): guarding every genome took 1.5-1.8 minutes of a CI-sized
    # machine's 2 cores.
    one_each = {}  # shape -> (params, source) of its first genome
    for params in points:
        source = TEMPLATE.render(params)
        one_each.setdefault(_NUMBER.sub("0", source), (params, source))
    assert len(one_each) >= 10  # the genes change the module's code, not only its numbers
    refusals = [r for r in (_guard_refusal(*kept) for kept in one_each.values()) if r]
    assert not refusals, f"{len(refusals)} genomes refused, the first: {refusals[0]}"


def test_the_template_is_marked_as_not_runnable_by_the_interpreter():
    assert TEMPLATE.interpreter is False and TEMPLATE.language == "triton"
    assert load_template(REPO / "templates" / "sparse_mla.triton.j2").interpreter is True


def _load(params: dict, tmp_path: Path):
    path = tmp_path / "kernel.py"
    path.write_text(TEMPLATE.render({**SPACE.default_params(), **params}))
    spec = importlib.util.spec_from_file_location("gluon_kernel_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _signature(kernel, constexprs: dict) -> tuple[dict, dict]:
    # The launcher passes bf16 query/cache/output, int32 indices, fp32 partials; strides and
    # sizes are multiples of 16 on every real shape, as Triton's specialization would see them.
    types = {"q_ptr": "*bf16", "kv_ptr": "*bf16", "idx_ptr": "*i32", "o_ptr": "*bf16", "sem_ptr": "*i32"}
    names = list(inspect.signature(kernel.fn).parameters)
    sig = {}
    for name in names:
        if name in constexprs:
            sig[name] = "constexpr"
        elif name.endswith("_ptr"):
            sig[name] = types.get(name, "*fp32")
        else:
            sig[name] = "fp32" if name == "scale_log2" else "i32"
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names)
             if sig[n].startswith("*") or n.startswith("stride") or n == "topk"}
    return sig, attrs


def _compile(kernel, constexprs: dict, **options):
    import triton
    from triton.backends.compiler import GPUTarget

    sig, attrs = _signature(kernel, constexprs)
    src = gluon_runtime.GluonASTSource(fn=kernel, signature=sig, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)


def _stack_bytes(compiled, folder: Path) -> int:
    from evaluators.cuda_compile import cuobjdump_path

    cuobjdump = cuobjdump_path()
    if cuobjdump is None:
        pytest.skip("no cuobjdump (PATH, beside nvcc, or Triton's bundled one)")
    cubin = folder / "kernel.cubin"
    cubin.write_bytes(compiled.asm["cubin"])
    usage = subprocess.run([str(cuobjdump), "-res-usage", str(cubin)], capture_output=True, text=True).stdout
    return int(re.search(r"STACK:(\d+)", usage).group(1))


@pytest.mark.parametrize("genes,constexprs", [
    ({"TOPK_TILE": 64, "STAGES": 2},
     {"BH": 64, "BK": 64, "STAGES": 2, "SINGLE": True, "OVERLAP": False, "FUSED": False}),
    ({"TOPK_TILE": 32, "STAGES": 3, "OVERLAP": True, "COMBINE": "fused", "NUM_SPLITS": 4},
     {"BH": 64, "BK": 32, "STAGES": 3, "SINGLE": False, "OVERLAP": True, "FUSED": True}),
], ids=["value-half-ctas", "value-half-ctas-overlap-fused"])
def test_single_warpgroup_kernel_compiles_for_sm90_with_wgmma_and_cp_async(tmp_path, genes, constexprs):
    module = _load(genes, tmp_path)
    compiled = _compile(module._split_kernel, constexprs, num_warps=4)
    ptx = compiled.asm["ptx"]
    assert ".target sm_90a" in ptx
    assert "wgmma.mma_async" in ptx and "cp.async.cg.shared.global" in ptx
    assert compiled.metadata.shared <= SMEM_LIMIT
    if not constexprs["FUSED"]:  # the merge of a fused combine costs the overlapped loop a few spills
        assert _stack_bytes(compiled, tmp_path) == 0
    assert bool(re.search(r"atom\.global(\.gpu)?\.acq_rel\.add", ptx)) == constexprs["FUSED"]


@pytest.mark.parametrize("consumer_regs,scores,overlap,fused", [(216, "each", False, False),
                                                               (232, "halves", True, True)])
def test_warp_specialized_kernel_gives_consumers_their_registers(tmp_path, consumer_regs, scores, overlap, fused):
    module = _load({"WARP_SPECIALIZE": True, "CONSUMER_REGS": consumer_regs, "WS_SCORES": scores,
                    "OVERLAP": overlap, "COMBINE": "fused" if fused else "separate",
                    "NUM_SPLITS": 4 if fused else "auto", "GATHER_CHUNK": 32 if fused else 16}, tmp_path)
    constexprs = {"BH": 64, "BK": 64, "STAGES": 2, "SINGLE": not fused, "CONSUMER_REGS": consumer_regs,
                  "HALVES": scores == "halves", "OVERLAP": overlap, "FUSED": fused,
                  "GATHER_CHUNK": 32 if fused else 16}
    compiled = _compile(module._ws_split_kernel, constexprs, num_warps=4, maxnreg=168)
    ptx = compiled.asm["ptx"]
    assert compiled.metadata.shared <= SMEM_LIMIT
    # Two consumer warpgroups raised to CONSUMER_REGS, the producer lowered to the rest of 3 x 168.
    grants = [int(n) for n in re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)]
    assert grants.count(consumer_regs) >= 2, grants
    assert 3 * 168 - 2 * consumer_regs in grants, grants
    # The producer's copies signal the consumers through an mbarrier, one arrival per thread.
    assert "cp.async.mbarrier.arrive.noinc.shared" in ptx
    # A fused combine counts finished splits with an acquire-release atomic.
    assert bool(re.search(r"atom\.global(\.gpu)?\.acq_rel\.add", ptx)) == fused


def test_evolve_of_the_gluon_template_without_a_gpu_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "engine", "evolve", TEMPLATE_REL, "--budget", "2",
                           "--device", "cpu", "--out", str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("engine: error: "), done.stderr
    assert TEMPLATE_REL in lines[0] and "interpreter" in lines[0]
    assert not out.exists() or not any(out.iterdir()), sorted(p.name for p in out.iterdir())


def test_the_static_guard_admits_triton_names_in_kernels_and_nothing_else_imported():
    from evaluators.rejection import Rejection

    kernel = ("from triton.experimental import gluon\n{imports}\n"
              "@gluon.jit\ndef k(x):\n    {call}\n\n"
              "def sparse_mla_decode(q, kv_cache, indices, sm_scale, out, lse):\n    k[(1,)](out)\n")
    ok = kernel.format(imports="from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared",
                       call="fence_async_shared()")
    static_check_triton(ok, "sparse_mla_decode")
    from_torch = kernel.format(imports="from torch import matmul", call="matmul(x, x)")
    with pytest.raises(Rejection, match="calls matmul"):
        static_check_triton(from_torch, "sparse_mla_decode")
    driver = kernel.format(imports="from triton.runtime import driver", call="pass")
    with pytest.raises(Rejection, match="imports from triton.runtime"):
        static_check_triton(driver, "sparse_mla_decode")
