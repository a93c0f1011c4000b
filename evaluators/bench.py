"""Timing of one call on one workload.

GPU: the call is captured in a CUDA graph (a candidate that cannot be captured fails here) and
replayed; before each timed replay a 2x-L2 buffer is rewritten, so every call starts with a
cold L2 as it would between layers of a model, and the flush also keeps the GPU busy while the
host enqueues the replay. Events bracket the replay alone on the current stream.
CPU (interpreter): wall-clock per call; such timings say nothing about a GPU and are marked.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable

import torch


@dataclass(frozen=True)
class Timing:
    median_us: float
    iqr_us: float
    min_us: float
    n: int
    window_us: float | None = None  # per call, back-to-back replays closed by a device-wide sync


def summarize(samples_us: list[float]) -> Timing:
    s = sorted(samples_us)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    return Timing(statistics.median(s), q[2] - q[0], s[0], len(s))


class GraphTimer:
    def __init__(self, device: torch.device, l2_bytes: int, warmup: int = 5, reps: int = 30):
        self.device = device
        self.warmup = warmup
        self.reps = reps
        self.flush = torch.empty(max(2 * l2_bytes, 1 << 20) // 4, dtype=torch.int32, device=device)
        self.stream = torch.cuda.Stream(device)  # every capture's, and its warm call's

    def capture(self, call: Callable[[], None]) -> torch.cuda.CUDAGraph:
        # The warm call runs, uncaptured, on the stream the call is then captured on (not the
        # current one, as torch asks): what a call makes once per stream (a launcher's buffers)
        # is made there and then, not recorded into the graph to run on every replay.
        side = self.stream
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            call()
        torch.cuda.current_stream(self.device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=side):
            call()
        return graph

    def time(self, graph: torch.cuda.CUDAGraph) -> Timing:
        for _ in range(self.warmup):
            graph.replay()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        for start, end in zip(starts, ends):
            self._flush(start is starts[0])
            start.record()
            graph.replay()
            end.record()
        torch.cuda.synchronize(self.device)
        timing = summarize([s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)])
        return Timing(timing.median_us, timing.iqr_us, timing.min_us, timing.n, self._window(graph))

    def _flush(self, first: bool) -> None:
        # rewritten, not read: the L2 is left full of dirty lines, as the previous kernels of a
        # model leave it, so a call also pays for writing back what its own lines evict
        self.flush.random_(0, 1 << 30) if first else self.flush.add_(1)

    def _window(self, graph: torch.cuda.CUDAGraph) -> float:
        """Host clock around back-to-back replays and a device-wide synchronize: work that a call
        leaves running on any stream or thread of the device is inside this window."""
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(self.reps):
            graph.replay()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e6 / self.reps


class WallTimer:
    """Interpreter timing: wall clock around synchronous calls. One call a workload by default:
    an interpreted call's time says nothing of a GPU's (CPU rows are never compared for speed,
    not even by the audit), while a second call cost a quarter of every CPU evaluation."""

    def __init__(self, reps: int = 1):
        self.reps = reps

    def time(self, call: Callable[[], None]) -> Timing:
        samples = []
        for _ in range(self.reps):
            t0 = time.perf_counter()
            call()
            samples.append((time.perf_counter() - t0) * 1e6)
        return summarize(samples)
