"""A script of scripts/device loaded as a module on a machine without a GPU (its sibling modules,
such as cuda_entry and variants, importable while it loads), for tests of its CUDA sources; and
its kernels built with the local nvcc."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DEVICE_SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "device"


def load_device_script(file_name: str):
    sys.path.insert(0, str(DEVICE_SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(f"device_{Path(file_name).stem}", DEVICE_SCRIPTS / file_name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # registered while it runs: its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(DEVICE_SCRIPTS))


def build_without_spills(script, tmp_path):
    """The script's kernel_source() built for sm_90a: (source, build), the build checked to have
    succeeded with no kernel spilling or using a stack (a diagnostic that spills times the spills)."""
    from evaluators.cuda_compile import compile_cuda

    source = script.kernel_source()
    build = compile_cuda(source, tmp_path)
    assert build.ok, build.log[-3000:]
    for k in build.kernels:
        assert k.spill_store_bytes == 0 and k.spill_load_bytes == 0 and k.stack_bytes == 0, k
    return source, build
