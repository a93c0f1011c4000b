"""The outcome of one evaluation: an explicit status, never a sentinel value."""

from enum import Enum


class Status(str, Enum):
    OK = "ok"
    INVALID_GENOME = "invalid_genome"    # outside its space; never rendered
    RENDER_ERROR = "render_error"        # the template could not be filled
    COMPILE_ERROR = "compile_error"      # syntax, lowering or resources the compiler refused
    INCORRECT = "incorrect"              # ran, but the answer disagrees with the reference
    RUNTIME_ERROR = "runtime_error"      # raised or faulted while running (illegal address, ...)
    OUT_OF_MEMORY = "out_of_memory"
    TIMEOUT = "timeout"                  # the worker took longer than its limit and was killed
    WORKER_CRASH = "worker_crash"        # the worker process died (signal, abort)


FAILED = frozenset(Status) - {Status.OK}
