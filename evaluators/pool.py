"""Several evaluation workers, one per GPU, fed from one queue.

Each worker is a ``WorkerRunner`` pinned to its own GPU (its own process, its own CUDA
context), so a candidate timed on one GPU never shares the device with another candidate. The
parent threads only wait on pipes; the work happens in the worker processes.
"""

from __future__ import annotations

import hashlib
import json
import queue
import time
from concurrent.futures import Future, ThreadPoolExecutor, as_completed, wait
from typing import Any, Sequence

from evaluators.build_target import BuildTarget
from evaluators.runner import WorkerRunner
from evaluators.zygote import Zygote


class CompileAhead:
    """Workers that only compile (their Triton launches are no-ops) the requests the GPU
    workers will take next, filling the shared on-disk kernel cache so that the timed worker
    finds its kernels built. Best effort: whatever they fail at, the real evaluation meets
    again and records."""

    def __init__(self, runners: Sequence[WorkerRunner]):
        self.runners = list(runners)
        self._queue: queue.Queue[tuple[dict[str, Any], Future] | None] = queue.Queue()
        self._threads = ThreadPoolExecutor(max_workers=max(1, len(self.runners)), thread_name_prefix="kg-compile")
        self._loops = []
        self._submitted: dict[str, Future] = {}  # build identity -> its build's future

    def start(self) -> None:
        list(self._threads.map(lambda r: r.start(), self.runners))
        self._loops = [self._threads.submit(self._serve, r) for r in self.runners]

    def submit(self, requests: Sequence[dict[str, Any]]) -> list[Future | None]:
        """Queue each request with a source to be built; per request, a future done once its
        build has ended (built or failed: the real evaluation meets a failure again), or None.
        A request submitted before (a batch built while the one before it was timed) is not
        queued again: its first future stands, so that it never waits behind later builds."""
        built: list[Future | None] = []
        for request in requests:
            if request.get("source") is None:
                built.append(None)
                continue
            key = _build_identity(request)
            done = self._submitted.get(key)
            if done is None:
                done = self._submitted[key] = Future()
                self._queue.put(({**request, "compile_only": True}, done))
            built.append(done)
        return built

    def wait_idle(self) -> None:
        """Return once every submitted request has been compiled (or has failed to)."""
        self._queue.join()

    def stop(self) -> None:
        while True:  # what was not compiled yet is no longer needed
            try:
                _, done = self._queue.get_nowait()
            except queue.Empty:
                break
            done.set_result(None)  # nobody waits on it for ever
            self._queue.task_done()
        for _ in self._loops:
            self._queue.put(None)
        for r in self.runners:
            r.kill()  # a worker stuck in a long compile is killed, its thread then sees the end
        try:
            self._threads.shutdown(wait=True)
        finally:
            for r in self.runners:
                r.stop()

    def _serve(self, runner: WorkerRunner) -> None:
        while (item := self._queue.get()) is not None:
            request, done = item
            try:
                runner.evaluate(request)
            except Exception:  # noqa: BLE001 - best effort; the timed evaluation reports
                pass
            finally:
                done.set_result(None)
                self._queue.task_done()


def _build_identity(request: dict[str, Any]) -> str:
    """What a compile-only evaluation of ``request`` builds depends on: all of it but its seed."""
    kept = {k: v for k, v in request.items() if k != "seed"}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()


