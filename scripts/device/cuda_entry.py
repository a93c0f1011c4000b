"""What the device scripts that call a CUDA genome outside the harness share: the genome's source
compiled and loaded as the trusted launcher's entry, the scripts' own kernels loaded, and an
empty kernel for the timing floor.
Runs on the device (cuda-python is imported on use)."""
from pathlib import Path

from evaluators.cuda_compile import compile_cuda
from evaluators.sparse_mla_cuda import make_entry, parse_contract

EMPTY_KERNEL = 'extern "C" __global__ void empty_kernel() {}\n'


def build_entry(source: str, cache: Path, device):
    """``entry(q, kv_cache, indices, sm_scale, out, lse)`` of a rendered source, or None after
    printing the compiler's complaint (the script goes on with its next variant)."""
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(source, cache)
    if not build.ok:
        print("compile failed", build.log[-2000:], flush=True)
        return None
    return make_entry(parse_contract(source), CubinModule(Path(build.cubin), device))


def load_module(source: str, cache: Path, device):
    """The CubinModule of a trusted source (a script's own kernel), which must compile."""
    from evaluators.cuda_launch import CubinModule

    build = compile_cuda(source, cache)
    if not build.ok:
        raise RuntimeError(f"a device script's own kernel did not compile: {build.log[-2000:]}")
    return CubinModule(Path(build.cubin), device)


def empty_launch(cache: Path, device):
    """A call that launches one empty kernel on the current stream: the floor of a timing method."""
    module = load_module(EMPTY_KERNEL, cache, device)
    return lambda: module.launch("empty_kernel", (1, 1, 1), 32, 0)
