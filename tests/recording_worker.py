"""The real worker process, keeping each request it was handed (what the loop rendered and sent)."""

from __future__ import annotations

from evaluators.runner import WorkerRunner


class RecordingWorker(WorkerRunner):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.requests: list[dict] = []

    def evaluate(self, request):
        self.requests.append(request)
        return super().evaluate(request)
