"""Setup shared by the GPU tier's direct-launch tests (test_gpu_tensor_map.py,
test_gpu_cluster_merge.py, test_gpu_pdl_chain.py, test_gpu_siblings_merge.py): the CUDA template
and its space, a seesaw genome of it, a CUDA source compiled and loaded on device 0 (a genome with
the launcher's entry), and calls replayed in a graph and checked. torch and the CUDA bindings are
imported only when a helper is called, so the test modules still import, and are skipped, where
there is no GPU."""

from __future__ import annotations

from pathlib import Path

from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
SPACE = TEMPLATE.load_space()

# the seesaw pipeline these tests build on: wgmma, two stages, eight gather lanes
SEESAW = {"MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "GATHER_LANES": 8}


def seesaw_params(**genes) -> dict:
    """The space's defaults with the seesaw genes of SEESAW, then ``genes``."""
    return {**SPACE.default_params(), **SEESAW, **genes}


def load_cuda(source: str, folder: Path):
    """``source`` compiled in ``folder`` (asserting that it builds) and loaded on CUDA device 0:
    ``(module, device)``."""
    import torch

    from evaluators.cuda_compile import compile_cuda
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(source, folder)
    assert build.ok, build.log[-3000:]
    dev = torch.device("cuda", 0)
    return CubinModule(Path(build.cubin), dev), dev


def load_genome(params: dict, folder: Path):
    """The CUDA template rendered with ``params``, compiled in ``folder`` and loaded on device 0:
    ``(source, module, device)``."""
    source = TEMPLATE.render(params)
    module, dev = load_cuda(source, folder)
    return source, module, dev


def load_entry(params: dict, folder: Path):
    """The genome of ``params`` (asserted to be a point of the space) built in ``folder`` and loaded
    on device 0, with the trusted launcher's entry and the problem of its cache format:
    ``(contract, module, entry, problem, device)``."""
    from evaluators.sparse_mla import SparseMlaDecode
    from evaluators.sparse_mla_cuda import make_entry, parse_contract

    assert SPACE.is_valid(params), SPACE.violations(params)
    source, module, dev = load_genome(params, folder)
    contract = parse_contract(source)
    return contract, module, make_entry(contract, module), SparseMlaDecode(params["KV_FORMAT"]), dev


def replay_checked(problem, entry, sets, dev, replays: int = 1, stream=None) -> None:
    """The calls of ``entry`` on each (inputs, outputs) pair of ``sets``, captured back to back in
    one CUDA graph on ``stream`` (a new side stream by default), replayed ``replays`` times; before
    each replay every output is poisoned, after it checked against the float64 reference."""
    import torch

    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream if stream is not None else torch.cuda.Stream(dev)):
        for inp, out in sets:
            problem.call(entry, inp, out)
    for replay in range(replays):
        for _, out in sets:
            problem.poison(out)
        graph.replay()
        torch.cuda.synchronize()
        for i, (inp, out) in enumerate(sets):
            failure, errors = problem.check(inp, out)
            assert failure is None, (replay, i, failure, errors)
