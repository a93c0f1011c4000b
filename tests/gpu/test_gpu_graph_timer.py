"""GPU tier: the harness's graph timer warms a call, uncaptured, on the very stream it then
captures the call on, so that what a call makes once per stream (the siblings' merge words of the
CUDA launcher) is made before the capture and not recorded into the graph."""

from __future__ import annotations

import pytest


@pytest.mark.gpu
def test_the_warm_call_runs_uncaptured_on_the_capture_stream_and_the_graph_replays_the_call():
    import torch

    from evaluators.bench import GraphTimer

    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, 1 << 20, warmup=1, reps=3)
    seen = []
    x = torch.randn(1024, device=dev)  # random, not zeros: the graph's work is checked by its result
    y = torch.empty_like(x)

    def call():
        seen.append((torch.cuda.current_stream(dev).cuda_stream, torch.cuda.is_current_stream_capturing()))
        torch.mul(x, 2.0, out=y)

    graph = timer.capture(call)
    assert len(seen) == 2 and seen[0][0] == seen[1][0] == timer.stream.cuda_stream, seen  # warm call, then capture
    assert seen[0][1] is False and seen[1][1] is True, seen
    y.fill_(float("nan"))
    timing = timer.time(graph)
    torch.cuda.synchronize()
    assert torch.equal(y, x * 2.0) and timing.median_us > 0
    second = timer.capture(call)  # the timer keeps its capture stream
    assert seen[2][0] == seen[0][0] and second is not graph
