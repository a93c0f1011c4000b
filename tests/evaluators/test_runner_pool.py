"""Several workers fed from one queue (evaluators/pool.py), with real worker processes."""

from __future__ import annotations

import os

import pytest

from evaluators.pool import RunnerPool
from evaluators.runner import GpuUnhealthy, RunnerStopping, WorkerRunner


def pool_of(tmp_path, n: int, **kwargs) -> RunnerPool:
    return RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / f"w{i}.log", device="cpu", timeout_s=60, **kwargs)
                       for i in range(n)])


def test_outcomes_come_back_in_request_order_and_a_crash_costs_only_its_own_worker(tmp_path, faulty_request):
    pool = pool_of(tmp_path, 2)
    try:
        pool.start()
        requests = [faulty_request("none"), faulty_request("crash"), faulty_request("skip_rope"),
                    faulty_request("none")]
        outcomes = pool.evaluate_many(requests)
        assert [o["status"] for o in outcomes] == ["ok", "worker_crash", "incorrect", "ok"]
        assert all(o["eval_s"] > 0 for o in outcomes)
        assert sum(r.restarts for r in pool.runners) == 1
        assert all(r.served >= 1 for r in pool.runners) and sum(r.served for r in pool.runners) == 4
        assert pool.evaluate(faulty_request("none"))["status"] == "ok"
    finally:
        pool.stop()


def test_a_failing_canary_on_one_worker_is_raised_after_the_others_finish(tmp_path, faulty_request):
    pool = pool_of(tmp_path, 2, canary=faulty_request("crash"))
    try:
        pool.start()
        assert [o["status"] for o in pool.evaluate_many([faulty_request("crash"), faulty_request("none")])] \
            == ["worker_crash", "ok"]
        # the crashed worker's canary now fails; the other worker's request still completes
        with pytest.raises(GpuUnhealthy, match="canary"):
            pool.evaluate_many([faulty_request("none"), faulty_request("none"), faulty_request("none")])
    finally:
        pool.stop()


def test_the_pool_keeps_every_workers_environment(tmp_path):
    # the CLI checks each worker's GPU against a CUDA template's target (engine/cli.py)
    pool = pool_of(tmp_path, 2)
    try:
        first = pool.start()
        assert len(pool.envs) == 2 and pool.envs[0] is first
        assert all(env["device_kind"] == "cpu" and env["compute_capability"] == "" for env in pool.envs)
    finally:
        pool.stop()


def test_a_pool_needs_a_runner():
    with pytest.raises(ValueError, match="at least one"):
        RunnerPool([])


def test_compile_ahead_builds_every_request_of_a_batch_and_the_batch_widens(tmp_path, faulty_request):
    from evaluators.pool import CompileAhead

    # Under the interpreter a compile-only request only loads the module; the queueing and the
    # widening are what is tested here (tests/gpu checks that the cache is filled launch-free).
    ahead = CompileAhead([WorkerRunner(tmp_path / "c", tmp_path / f"c{i}.log", device="cpu", timeout_s=60)
                          for i in range(2)])
    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60)], lookahead=4)
    try:
        pool.start()
        assert pool.width == 1
        pool.attach(ahead)
        assert pool.width == 4
        outcomes = pool.evaluate_many([faulty_request("none"), faulty_request("skip_rope"),
                                       faulty_request("crash"), faulty_request("none", seed=12)])
        assert [o["status"] for o in outcomes] == ["ok", "incorrect", "worker_crash", "ok"]
        ahead.wait_idle()
    finally:
        pool.stop()  # also drains and stops the compile-ahead workers
    # each request built ahead, the first one too; the two that differ only in their seed, once
    assert sum(r.served for r in ahead.runners) == 3
    assert all(r.proc is None for r in ahead.runners)


