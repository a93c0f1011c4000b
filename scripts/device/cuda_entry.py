"""What the device scripts that call a CUDA genome outside the harness share: the genome's source
compiled and loaded as the trusted launcher's entry, the scripts' own kernels loaded (with the
per-warpgroup clock and sink buffers of the one-CTA-an-SM rate scripts), and an empty kernel for
the timing floor.
Runs on the device (cuda-python is imported on use)."""
import argparse
from pathlib import Path

from evaluators.cuda_compile import compile_cuda
from evaluators.sparse_mla_cuda import make_entry, parse_contract

EMPTY_KERNEL = 'extern "C" __global__ void empty_kernel() {}\n'


def layer_script_args(batches: str = "1,8", repeats: int | None = 2) -> argparse.Namespace:
    """The arguments of the scripts that set a file's variants beside the decode layer: VARIANTS.json,
    --batches, --context (32K, the e2e stage's), and --repeats where ``repeats`` is not None."""
    ap = argparse.ArgumentParser()
    ap.add_argument("variants")
    ap.add_argument("--batches", default=batches)
    ap.add_argument("--context", type=int, default=32768)
    if repeats is not None:
        ap.add_argument("--repeats", type=int, default=repeats)
    return ap.parse_args()


def compiling_variants(path, cache: Path):
    """The CUDA template's variants of a variants file (variants.py), each one's rendered source,
    and the CompileAhead already building them all into ``cache`` (an nvcc process a core: a file
    of many variants queues, not floods); ``ahead.result(source)`` waits for one, then
    ``build_entry`` loads it."""
    from engine.template import load_template
    from evaluators.cuda_compile import CompileAhead
    from variants import load_variants

    variants = load_variants(path, load_template(Path("templates/sparse_mla.cu.j2")), language="cuda")
    sources = {name: variant.render() for name, variant in variants.items()}
    ahead = CompileAhead(cache)
    for source in sources.values():
        ahead.submit(source)
    return variants, sources, ahead


def build_entry(source: str, cache: Path, device):
    """``entry(q, kv_cache, indices, sm_scale, out, lse)`` of a rendered source, or None after
    printing the compiler's complaint (the script goes on with its next variant)."""
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(source, cache)
    if not build.ok:
        print("compile failed", build.excerpt(2000), flush=True)
        return None
    return make_entry(parse_contract(source), CubinModule(Path(build.cubin), device))


def built_entries(path, cache: Path, device) -> tuple[dict, dict]:
    """Every variant of a variants file compiled (in parallel) and loaded: (the variants, each
    one's entry or None where it failed to compile), for scripts that time all of them after."""
    variants, sources, ahead = compiling_variants(path, cache)
    entries = {}
    for name in variants:
        ahead.result(sources[name])
        entries[name] = build_entry(sources[name], cache, device)
    ahead.close()
    return variants, entries


def load_module(source: str, cache: Path, device):
    """The CubinModule of a trusted source (a script's own kernel), which must compile."""
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(source, cache)
    if not build.ok:
        raise RuntimeError(f"a device script's own kernel did not compile: {build.excerpt(2000)}")
    return CubinModule(Path(build.cubin), device)


def per_sm_rig(source: str, name: str, device, warpgroups: int = 3):
    """A rate script's own kernels (one CTA an SM) loaded from results/NAME/cubins, with their
    buffers: (module, the SM count, int64 clocks [SMs x warpgroups x (start, end)], float32 sinks
    [SMs x warpgroups] that keep the products' results alive)."""
    import torch

    sms = torch.cuda.get_device_properties(device).multi_processor_count
    module = load_module(source, Path("results") / name / "cubins", device)
    clocks = torch.zeros(sms * warpgroups * 2, dtype=torch.int64, device=device)
    sink = torch.zeros(sms * warpgroups, dtype=torch.float32, device=device)
    return module, sms, clocks, sink


def empty_launch(cache: Path, device):
    """A call that launches one empty kernel on the current stream: the floor of a timing method."""
    module = load_module(EMPTY_KERNEL, cache, device)
    return lambda: module.launch("empty_kernel", (1, 1, 1), 32, 0)


def timed_case(timer, problem, fn, inp, outputs, case: str, after=lambda: None, after_us: float = 0.0) -> dict:
    """One case of a layer script's row: a graph of the call on ``inp`` into ``outputs``, then
    ``after`` (a neighbouring step whose own graph took ``after_us``, taken off), timed by the
    harness's method; {case: median us, case iqr: us, and case check: the failure where the last
    replay's outputs fail the reference check}."""
    graph = timer.capture(lambda: (problem.call(fn, inp, outputs), after()))
    problem.poison(outputs)
    t = timer.time(graph)
    failure = problem.check(inp, outputs)[0]
    del graph
    return {case: round(t.median_us - after_us, 2), case + " iqr": round(t.iqr_us, 2),
            **({case + " check": failure} if failure else {})}


def each_variant_on(w, variants: dict, entries: dict, device):
    """(name, entry, problem, inputs) of each variant that built, on workload ``w``: the inputs
    drawn from the same seed for every variant, so that all are timed on the same values."""
    import torch

    from evaluators.sparse_mla import SparseMlaDecode

    for name, variant in variants.items():
        fn = entries[name]
        if fn is None:
            continue
        problem = SparseMlaDecode(variant.params["KV_FORMAT"])
        inp = problem.make_inputs(w, torch.Generator(device).manual_seed(5), problem.new_pool(device, [w]))
        yield name, fn, problem, inp


def each_layer_batch(args, device):
    """(layer, x, workload) for each of a layer script's --batches: the decode layer at that batch,
    its step's input x (both drawn from one seed, in that order), and the workload at --context."""
    import torch

    from evaluators.decode_layer import MODEL, DecodeLayer
    from evaluators.problem import Workload

    gen = torch.Generator(device).manual_seed(3)
    for b in map(int, args.batches.split(",")):
        layer = DecodeLayer(MODEL, 128, b, device, gen)
        x = torch.randn(b, MODEL.hidden, generator=gen, device=device).to(torch.bfloat16)
        yield layer, x, Workload(f"b{b}_ctx{args.context // 1024}k", b, 128, 2048, args.context)


def keep_row(rows: list, row: dict) -> None:
    """A layer script's row kept and printed as it comes (a call cut short keeps its log), with the
    allocator's cached blocks let go before the next variant's inputs."""
    import json

    import torch

    rows.append(row)
    print(json.dumps(row), flush=True)
    torch.cuda.empty_cache()
