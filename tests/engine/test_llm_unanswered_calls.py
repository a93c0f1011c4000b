"""LLM calls that end without an answer and without an LlmError: Ctrl-C while the call waits, and
a fault of a type no handler expects. Each is on record in llm/calls.jsonl with the prompt sent,
then goes on as it did before. A real endpoint on 127.0.0.1 and the real openai client; the whole
CLI under a real SIGINT is in tests/test_llm_call_interrupted.py."""

from __future__ import annotations

import io
import signal
import threading

import pytest

from engine.errors import UserError
from engine.llm.brief import build_brief
from engine.llm.client import ChatClient, Endpoint
from engine.llm.transcript import Transcript, read_calls
from engine.strategies import make_strategy
from engine.strategies.llm import LlmStrategy
from tests.engine.test_llm_strategy import DEFAULT, SPACE, TEMPLATE, strategy, told
from tests.llm_endpoint import ChatEndpoint, genomes_answer

KEY = "sk-secret-do-not-record"


def recorded_text(folder) -> str:
    return "".join(p.read_text() for p in folder.rglob("*") if p.is_file())


def llm_call_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "llm-call"}


def retrying_strategy(tmp_path, endpoint: ChatEndpoint) -> LlmStrategy:
    # the client's own retries on: an abandoned call must not use them; a 20 s limit, far past
    # the test's wait for the interrupt
    chat = ChatClient(Endpoint("test-model", endpoint.base_url, timeout_s=20, max_retries=2))
    return LlmStrategy(SPACE, 7, chat=chat, brief=build_brief(TEMPLATE, "cpu"),
                       partner=make_strategy("random", SPACE, 3), transcript=Transcript(tmp_path / "llm"), batch=1,
                       progress=io.StringIO())


def test_ctrl_c_while_a_call_waits_is_recorded_and_raised_and_not_retried(tmp_path, ctrl_c_delivered):
    received, released = threading.Event(), threading.Event()

    def answer(body):
        if len(endpoint.requests) == 1:
            received.set()
            released.wait(timeout=60)  # bounded: a failed test must not hold the server's thread
            return 500, "overloaded"   # the client's own retries would send it again
        return genomes_answer({"BLOCK_H": 32})

    def ctrl_c_once_received() -> None:
        if received.wait(timeout=30):
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    with ChatEndpoint(answer) as endpoint:
        s = retrying_strategy(tmp_path, endpoint)
        s.tell([told(DEFAULT, "default")])
        before = llm_call_threads()
        threading.Thread(target=ctrl_c_once_received, daemon=True).start()
        try:
            with pytest.raises(KeyboardInterrupt):
                s.ask(1)
            (abandoned,) = llm_call_threads() - before
        finally:
            released.set()
        assert abandoned.daemon  # it never holds the process at exit
        abandoned.join(timeout=15)  # the 500, then retries that find the client closed
        assert not abandoned.is_alive() and len(endpoint.requests) == 1
        (proposal,) = s.ask(1)  # the next call goes out on a fresh client
    assert proposal.operator == "llm:2" and len(endpoint.requests) == 2
    interrupted, answered = read_calls(tmp_path / "llm")
    assert interrupted["messages"] == endpoint.requests[0]["messages"]
    assert interrupted["error"].startswith("interrupted after ") and "reply" not in interrupted
    assert 0 <= interrupted["seconds"] < 20
    assert answered["call"] == 2 and answered["reply"]


def test_a_fault_of_an_unexpected_type_is_recorded_with_its_error_and_raised(tmp_path, monkeypatch):
    # a key with a character outside ASCII: the HTTP library refuses to send its header with a
    # UnicodeEncodeError, which no handler of the client expects
    monkeypatch.setenv("KG_TEST_LLM_KEY", KEY + "\u2026")
    with ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32})) as endpoint:
        s = strategy(tmp_path, endpoint)
        with pytest.raises(UnicodeEncodeError):
            s.ask(1)
    assert endpoint.requests == []
    (call,) = read_calls(tmp_path / "llm")
    assert call["error"].startswith("UnicodeEncodeError: 'ascii' codec can't encode character '\\u2026'")
    assert [m["role"] for m in call["messages"]] == ["system", "user", "user"]
    assert "Propose 2 new genomes" in call["messages"][2]["content"] and "reply" not in call
    assert KEY not in recorded_text(tmp_path / "llm")


def test_a_key_that_an_error_quotes_is_masked_in_the_record_and_the_message(tmp_path, monkeypatch):
    # read from a file with Windows line ends: the HTTP library refuses the header and quotes it whole
    monkeypatch.setenv("KG_TEST_LLM_KEY", KEY + "\r")
    with (ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32})) as endpoint,
          pytest.raises(UserError, match=r"Illegal header value b'Bearer \*\*\*'") as raised):
        strategy(tmp_path, endpoint).ask(1)
    assert KEY not in str(raised.value)
    assert "Bearer ***" in read_calls(tmp_path / "llm")[0]["error"]
    assert KEY not in recorded_text(tmp_path / "llm")
