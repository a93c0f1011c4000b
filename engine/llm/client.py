"""One chat completion from an OpenAI-compatible endpoint (OpenAI, vLLM, SGLang, llama.cpp, ...).

The API key is read here, from the environment variable the user names, and nowhere else; it is
never written to the run folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

# Local servers (vLLM, llama.cpp) ignore the key, but the openai client refuses to start without one.
_NO_KEY = "unset"
_SHORTEST_MASKED_KEY = 8


class LlmError(Exception):
    """A call that returned no text: the endpoint was unreachable, refused or answered nothing."""

    def __init__(self, message: str, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal  # a wrong key, model or URL: no later call can succeed either


@dataclass(frozen=True)
class Endpoint:
    model: str
    base_url: str | None = None       # None: the openai client's own default (OPENAI_BASE_URL or OpenAI)
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None  # None: not sent, the server's default (reasoning models refuse one)
    max_tokens: int | None = None     # None: not sent
    timeout_s: float = 300.0           # the whole call, the client's retries included
    max_retries: int = 2              # the client's own retries of connection errors, 429 and 5xx
    extra: dict[str, Any] = field(default_factory=dict)  # more request fields (reasoning_effort, top_p, ...)

    def describe(self) -> dict[str, Any]:
        """What the transcript keeps of the endpoint (never the key itself)."""
        return {"model": self.model, "base_url": self.base_url, "api_key_env": self.api_key_env,
                "api_key_set": bool(os.environ.get(self.api_key_env)), "temperature": self.temperature,
                "max_tokens": self.max_tokens, "extra": self.extra}

    def masked(self, text: str) -> str:
        """``text`` with the key masked, should it quote it: error texts are recorded in the run
        folder and printed, and the HTTP library names a header it refuses (a key read from a
        file with a stray ``\\r``) in full, escaped as bytes."""
        key = os.environ.get(self.api_key_env) or ""
        if len(key) < _SHORTEST_MASKED_KEY:
            # a placeholder a local server ignores ("x", "EMPTY"): masking it would garble the
            # text and hide nothing
            return text
        for form in (key, repr(key)[1:-1], repr(key.encode(errors="replace"))[2:-1]):
            text = text.replace(form, "***")
        return text

    def request_fields(self, seed: int | None) -> dict[str, Any]:
        """The request's fields beside the messages; the unset ones are left to the server."""
        fields = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": seed}
        return {**{k: v for k, v in fields.items() if v is not None}, **self.extra}


@dataclass(frozen=True)
class Reply:
    text: str
    model: str                        # the model the endpoint says answered
    finish_reason: str | None
    seconds: float
    usage: dict[str, int] = field(default_factory=dict)


class ChatClient:
    """Chat completions on one endpoint; the openai package is imported only when a run uses it."""

    def __init__(self, endpoint: Endpoint):
        try:
            import openai
        except ImportError:
            raise LlmError("the llm strategy needs the openai package: pip install openai", fatal=True) from None
        self.endpoint = endpoint
        self._openai = openai
        self._client = self._new_client()

    def _new_client(self):
        e = self.endpoint
        return self._openai.OpenAI(base_url=e.base_url, api_key=os.environ.get(e.api_key_env) or _NO_KEY,
                                   timeout=e.timeout_s, max_retries=e.max_retries)

    def chat(self, messages: list[dict[str, str]], seed: int | None = None) -> Reply:
        t0 = time.monotonic()
        raw = self._post_within_limit(messages, seed)
        seconds = time.monotonic() - t0
        try:
            return _reply(raw.content, self.endpoint.model, seconds)
        except ValueError as exc:  # json's errors too
            raise LlmError(f"{self._where()}: not a chat completion: {exc}") from None

    def _post_within_limit(self, messages: list[dict[str, str]], seed: int | None) -> Any:
        """The call, in a thread given ``timeout_s`` in all: httpx's timeout bounds each read, not
        the answer, so a server or proxy that sends a byte now and then (keep-alive whitespace)
        would hold the run, past --time-limit too, for as long as it likes."""
        done: queue.Queue = queue.Queue(maxsize=1)
        client = self._client

        def post() -> None:
            # signals are handled in the main thread only: Ctrl-C reaches the wait below, never
            # this handler, which hands the call's own faults to the caller's thread
            try:
                done.put((self._post(client, messages, seed), None))
            except BaseException as exc:
                done.put((None, exc))

        # a daemon: a call abandoned (timed out, interrupted) never holds the process at its exit
        threading.Thread(target=post, name="llm-call", daemon=True).start()
        try:
            raw, error = done.get(timeout=self.endpoint.timeout_s)
        except queue.Empty:
            self._abandon(client)
            raise LlmError(f"{self._where()}: no answer within {self.endpoint.timeout_s:g} s") from None
        except BaseException:  # Ctrl-C (or SIGTERM, which the CLI turns into one) while waiting
            with contextlib.suppress(Exception):  # the interrupt goes on, whatever the closing says
                self._abandon(client)
            raise
        if error is not None:
            raise error
        return raw

    def _abandon(self, client: Any) -> None:
        """The abandoned call's retries then find its client closed, so none reaches the server;
        the next call gets a fresh client."""
        client.close()
        self._client = self._new_client()

    def _post(self, client: Any, messages: list[dict[str, str]], seed: int | None) -> Any:
        e, openai = self.endpoint, self._openai
        try:
            # extra_body: fields the client does not know (a server's own) pass through unchecked;
            # the raw body, read here: the client takes any 200 body (a proxy's HTML page, an
            # object without choices) and the run would end in an AttributeError
            return client.chat.completions.with_raw_response.create(model=e.model, messages=messages,
                                                                    extra_body=e.request_fields(seed))
        except openai.AuthenticationError as exc:
            raise LlmError(f"{self._where()}: authentication refused ({exc.status_code}); set {e.api_key_env}",
                           fatal=True) from None
        except (openai.NotFoundError, openai.PermissionDeniedError) as exc:
            raise LlmError(f"{self._where()}: {exc.status_code} for model {e.model!r}: {_message(exc)}",
                           fatal=True) from None
        except openai.APIStatusError as exc:
            raise LlmError(f"{self._where()}: HTTP {exc.status_code}: {_message(exc)}") from None
        except openai.APITimeoutError:
            raise LlmError(f"{self._where()}: no answer within {e.timeout_s:g} s") from None
        except openai.APIConnectionError as exc:
            raise LlmError(f"{self._where()}: cannot connect: {exc.__cause__ or exc}") from None
        except openai.OpenAIError as exc:  # a malformed answer the client could not parse, ...
            raise LlmError(f"{self._where()}: {type(exc).__name__}: {exc}") from None

    def _where(self) -> str:
        return f"LLM endpoint {self.endpoint.base_url or str(self._client.base_url)}"


def _reply(body: bytes, model: str, seconds: float) -> Reply:
    """The answer's text, model, finish reason and token counts, each checked for its type."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError:
        snippet = " ".join(body[:300].decode(errors="replace").split())[:200]
        raise ValueError(f"the body is not JSON: {snippet!r}" if snippet else "the body is empty") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise ValueError("the answer holds no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(text, (str, type(None))):
        raise ValueError(f"choices[0] holds no message text: {json.dumps(choices[0])[:200]}")
    finish, named = choices[0].get("finish_reason"), data.get("model")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(text or "", named if isinstance(named, str) and named else model,
                 finish if isinstance(finish, str) else None, seconds,
                 {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)})


def _message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(exc)[:300]
