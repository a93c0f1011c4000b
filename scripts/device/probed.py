"""What the device scripts that instrument a CUDA genome share (trace_timeline.py,
trace_scorer_tiles.py): probes placed by the rendered text, the instrumented source built into a
module and the trusted launcher's entry, and N calls on their own inputs captured in one graph.
Runs on the device (cuda-python is imported on use)."""
import argparse
from pathlib import Path
from typing import Callable

from engine.template import load_template
from evaluators.cuda_compile import compile_cuda
from evaluators.sparse_mla_cuda import make_entry, parse_contract
from variants import load_variants


def trace_arguments(batches: str) -> argparse.ArgumentParser:
    """The trace scripts' common options: VARIANTS.json, --batches, --context, --calls."""
    ap = argparse.ArgumentParser()
    ap.add_argument("variants")
    ap.add_argument("--batches", default=batches)
    ap.add_argument("--context", type=int, default=131072)
    ap.add_argument("--calls", type=int, default=16)
    return ap


def probed_sources(path: str, refusal: Callable[[dict], str | None], instrument: Callable) -> tuple[dict, dict]:
    """(variants, their instrumented sources) of a variants file rendered by the CUDA template;
    ``refusal(params)`` says why a genome cannot be traced (None: it can), and every refusal comes
    before any GPU work; ``instrument(variant, what)`` places the probes."""
    variants = load_variants(path, load_template(Path("templates/sparse_mla.cu.j2")), language="cuda")
    sources = {}
    for name, variant in variants.items():
        what = f"{path}: variant {name!r}"
        why = refusal(variant.params)
        if why:
            raise SystemExit(f"{what}: {why}")
        sources[name] = instrument(variant, what)
    return variants, sources


def place_probes(source: str, probes: list[tuple[str, str]], what: str = "the source") -> str:
    """The source with each (anchor, replacement) made; each anchor must occur exactly once, so
    that a template change that moves one fails before any GPU work."""
    for anchor, replacement in probes:
        n = source.count(anchor)
        if n != 1:
            raise SystemExit(f"{what}: a probe's anchor occurs {n} times, not once: {anchor[:70]!r}")
        source = source.replace(anchor, replacement)
    return source


def probed_builds(sources: dict[str, str], cache: Path, device):
    """(name, module, entry) of each instrumented source that compiles: the CubinModule, whose own
    kernels read the stamps out, and the launcher's entry; a source that does not compile is
    printed with the compiler's complaint and skipped."""
    from evaluators.cuda_launch import CubinModule

    for name, source in sources.items():
        build = compile_cuda(source, cache)
        if not build.ok:
            print(name, "compile failed", build.excerpt(2000), flush=True)
            continue
        module = CubinModule(Path(build.cubin), device)
        yield name, module, make_entry(parse_contract(source), module)


def l2_scrub(device):
    """A float32 buffer twice the L2: ``scrub.add_(1.0)`` before a replay leaves the L2 full of
    other dirty lines, as the harness's timer leaves it."""
    import torch

    return torch.empty(2 * torch.cuda.get_device_properties(device).L2_cache_size // 4, dtype=torch.float32,
                       device=device)


def capture_calls(calls: list, device):
    """The calls, launched once outside (module loading), then captured back to back in a graph."""
    import torch

    for c in calls:
        c()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=torch.cuda.Stream(device)):
        for c in calls:
            c()
    torch.cuda.synchronize()
    return graph