def test_a_compile_only_worker_refuses_to_start_without_a_gpu(tmp_path):
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60, compile_only=True)
    with pytest.raises(RuntimeError, match="did not start"):
        r.start()
    assert "needs a CUDA GPU" in (tmp_path / "w.log").read_text()
    # forked from the session's zygote, it failed as a new interpreter then did: the zygote is not
    # to blame, and goes on forking workers
    from evaluators import runner as runner_module
    from evaluators.zygote import socket_named

    assert socket_named(dict(os.environ)) not in runner_module._BROKEN_ZYGOTES


def test_a_batch_goes_to_the_gpu_worker_in_the_order_its_builds_end(tmp_path, faulty_request):
    from evaluators.pool import CompileAhead

    # The first request takes seconds longer to build (here: to load) than the others: the GPU
    # worker evaluates those first instead of waiting for it.
    slow = faulty_request("none", seed=5)
    # (a big power: a constant the host code's allowlist takes, which Python computes at import)
    slow["source"] = "_SLOW_TO_LOAD = 3 ** 10_000_000\n" + slow["source"]
    requests = [slow, faulty_request("none"), faulty_request("skip_rope")]
    ahead = CompileAhead([WorkerRunner(tmp_path / "c", tmp_path / f"c{i}.log", device="cpu", timeout_s=60)
                          for i in range(3)])
    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60)], lookahead=3)
    try:
        pool.start()
        pool.attach(ahead)
        outcomes = pool.evaluate_many(requests)
    finally:
        pool.stop()
    assert [o["status"] for o in outcomes] == ["ok", "ok", "incorrect"]  # still in the order asked
    assert pool.dispatch_order[-1] == 0 and sorted(pool.dispatch_order) == [0, 1, 2]


def test_a_pool_stopped_mid_request_ends_it_and_starts_no_worker_for_the_ones_queued(tmp_path, faulty_request):
    # Ctrl-C during a search: the request under way (here one that never returns) must not hold
    # the command until its timeout, and the one queued behind it must not start a new worker
    import threading
    import time

    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=300)])
    pool.start()
    outcome: dict = {}

    def search() -> None:
        try:
            outcome["value"] = pool.evaluate_many([faulty_request("hang"), faulty_request("none")])
        except BaseException as exc:  # noqa: BLE001 - what the search's thread was left with
            outcome["error"] = exc

    thread = threading.Thread(target=search)
    thread.start()
    deadline = time.monotonic() + 120
    while pool.runners[0].stage is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the hanging request has reached the worker
    assert pool.runners[0].stage is not None
    t0 = time.monotonic()
    pool.stop()
    assert time.monotonic() - t0 < 60  # not the request's 300 s
    thread.join(timeout=60)
    assert not thread.is_alive() and isinstance(outcome.get("error"), RunnerStopping), outcome  # the second
    starts = [line for line in (tmp_path / "w.log").read_text().splitlines() if line.startswith("runner: worker")]
    assert len(starts) == 1, starts
    assert pool.runners[0].proc is None


def test_a_runner_killed_while_its_worker_starts_raises_and_leaves_no_worker(tmp_path, monkeypatch):
    # Ctrl-C while a worker is started (after a crash): the start ends at once, and the worker
    # it started goes
    import threading
    import time

    from evaluators.zygote import ENV, OFF

    monkeypatch.setenv(ENV, OFF)  # a new interpreter: a start that takes seconds
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60)
    raised: list[BaseException] = []

    def start() -> None:
        try:
            r.start()
        except BaseException as exc:  # noqa: BLE001 - what the starting thread was left with
            raised.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    deadline = time.monotonic() + 30
    while r.proc is None and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = r.proc.pid
    r.kill()
    thread.join(timeout=30)
    assert not thread.is_alive() and len(raised) == 1 and isinstance(raised[0], RunnerStopping), raised
    assert r.proc is None and "ready in" not in (tmp_path / "w.log").read_text()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped
    with pytest.raises(RunnerStopping):
        r.evaluate({"op": "anything"})  # and it starts no other
