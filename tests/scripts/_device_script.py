"""A script of scripts/device loaded as a module on a machine without a GPU (its sibling modules,
such as cuda_entry and variants, importable while it loads), for tests of its CUDA sources."""

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
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(DEVICE_SCRIPTS))
