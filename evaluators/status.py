"""The outcome of one evaluation: an explicit status, never a sentinel value."""

from enum import Enum


class Status(str, Enum):
    OK = "ok"
    INVALID_GENOME = "invalid_genome"    # outside its space; never rendered
    RENDER_ERROR = "render_error"        # the template could not be filled
    COMPILE_ERROR = "compile_error"      # syntax, lowering or resources the compiler refused
    COMPILE_TIMEOUT = "compile_timeout"  # the worker was killed while compiling
    INCORRECT = "incorrect"              # ran, but the answer disagrees with the reference
    RUNTIME_ERROR = "runtime_error"      # raised while running
    ILLEGAL_ADDRESS = "illegal_address"  # a device memory fault (the worker is restarted)
    LAUNCH_FAILURE = "launch_failure"    # the device refused or aborted the launch
    OUT_OF_MEMORY = "out_of_memory"
    TIMEOUT = "timeout"                  # the worker took longer than its limit and was killed
    WORKER_CRASH = "worker_crash"        # the worker process died (signal, abort)
    # guards (evaluators/guards.py): the candidate did something a fair kernel does not
    REJECTED_STATIC = "rejected_static"                    # forbidden construct in the source
    REJECTED_TORCH_COMPUTE = "rejected_torch_compute"      # its host code computed with PyTorch
    REJECTED_INPUT_MUTATION = "rejected_input_mutation"    # wrote to its inputs
    REJECTED_NONDETERMINISTIC = "rejected_nondeterministic"  # same inputs, different outputs
    REJECTED_DEFERRED_WRITE = "rejected_deferred_write"    # outputs changed after the call returned
    REJECTED_NOT_CAPTURABLE = "rejected_not_capturable"    # cannot be captured in a CUDA graph
    REJECTED_BELOW_ROOFLINE = "rejected_below_roofline"    # faster than physics allows, twice
    REJECTED_HIDDEN_WORK = "rejected_hidden_work"          # device busy long after its events closed
    REJECTED_E2E_SLOWDOWN = "rejected_e2e_slowdown"        # far slower inside the decode layer than alone, twice
    REJECTED_HARNESS_TAMPER = "rejected_harness_tamper"    # rebound a name of the harness's modules or torch's
    REJECTED_FORGED_REPLY = "rejected_forged_reply"        # a reply on the worker's channel it did not send
