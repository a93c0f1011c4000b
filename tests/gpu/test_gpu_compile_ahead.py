"""GPU tier: a compile-ahead worker fills the Triton cache without launching anything, and the
timed worker then finds every kernel it needs there."""

from __future__ import annotations

import pytest
from pathlib import Path

from engine.template import load_template
from evaluators.runner import WorkerRunner

REAL = Path(__file__).resolve().parents[2] / "templates" / "sparse_mla.triton.j2"


def cubins(cache):
    return sorted(p.name for p in cache.rglob("*.cubin"))


@pytest.mark.gpu
def test_compile_ahead_fills_the_cache_launch_free_and_the_timed_worker_only_hits_it(tmp_path, monkeypatch,
                                                                                       faulty_request):
    cache = tmp_path / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))  # inherited by both worker processes
    template = load_template(REAL)
    source = template.render(template.load_space().default_params())
    request = {"problem": template.problem, "language": "triton", "entry": template.entry,
               "source": source, "seed": 3, "bench": False}
    ahead = WorkerRunner(tmp_path / "c", tmp_path / "c.log", device="cuda", timeout_s=300, compile_only=True)
    timed = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cuda", timeout_s=300)
    try:
        # a kernel that writes 1 TB past its output: launched, it would be an illegal address
        wild = ahead.evaluate(faulty_request("crash"))
        assert wild["status"] == "ok" and ahead.restarts == 0, wild
        assert ahead.evaluate(request)["status"] == "ok"
        built = cubins(cache)
        assert any("split_kernel" in name for name in built), built
        result = timed.evaluate(request)
        assert result["status"] == "ok", result["error"]
        assert cubins(cache) == built  # every specialization the evaluation used was built ahead
    finally:
        ahead.stop()
        timed.stop()
