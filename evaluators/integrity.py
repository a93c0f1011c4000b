"""Harness integrity: the evaluator's own files are hashed when a run starts and checked after
every evaluation; if any changed (a candidate, or anyone, edited the measuring code), the run
stops rather than record numbers from a harness nobody reviewed."""

from __future__ import annotations

import hashlib
from pathlib import Path

HARNESS_DIR = Path(__file__).resolve().parent


class HarnessChanged(RuntimeError):
    pass


class HarnessIntegrity:
    def __init__(self, root: Path = HARNESS_DIR, pattern: str = "*.py"):
        self.root, self.pattern = root, pattern
        self.baseline = self._hashes()

    def _hashes(self) -> dict[str, str]:
        return {str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(self.root.rglob(self.pattern)) if "__pycache__" not in p.parts}

    def check(self) -> None:
        now = self._hashes()
        changed = sorted(k for k in set(now) | set(self.baseline) if now.get(k) != self.baseline.get(k))
        if changed:
            raise HarnessChanged(f"harness files changed during the run: {', '.join(changed)}")
