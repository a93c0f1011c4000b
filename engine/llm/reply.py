"""Genomes out of an LLM's answer.

The answer should be one JSON object
``{"genomes": [{"params": {...}, "code": {REGION: TEXT}, "from": ID, "why": TEXT}]}`` ("code" only
where the template has code regions);
a bare list of such items, or of parameter objects, is taken too, with or without a Markdown
fence around it. Parameters name only the genes they change (the rest keep their defaults).
A string where the gene takes numbers or booleans ("64", "true") is read as JSON when that gives
one of the gene's values. Whether a genome lies in the space is not judged here: the loop records
an invalid one as a failed attempt with the reason, as for any strategy.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.genome import Space, Value


@dataclass(frozen=True)
class Suggestion:
    params: dict[str, Any]           # the space's defaults overlaid with the answer's genes
    why: str = ""
    parent: str | None = None        # the genome id the LLM says it changed
    code: dict[str, Any] | None = None  # new text for code regions; checked against them by the loop


_NOTES = ("why", "from", "code")  # an item's keys beside its genes


class UnreadableReply(ValueError):
    """The answer holds no JSON genome list; the message says what was found instead."""


def parse_reply(text: str, space: Space, skipped: list[str] | None = None) -> list[Suggestion]:
    """The genomes of an answer. An item that is no genome at all (not an object, params or code
    not objects) is left out and said in ``skipped`` where the answer holds others; an answer of
    no readable item is unreadable."""
    data = _answer_json(_REASONING.sub("", text), space)
    items = data.get("genomes") if isinstance(data, dict) else data
    if isinstance(data, dict) and items is None:
        items = [data] if _one_genome(data, space) else None
    if not isinstance(items, list):
        raise UnreadableReply('expected {"genomes": [...]}; the JSON found has keys '
                              f"{sorted(data) if isinstance(data, dict) else type(data).__name__}")
    suggestions, unread = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            unread.append(f"genomes[{i}] is a {type(item).__name__}, not an object")
            continue
        params = item["params"] if "params" in item else {k: v for k, v in item.items() if k not in _NOTES}
        if not isinstance(params, dict):
            unread.append(f"genomes[{i}] has no params object")
            continue
        code = item.get("code")
        if code is not None and not isinstance(code, dict):
            unread.append(f"genomes[{i}].code is a {type(code).__name__}, not an object of region texts")
            continue
        merged = space.default_params()
        merged.update({name: _typed(space, name, value) for name, value in params.items()})
        parent = item.get("from")
        suggestions.append(Suggestion(merged, str(item.get("why", ""))[:2000],
                                      parent if isinstance(parent, str) else None, code or None))
    if unread and not suggestions:
        raise UnreadableReply("; ".join(unread[:5]))
    if skipped is not None:
        skipped.extend(unread)
    return suggestions


# a reasoning model's thoughts, which servers without a reasoning parser leave in the answer: any
# JSON there is a draft or a quote of the defaults, not the answer
_REASONING = re.compile(r"<think>.*?</think>", re.DOTALL)


def _answer_json(text: str, space: Space) -> Any:
    """The answer among the JSON values of ``text``: the first object with "genomes", else the first
    list, else the first non-empty object of genes or with "params", else the first value at all.
    (Prose before the answer may quote JSON: the defaults, a gene's values.)"""
    found = []
    for value in _json_values(text):
        if isinstance(value, dict) and "genomes" in value:
            return value  # the asked form: nothing after it is read
        found.append(value)
    if not found:
        snippet = " ".join(text.split())[:200]
        raise UnreadableReply(f"no JSON object in the answer: {snippet!r}" if snippet else "the answer is empty")
    ranked = [v for v in found if isinstance(v, list)] + [v for v in found if isinstance(v, dict) and v
                                                          and _one_genome(v, space)]
    return (ranked or found)[0]


def _one_genome(data: dict, space: Space) -> bool:
    """An answer that is a single genome: an item with params, or an object of genes alone."""
    return "params" in data or set(data) <= set(space.gene_names)


def _json_values(text: str):
    """Each JSON object or list in ``text``, in order, none inside another."""
    decoder, start = json.JSONDecoder(), 0
    while True:
        start = min((i for i in (text.find("{", start), text.find("[", start)) if i >= 0), default=-1)
        if start < 0:
            return
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start += 1
            continue
        except RecursionError:  # "[[[[..." from a model caught in a loop: json recurses per level
            raise UnreadableReply(f"the JSON at character {start} is nested too deeply to read") from None
        yield value
        start = end


def _typed(space: Space, name: str, value: Any) -> Value:
    if not isinstance(value, str) or name not in space.gene_names:
        return value
    gene = space.gene(name)
    if gene.admits(value):
        return value
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return value
    return parsed if gene.admits(parsed) else value
