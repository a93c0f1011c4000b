"""Every LLM call of a run, word for word: ``llm/calls.jsonl`` in the run folder, one line a call.

A line holds the messages sent, the answer, the endpoint (never its key), the time taken, the
token counts, and what became of the answer (the genomes proposed, or why none were); a call
that got no answer holds its ``error`` instead: the endpoint's fault, a fault of another kind
(its type and text), or ``interrupted after N s`` (Ctrl-C while it waited; ``seconds`` too).
A message longer than ``INLINE_CHARS`` (the brief: template, space, sheets) is kept once by
content, in ``llm/text/<sha256>.txt``, and named by its hash in each line that sent it;
``read_calls`` puts the text back, so a reader sees exactly what the endpoint saw. Lines are only
appended.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from engine.errors import UserError

INLINE_CHARS = 4000
CALLS = "calls.jsonl"


class Transcript:
    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / CALLS
        folder.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as f:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
            if torn:  # a driver killed mid-line: end that line so the next one stands alone
                with self.path.open("a") as f:
                    f.write("\n")
        past = read_calls(folder, restore=False)
        self.count = len(past)
        self.answered = sum("reply" in e for e in past)  # calls the endpoint answered, this run's earlier ones too

    def record(self, entry: dict[str, Any]) -> None:
        messages = [self._stored(m) for m in entry.get("messages", [])]
        line = json.dumps({**entry, "messages": messages}, default=str)
        with self.path.open("a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.count += 1
        self.answered += "reply" in entry

    def _stored(self, message: dict[str, str]) -> dict[str, str]:
        content = message["content"]
        if len(content) <= INLINE_CHARS:
            return message
        digest = hashlib.sha256(content.encode()).hexdigest()
        blob = self.folder / "text" / f"{digest}.txt"
        if not blob.exists():
            blob.parent.mkdir(exist_ok=True)
            tmp = blob.with_suffix(".tmp")
            tmp.write_text(content)
            tmp.replace(blob)
        return {"role": message["role"], "content_sha256": digest}


def read_calls(folder: Path, restore: bool = True) -> list[dict[str, Any]]:
    """The run's calls in order, each message's text restored (``restore``: else long messages
    stay named by their hash, for readers that count or sum); a line torn by a killed driver is
    left out, any other unreadable line is an error naming it."""
    path = folder / CALLS
    if not path.exists():
        return []
    lines = path.read_text().split("\n")
    calls: list[dict[str, Any]] = []
    texts: dict[str, str] = {}  # each kept text read once: every call of a run sends the same brief
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            if not line.rstrip().endswith("}"):
                continue  # cut short by a kill, then ended by the next writer (Transcript.__init__)
            raise UserError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        if restore:
            entry["messages"] = [_restored(folder, m, path, number, texts) for m in entry.get("messages", [])]
        calls.append(entry)
    return calls


def _restored(folder: Path, message: dict[str, str], path: Path, number: int,
              texts: dict[str, str]) -> dict[str, str]:
    digest = message.get("content_sha256")
    if digest is None:
        return message
    if digest not in texts:
        blob = folder / "text" / f"{digest}.txt"
        try:
            text = blob.read_text()
        except OSError:
            raise UserError(f"{path}:{number}: names {blob}, which is missing") from None
        if hashlib.sha256(text.encode()).hexdigest() != digest:
            raise UserError(f"{blob}: its text no longer matches its hash (edited after the run?)")
        texts[digest] = text
    return {"role": message["role"], "content": texts[digest]}
