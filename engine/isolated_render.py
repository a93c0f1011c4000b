"""Render a genome's rewritten code regions in a child process with a time and memory limit.

The regions an LLM rewrites are Jinja, and Jinja's sandbox stops attribute tricks but not work:
``{% for i in range(100000) %}{% for j in range(100000) %}`` renders for hours and
``{{ 'x' * 10**10 }}`` asks for 10 GB, either of which would hang or kill the driver, and with it
the run. In a child, a hang is stopped at ``timeout_s`` and a memory blow-up is a MemoryError under
an address-space limit; both come back as the genome's RenderError (a ``render_error`` row), and
the run goes on. The template's own text, without rewritten regions, is the user's and is
rendered in the driver as before.

Usage as the child (what ``render_in_child`` runs): ``python -m engine.isolated_render`` with one
JSON request on stdin, one JSON answer on stdout.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import subprocess
import sys
from collections.abc import Mapping

from engine.genome import Value, canonical_code
from engine.template import RenderError, render_with_code
from evaluators.runner import repo_pythonpath

TIMEOUT_S = 30.0           # a region of the CUDA template renders in well under a second
MEMORY_BYTES = 2 << 30     # the child's address space: Python and Jinja take about 100 MB of it
MAX_SOURCE_BYTES = 8 << 20  # the CUDA template renders to about 200 KB; more is a runaway loop's


def render_in_child(text: str, code: Mapping[str, str], params: Mapping[str, Value], where: str,
                    timeout_s: float = TIMEOUT_S) -> str:
    """``render_with_code(text, code, params, where)``, rendered in a child process; a render that
    runs past ``timeout_s``, exhausts its memory or writes more than MAX_SOURCE_BYTES is a
    RenderError naming the rewritten regions."""
    return _cached(text, canonical_code(code), json.dumps(dict(params), sort_keys=True), where, timeout_s)


@functools.lru_cache(maxsize=64)
def _cached(text: str, code_json: str, params_json: str, where: str, timeout_s: float) -> str:
    # one genome is rendered several times (its hash, its build for the run's GPUs, its request):
    # a child each time would cost a Python start each
    request = json.dumps({"text": text, "code": json.loads(code_json), "params": json.loads(params_json),
                          "where": where})
    env = {**os.environ, "PYTHONPATH": repo_pythonpath()}
    try:
        done = subprocess.run([sys.executable, "-m", "engine.isolated_render"], input=request, text=True,
                              capture_output=True, timeout=timeout_s, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(f"{where}: the rewritten code regions: still rendering after {timeout_s:g} s "
                          "(stopped; a loop too long?)") from None
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RenderError(f"{where}: the rewritten code regions: the render's process ended with code "
                          f"{done.returncode} and no answer: {done.stderr.strip()[-300:]!r}") from None
    if "error" in answer:
        raise RenderError(answer["error"])
    return answer["source"]


def _child() -> None:
    # the limit is set before the request is read: nothing the render does can lift it
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    request = json.loads(sys.stdin.read())
    where = request["where"]
    try:
        source = render_with_code(request["text"], request["code"], request["params"], where)
    except RenderError as exc:
        answer = {"error": str(exc)}
    except MemoryError:
        answer = {"error": f"{where}: the rewritten code regions: the render used more than "
                           f"{MEMORY_BYTES >> 30} GiB (stopped)"}
    else:
        size = len(source.encode())
        answer = {"source": source} if size <= MAX_SOURCE_BYTES else {
            "error": f"{where}: the rewritten code regions: the rendered source has {size:,} bytes, over "
                     f"{MAX_SOURCE_BYTES >> 20} MiB (a loop too long?)"}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    _child()
