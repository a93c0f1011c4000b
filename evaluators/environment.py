"""What a timing depends on besides the kernel: GPU, driver, CUDA, torch, triton, python."""

from __future__ import annotations

import platform
import subprocess

import torch


def fingerprint(device: torch.device) -> dict[str, str]:
    import triton

    env = {
        "device_kind": device.type,
        "gpu": "",
        "driver": "",
        "cuda": torch.version.cuda or "",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "host": platform.node(),
        "compute_capability": "",  # "9.0": which cubins load on the GPU (not a Parquet field)
        "sm_count": "",  # "132": the split counts a launch picks (evaluators/build_target.py; not a Parquet field)
    }
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
        env["driver"] = _driver_version()
        env["compute_capability"] = "%d.%d" % torch.cuda.get_device_capability(device)
        env["sm_count"] = str(torch.cuda.get_device_properties(device).multi_processor_count)
    else:
        env["gpu"] = "none (Triton interpreter on CPU)"
    return env


def _driver_version() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""
