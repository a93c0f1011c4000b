"""Harness integrity: the evaluator's own files (and the hardware sheets its roofline floor
reads) are hashed when a run starts and checked after every evaluation; if any changed (a
candidate, or anyone, edited the measuring code), the run stops rather than record numbers from a
harness nobody reviewed."""

from __future__ import annotations

import hashlib
from pathlib import Path

HARNESS_DIR = Path(__file__).resolve().parent


class HarnessChanged(RuntimeError):
    pass


# the hardware sheets' ceilings set the roofline floor a time is held against: measuring code too
HARDWARE_SHEETS = (HARNESS_DIR.parent / "context" / "hardware", "*.md")


class HarnessIntegrity:
    def __init__(self, root: Path = HARNESS_DIR, pattern: str = "*.py",
                 also: tuple[tuple[Path, str], ...] | None = None):
        extra = also if also is not None else [HARDWARE_SHEETS] if root == HARNESS_DIR else []
        # (folder, pattern, what names are relative to): the harness's own files by their names
        # in it, the others with their folder's name ("hardware/h200.md")
        self.watched = [(root, pattern, root), *((folder, glob, folder.parent) for folder, glob in extra)]
        self.baseline = self._hashes()

    def _hashes(self) -> dict[str, str]:
        return {str(p.relative_to(base)): hashlib.sha256(p.read_bytes()).hexdigest()
                for folder, pattern, base in self.watched
                for p in sorted(folder.rglob(pattern)) if "__pycache__" not in p.parts}

    def check(self) -> None:
        now = self._hashes()
        changed = sorted(k for k in set(now) | set(self.baseline) if now.get(k) != self.baseline.get(k))
        if changed:
            raise HarnessChanged(f"harness files changed during the run: {', '.join(changed)}")
