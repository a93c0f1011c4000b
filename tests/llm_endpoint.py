"""A real OpenAI-compatible chat endpoint on 127.0.0.1 for the LLM operator's tests.

It serves ``POST /v1/chat/completions`` over HTTP in a thread, keeps every request body it got,
and answers with what ``answer(body)`` returns: a string (the assistant's text), an
``(http_status, error_message)`` pair, or bytes: the whole body of a 200 answer, as sent.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Answer = Callable[[dict[str, Any]], "str | tuple[int, str] | bytes"]


class ChatEndpoint:
    def __init__(self, answer: Answer, finish_reason: Callable[[str], str] = lambda text: "stop",
                 keepalive_s: Callable[[int], float] = lambda request: 0.0):
        # keepalive_s(n): seconds the n-th request's answer is preceded by a space every 0.1 s, as
        # a proxy keeps a slow answer's connection alive
        self.answer, self.finish_reason, self.keepalive_s = answer, finish_reason, keepalive_s
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                endpoint.requests.append(body)
                endpoint.headers.append({k.lower(): v for k, v in self.headers.items()})
                out = endpoint.answer(body)
                if isinstance(out, tuple):
                    return self._send(out[0], {"error": {"message": out[1], "type": "test"}})
                if isinstance(out, bytes):
                    return self._send_bytes(200, out)
                self._send(200, {
                    "id": f"chatcmpl-{len(endpoint.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": endpoint.finish_reason(out),
                                 "message": {"role": "assistant", "content": out}}],
                    "usage": {"prompt_tokens": sum(len(m["content"]) for m in body["messages"]) // 4,
                              "completion_tokens": len(out) // 4,
                              "total_tokens": sum(len(m["content"]) for m in body["messages"]) // 4 + len(out) // 4}})

            def _send(self, status: int, payload: dict) -> None:
                self._send_bytes(status, json.dumps(payload).encode())

            def _send_bytes(self, status: int, data: bytes) -> None:
                spaces = round(endpoint.keepalive_s(len(endpoint.requests)) / 0.1)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(spaces + len(data)))
                self.end_headers()
                try:
                    for _ in range(spaces):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.1)
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "ChatEndpoint":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def genomes_answer(*genomes: dict[str, Any], why: str = "test") -> str:
    """An answer in the asked form, inside a Markdown fence as models often write it."""
    return "Here they are:\n```json\n" + json.dumps(
        {"genomes": [{"params": g, "from": None, "why": why} for g in genomes]}) + "\n```\n"
