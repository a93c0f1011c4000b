"""The GPUs a run's builds are for, so that a template builds only the code its problem launches there.

A template may declare build variables in its front matter (``build_variables``): values that are
not genes but facts of the run, which its problem computes from a genome's full render and the
GPUs' SM counts (``Problem.build_variables``). The sparse MLA CUDA template takes LAUNCHED_SPLITS,
the split counts the harness's calls pick, and leaves the other counts' split-kernel entries out
of the build: their code is never run by the search, and a siblings genome builds in 3.6 s instead
of 7.8 (docs/BENCHMARKS.md, sixty-fifth session). A render without a target (``engine compile``,
``engine export``) builds every entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class BuildTarget:
    """CUDA GPUs (a run without one builds whole): their SM counts, each once."""

    sm_counts: tuple[int, ...]

    @classmethod
    def of_envs(cls, envs: Sequence[Mapping[str, str]]) -> BuildTarget | None:
        """The target of workers with these environments (evaluators.environment.fingerprint), or
        None where any has no CUDA GPU or does not say its SM count: then nothing is left out."""
        if not envs or any(env.get("device_kind") != "cuda" or not str(env.get("sm_count", "")).isdigit()
                           for env in envs):
            return None
        return cls(tuple(sorted({int(env["sm_count"]) for env in envs})))

    @classmethod
    def of_counts(cls, sm_counts: Sequence[int] | None) -> BuildTarget | None:
        """The target noted as its SM counts (run.json's, a row's), or None where none are noted:
        built whole."""
        return cls(tuple(sm_counts)) if sm_counts else None

    def variables(self, problem: str, problem_kwargs: Mapping[str, Any], language: str, source: str) -> dict:
        """The build variables ``problem`` (with its arguments) gives a genome of full render
        ``source``; none where the problem has none, or refuses those arguments (the genome is then
        built whole, and its evaluation says what is wrong)."""
        from evaluators.problems import PROBLEMS  # imports torch: only where a template declares build variables

        cls = PROBLEMS.get(problem)
        if cls is None or not hasattr(cls, "build_variables"):
            return {}
        try:
            instance = cls(**problem_kwargs)
        except (TypeError, ValueError):
            return {}
        return instance.build_variables(language, source, self.sm_counts)
