"""Ctrl-C while an LLM call is in flight: `python -m engine evolve --strategy llm` in a real
subprocess, a real endpoint on 127.0.0.1 that holds the request open, and a real SIGINT sent once
the endpoint has the request. The call's prompt must be on record, the run must stop as any
interrupted run does, and resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from engine.llm.transcript import read_calls
from engine.store.reader import read_records
from tests.llm_endpoint import ChatEndpoint, genomes_answer
from tests.test_evolve_with_an_llm import REPO, SMALL, engine

INTERRUPTED = "engine: interrupted; results so far are on disk (continue with --resume)"


class HeldFirstCall:
    """Answers every call but the first, which it holds until released: the test's SIGINT then
    surely lands while the engine waits for an answer."""

    def __init__(self):
        self.received, self.released = threading.Event(), threading.Event()
        self.calls = 0

    def __call__(self, body) -> str:
        self.calls += 1
        if self.calls == 1:
            self.received.set()
            self.released.wait(timeout=60)  # bounded: a failed test must not hold the server's thread
        return genomes_answer({"NUM_WARPS": 8}, {"BLOCK_K": 64})


def test_ctrl_c_during_an_llm_call_keeps_its_prompt_on_record_and_the_run_resumes(tmp_path, ctrl_c_delivered):
    out = tmp_path / "run"
    held = HeldFirstCall()
    with ChatEndpoint(held) as endpoint:
        llm = ["--strategy", "llm", "--llm-model", "test-model", "--llm-base-url", endpoint.base_url,
               "--llm-batch", "2", "--device", "cpu", "--out", str(out), "--seed", "5", SMALL]
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        with (tmp_path / "stderr.txt").open("w+") as stderr:
            run = subprocess.Popen([sys.executable, "-m", "engine", "evolve", "--budget", "3", *llm], cwd=REPO,
                                   stdout=subprocess.DEVNULL, stderr=stderr, env=env)
            try:
                assert held.received.wait(timeout=120), "the engine never called the endpoint"
                run.send_signal(signal.SIGINT)
                # the endpoint still holds the request: the process must exit all the same
                code = run.wait(timeout=20)
            finally:
                run.kill()
                run.wait()
                held.released.set()
            stderr.seek(0)
            said = stderr.read()
        assert code == 130, said
        assert said.rstrip().endswith(INTERRUPTED), said
        assert "Traceback" not in said
        (call,) = read_calls(out / "llm")
        assert call["call"] == 1 and call["messages"] == endpoint.requests[0]["messages"]
        assert call["error"].startswith("interrupted after ") and call["error"].endswith(" s, before an answer")
        assert "reply" not in call and "proposed" not in call
        assert 0 <= call["seconds"] < 20
        before = read_records(out)
        assert [r["operator"] for r in before] == ["reference", "default"]

        # the run's own strategy, seed, endpoint and batch: the resume names none of them
        resumed = engine("evolve", "--budget", "3", "--resume", "--device", "cpu", "--out", str(out), SMALL)
    assert resumed.returncode == 0, resumed.stderr
    assert "[llm] call 2: 2 genomes" in resumed.stderr and "resumed with" not in resumed.stderr
    calls = read_calls(out / "llm")
    assert [c["call"] for c in calls] == [1, 2] and calls[1]["proposed"]
    rows = read_records(out)
    assert rows[:2] == before  # the rows of the interrupted run stay as they were
    assert [r["operator"] for r in rows if r["kind"] == "genome"] == ["default", "llm:2", "llm:2"]
