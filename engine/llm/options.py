"""The evolve command's --llm-* options: their defaults, their checks, and what of them a run
keeps in run.json, so that `--resume` goes on with the same endpoint and settings without the
user typing them again. The key is never kept: only the name of the variable that holds it."""

from __future__ import annotations

import json
import math
import os
import urllib.parse
from pathlib import Path

from engine.errors import UserError
from engine.llm.client import ChatClient, Endpoint, LlmError
from engine.strategies import STRATEGIES

# argparse leaves these None when the command does not name them, so that a resume can tell what
# was typed from what to take from the run; the defaults apply after that
FIELDS = ("llm_model", "llm_base_url", "llm_api_key_env", "llm_batch", "llm_calls", "llm_patience", "llm_partner",
          "llm_context", "llm_temperature", "llm_max_tokens", "llm_extra", "llm_timeout_s")
DEFAULTS = {"llm_api_key_env": "OPENAI_API_KEY", "llm_batch": 4, "llm_partner": "random", "llm_timeout_s": 300.0}
# what --llm-forget may drop from a resumed run's options: every one but the model, which the
# strategy cannot go without (naming another replaces it)
FORGETTABLE = tuple(name for name in FIELDS if name != "llm_model")


def flag(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def named(args) -> list[str]:
    """The fields the command line (or, after ``take_recorded``, the run) gives."""
    return [name for name in FIELDS if getattr(args, name) not in (None, [])]


def _count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# what run.json may hold for each option, as the command line would take it (a hand-edited or
# damaged file is named, not followed into a traceback)
_VALID = {"llm_batch": _count, "llm_calls": _count, "llm_patience": _count, "llm_max_tokens": _count,
          "llm_temperature": lambda v: _number(v) and 0.0 <= v <= 2.0,
          "llm_timeout_s": lambda v: _number(v) and v > 0,
          "llm_partner": lambda v: v in STRATEGIES,
          "llm_context": lambda v: isinstance(v, list) and all(isinstance(p, str) and p for p in v)}


def take_recorded(args, recorded: object, where: str) -> None:
    """Fills each option the command leaves out from a resumed run's last session (``recorded``:
    what ``noted`` wrote, read from ``where``); one the command names wins. ``args.llm_from_run``
    names those taken, for the errors about them to say where they came from."""
    if not isinstance(recorded, dict):
        raise UserError(f"{where}: search.llm {recorded!r} is not an object of --llm-* options")
    # --llm-forget's choices are FORGETTABLE's names as flags: back to the names
    forget = {option.replace("-", "_") for option in getattr(args, "llm_forget", None) or ()}
    both = [flag(name) for name in FIELDS if name in forget and getattr(args, name) not in (None, [])]
    if both:
        raise UserError(f"{', '.join(both)}: named and forgotten (--llm-forget) at once; naming one replaces "
                        "what the run noted, forgetting it drops it")
    for name, value in recorded.items():
        valid = _VALID.get(name, lambda v: isinstance(v, str))
        taken = name not in forget and getattr(args, name, None) in (None, [])  # a damaged value can be left
        if name not in FIELDS or (taken and not (value is None or valid(value))):
            raise UserError(f"{where}: search.llm.{name} {value!r} is not a value of {flag(name)}")
    args.llm_from_run = []
    for name in FIELDS:
        if name not in forget and getattr(args, name) in (None, []) and recorded.get(name) not in (None, []):
            value = recorded[name]
            setattr(args, name, [Path(p) for p in value] if name == "llm_context" else value)
            args.llm_from_run.append(name)


def _noted_by_run(args, name: str) -> str:
    return (f" (noted in run.json by the run's last session; name {flag(name)} to replace it, or "
            f"--llm-forget {flag(name)[2:]} to go without it)"
            if name in getattr(args, "llm_from_run", ()) else "")


def check(args) -> None:
    """Refuses --llm-* options with another strategy, and with the llm strategy checks them all
    before the run starts (else the run finds them wrong only at its first call, after the
    reference and the default genome); then fills the defaults."""
    given = named(args) + (["llm_forget"] if getattr(args, "llm_forget", None) else [])
    if args.strategy != "llm":
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise UserError(f"{', '.join(map(flag, given))} {verb} to --strategy llm, not to {args.strategy}")
        return
    for name, value in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.llm_context = args.llm_context or []
    if not args.llm_model:
        resumed = " (the run noted none: name the --llm-* options)" if getattr(args, "resume", False) else ""
        raise UserError(f"--strategy llm needs --llm-model, the model's name at the endpoint{resumed}")
    missing = [str(p) for p in args.llm_context if not p.is_file()]
    if missing:
        raise UserError(f"--llm-context: no such file {', '.join(missing)}{_noted_by_run(args, 'llm_context')}")
    if args.llm_temperature is not None and not 0.0 <= args.llm_temperature <= 2.0:
        raise UserError(f"--llm-temperature {args.llm_temperature}: between 0 and 2")
    extra(args.llm_extra)
    _check_endpoint(args.llm_base_url, args.llm_api_key_env)


def noted(args) -> dict:
    """The options in effect, as run.json keeps them (context files by whole path: a resume may
    start in another working directory). The base URL only as given: OPENAI_BASE_URL stays the
    environment's to say each session."""
    if args.strategy != "llm":
        return {}
    kept = {name: getattr(args, name) for name in FIELDS}
    kept["llm_context"] = [str(Path(p).resolve()) for p in args.llm_context]
    return kept


def client(args) -> ChatClient:
    endpoint = Endpoint(args.llm_model, args.llm_base_url, args.llm_api_key_env, args.llm_temperature,
                        args.llm_max_tokens, args.llm_timeout_s, extra=extra(args.llm_extra))
    try:
        return ChatClient(endpoint)
    except LlmError as exc:
        raise UserError(str(exc)) from None


def extra(text: str | None) -> dict:
    if text is None:
        return {}
    try:
        fields = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"--llm-extra: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(fields, dict):
        raise UserError("--llm-extra: a JSON object of request fields, e.g. '{\"top_p\": 0.9}'")
    taken = sorted(set(fields) & {"model", "messages", "stream", "n"})
    if taken:
        raise UserError(f"--llm-extra: {taken} are the strategy's to set")
    return fields


def _check_endpoint(base_url: str | None, key_env: str) -> None:
    """The endpoint's URL and key as the openai client will take them."""
    source = "--llm-base-url"
    if base_url is None and "OPENAI_BASE_URL" in os.environ:
        source, base_url = "OPENAI_BASE_URL", os.environ["OPENAI_BASE_URL"]  # the client's own fallback
    if base_url is not None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UserError(f"{source} {base_url!r}: not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    if not key_env:
        raise UserError("--llm-api-key-env '': the name of an environment variable that holds the key")
    key = os.environ.get(key_env, "")
    if key and not (key.isascii() and key.isprintable() and key == key.strip()):
        # an HTTP header takes visible ASCII only: the call would fail on the key's bytes, not the
        # server's answer (a key read from a file with Windows line endings ends in "\r")
        raise UserError(f"{key_env}: the key has a character an HTTP header cannot carry (whitespace, "
                        f"a control or non-ASCII character; a line ending read from a file?); not shown")
    if not key:
        # a local server ignores the key (unset is fine); a variable named on purpose, or OpenAI's own
        # API, is meant to give one
        if key_env != "OPENAI_API_KEY":
            raise UserError(f"--llm-api-key-env {key_env}: that environment variable is not set or empty")
        if base_url is None:
            raise UserError("OPENAI_API_KEY is not set, and OpenAI's API (no --llm-base-url, no OPENAI_BASE_URL) "
                            "needs a key; name a local server with --llm-base-url")