class RunnerPool:
    def __init__(self, runners: Sequence[WorkerRunner], lookahead: int = 8):
        if not runners:
            raise ValueError("a runner pool needs at least one runner")
        self.runners = list(runners)
        self.compile_ahead: CompileAhead | None = None
        self.zygote: Zygote | None = None
        self.lookahead = lookahead
        self.envs: list[dict[str, str]] = []  # each worker's environment, once started
        self.dispatch_order: list[int] = []  # the last batch's requests, by position, in the order sent to GPU workers
        self._idle: queue.SimpleQueue[WorkerRunner] = queue.SimpleQueue()
        for r in self.runners:
            self._idle.put(r)
        self._threads = ThreadPoolExecutor(max_workers=len(self.runners), thread_name_prefix="kg-runner")

    @property
    def width(self) -> int:
        """How many requests are worth sending at once: one per worker, times the lookahead
        when compile-ahead workers can build the later ones while the first are timed."""
        return len(self.runners) * (self.lookahead if self.compile_ahead else 1)

    def start(self) -> dict[str, str]:
        """Start every worker (in parallel: each loads torch and a CUDA context); the first's
        environment describes the run, and ``envs`` keeps each worker's."""
        self.envs = list(self._threads.map(lambda r: r.start(), self.runners))
        return self.envs[0]

    @property
    def build_target(self) -> BuildTarget | None:
        """The workers' GPUs, for renders that build only what is launched there (None before
        ``start`` or without CUDA GPUs)."""
        return BuildTarget.of_envs(self.envs)

    def use_zygote(self, zygote: Zygote) -> None:
        """Fork every worker started once ``zygote`` is ready (a restart, a compile-ahead worker)
        from it (evaluators/zygote.py); until then they start as new interpreters."""
        self.zygote = zygote
        for r in self.runners + (self.compile_ahead.runners if self.compile_ahead else []):
            r.zygote = zygote

    def attach(self, compile_ahead: CompileAhead) -> None:
        """Start compile-ahead workers; from then on batches are asked ``lookahead`` times wider."""
        for r in compile_ahead.runners:
            r.zygote = r.zygote or self.zygote
        self.compile_ahead = compile_ahead
        try:
            compile_ahead.start()
        except BaseException:  # a worker that did not start, or Ctrl-C: none of them is left running
            self.compile_ahead = None
            compile_ahead.stop()
            raise

    @property
    def builds_ahead(self) -> bool:
        """Whether ``prebuild`` starts builds (compile-ahead workers are attached)."""
        return self.compile_ahead is not None

    def prebuild(self, requests: Sequence[dict[str, Any]]) -> None:
        """Start building ``requests`` now, before they are evaluated (the next batch, while this
        one is timed); ``evaluate_many`` later finds their builds under way or done."""
        if self.compile_ahead is not None:
            self.compile_ahead.submit(requests)

    def stop(self) -> None:
        """End every worker at once, even mid-request (Ctrl-C): the request under way fails, and
        the ones queued behind it fail at once (RunnerStopping) without starting a worker. (Not
        cancelled: concurrent.futures.wait never counts a future that shutdown cancelled as done.)"""
        for r in self.runners:
            r.kill()
        try:
            if self.compile_ahead is not None:
                self.compile_ahead.stop()
            self._threads.shutdown(wait=True)
        finally:  # a second Ctrl-C while the threads end still leaves no worker running
            for r in self.runners:
                r.stop()

    def evaluate(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.evaluate_many([request])[0]

    def evaluate_many(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Outcomes in the order of ``requests``; each request goes to whichever worker is free.
        An exception of one (a GPU found unhealthy) is raised after the others have finished."""
        if self.compile_ahead is None or len(requests) <= len(self.runners):
            self.dispatch_order = list(range(len(requests)))
        else:
            # Every request is built ahead, and each goes to a GPU worker once built, the soonest
            # built first: a slow build (a siblings genome's 15-25 s) no longer holds the GPU while
            # the batch's quicker ones wait behind it in the queue. A GPU worker that still meets
            # a build under way waits for it (evaluators/cuda_compile.py), it does not build twice.
            built = self.compile_ahead.submit(requests)
            waiting: dict[Future, list[int]] = {}  # one build may serve several requests (seeds)
            for i, done in enumerate(built):
                if done is not None:
                    waiting.setdefault(done, []).append(i)
            self.dispatch_order = [i for i, done in enumerate(built) if done is None]
            self.dispatch_order += [i for done in as_completed(waiting) for i in waiting[done]]
        futures: list[Future | None] = [None] * len(requests)
        for i in self.dispatch_order:
            futures[i] = self._threads.submit(self._on_idle_runner, requests[i])
        wait(futures)
        return [f.result() for f in futures]

    def _on_idle_runner(self, request: dict[str, Any]) -> dict[str, Any]:
        runner = self._idle.get()
        try:
            t0 = time.monotonic()
            outcome = runner.evaluate(request)
            outcome.setdefault("eval_s", time.monotonic() - t0)
            return outcome
        finally:
            self._idle.put(runner)
