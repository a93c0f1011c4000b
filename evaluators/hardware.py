"""Hardware ceilings from the front matter of context/hardware/*.md (TOML between +++ lines)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

CONTEXT_DIR = Path(__file__).resolve().parent.parent / "context" / "hardware"


def front_matter(path: Path) -> dict[str, Any]:
    text = path.read_text()
    parts = text.split("+++")
    if not text.startswith("+++") or len(parts) < 3:
        raise ValueError(f"{path}: no '+++' TOML front matter")
    return tomllib.loads(parts[1])


def find_hardware(device_name: str, folder: Path = CONTEXT_DIR) -> dict[str, Any] | None:
    """The hardware sheet whose ``match`` strings occur in the device's name, if any."""
    for path in sorted(folder.glob("*.md")):
        meta = front_matter(path)
        if any(m in device_name for m in meta.get("match", [])):
            return meta | {"file": path.name}
    return None


def roofline_floor_s(flops: float, nbytes: float, hw: dict[str, Any]) -> float:
    return max(flops / (hw["peak_bf16_tflops"] * 1e12), nbytes / (hw["hbm_tbps"] * 1e12))
