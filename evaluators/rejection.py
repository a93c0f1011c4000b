"""The exception a guard raises: which guard, the typed status, and why (no torch here, so the
driver process can check sources without loading it)."""

from __future__ import annotations

from dataclasses import dataclass

from evaluators.status import Status


@dataclass(frozen=True)
class Rejection(Exception):
    status: Status
    guard: str
    reason: str

    def __str__(self) -> str:
        return f"{self.guard}: {self.reason}"
