"""The long-lived evaluation process (one per GPU). Started by ``evaluators.runner``, as a new
interpreter or forked by a zygote (``evaluators.zygote``).

Protocol: one JSON request per line on stdin; one JSON reply per line on the file descriptor
named by KG_RESPONSE_FD, carrying the request's nonce. The process's own stdout is pointed at
stderr (the log), so whatever a candidate prints cannot corrupt the replies. After a runtime
fault on a GPU the reply asks to be restarted: sticky CUDA errors poison the context for
everything that follows.
"""

from __future__ import annotations

import faulthandler
import json
import math
import os
import select
import signal
import sys
import threading
import time
from pathlib import Path


def main() -> None:
    # out of the environment a candidate's launcher could read; each reply also carries its
    # request's nonce (below), which no candidate sees, so a line it writes to the fd is told apart
    replies = os.fdopen(int(os.environ.pop("KG_RESPONSE_FD")), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()  # a candidate that kills the process leaves its stack in the log
    # the driver's pid as it said it, not os.getppid() now: a driver already gone by this line
    # would leave init as the parent, and the watch would never see it go
    _end_with_the_driver(int(os.environ.get("KG_PARENT_PID", "0")))
    from evaluators.confinement import adopt_orphans

    adopt_orphans()  # what an isolated launcher leaves in a session of its own is this worker's to kill
    import torch

    cuda = os.environ.get("KG_DEVICE") != "cpu" and torch.cuda.is_available()
    if not cuda:
        os.environ["TRITON_INTERPRET"] = "1"  # read by Triton when kernels are decorated
    from evaluators.triton_backend import patch_interpreter_bf16_dot

    if not cuda:
        patch_interpreter_bf16_dot()
    if os.environ.get("KG_COMPILE_ONLY") == "1":
        if not cuda:
            raise SystemExit("a compile-ahead worker needs a CUDA GPU (the interpreter compiles nothing)")
        from evaluators.triton_backend import compile_without_launching

        compile_without_launching()
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    from evaluators.harness import Evaluator

    device = torch.device("cuda", 0) if cuda else torch.device("cpu")
    # Progress lines name the stage under way, so that a timeout can say where it struck.
    evaluator = Evaluator(device, Path(sys.argv[1]), progress=lambda stage: _send(replies, {"progress": stage}))
    _send(replies, {"ready": True, "env": evaluator.env})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "exit":
            break
        nonce = req.pop("nonce", None)  # kept out of what the evaluation (and a candidate) is handed
        if os.environ.get("KG_COMPILE_ONLY") == "1":
            req = {**req, "compile_only": True}  # whatever it is sent, this process only compiles
        result = evaluator.evaluate(req)
        result["restart"] = cuda and result["status"] in _POISONING
        result["nonce"] = nonce
        _send(replies, result)
        if result["restart"]:
            break


def _end_with_the_driver(parent: int) -> None:
    """Kill this worker's process group once the driver that started it is gone. The driver kills
    the worker when it ends, but not when it is killed itself (kill -9, the OOM killer): the worker
    then saw its stdin close only after the candidate under way returned, and a hanging one kept
    spinning (and holding its GPU) for ever. The driver is watched by its pid, not as this
    process's parent: a worker forked by a zygote (evaluators/zygote.py) has another parent."""
    if not parent:
        return

    def end() -> None:
        os.killpg(os.getpgrp(), signal.SIGKILL)  # the group: a compiler it started goes too

    try:
        driver = os.pidfd_open(parent)
    except ProcessLookupError:
        end()  # gone before this line
        return
    except (AttributeError, OSError):  # no pidfd here (not Linux, a kernel before 5.3, a sandbox)
        # a new interpreter's parent is its driver; a zygote's worker's is not, and asks for its
        # driver by pid (a driver killed but not yet reaped still answers, until its parent reaps it)
        by_parent = os.getppid() == parent

        def watch() -> None:
            while (os.getppid() == parent) if by_parent else _alive(parent):
                time.sleep(0.5)
            end()
    else:
        def watch() -> None:
            select.select([driver], [], [])  # readable once the driver has ended
            end()

    threading.Thread(target=watch, name="end-with-the-driver", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or the pid now another user's process
        return False
    return True


# Outcomes after which the CUDA context may be broken (sticky errors, an aborted capture).
_POISONING = ("runtime_error", "out_of_memory", "illegal_address", "launch_failure",
              "rejected_not_capturable")


def _send(stream, obj) -> None:
    stream.write(json.dumps(_clean(obj), allow_nan=False) + "\n")
    stream.flush()


def _clean(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


if __name__ == "__main__":
    main()
