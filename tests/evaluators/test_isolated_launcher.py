"""Launcher isolation (evaluators/isolated_launcher.py): a Triton candidate's host code runs in a
process of its own, on fake tensors, and the checker replays its trace. Through the real worker
under the interpreter: honest kernels pass, the cheats that lived in the launcher's Python come
to nothing or to their own verdict, and a trace is taken on no trust."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from engine.template import load_template
from evaluators import confinement, isolated_launcher
from evaluators.isolated_launcher import IsolatedEntry, LauncherTimeout
from evaluators.launch_trace import TraceError, encode, parse
from evaluators.triton_kernels import KernelSourceError, kernels_only, load

REPO = Path(__file__).resolve().parents[2]
ISOLATED = {"isolate_launcher": True}


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cpu", timeout_s=120)


def test_the_triton_template_passes_isolated_with_its_splits_merged_by_a_counter(runner):
    """Auto splits with the fused combine: the launcher allocates the partials, zeroes the arrival
    counters (torch.zeros, replayed here) and asks for the SM count (its CPU branch)."""
    template = load_template(REPO / "templates" / "sparse_mla.triton.j2")
    space = template.load_space()
    params = {**space.default_params(), "NUM_SPLITS": "auto", "COMBINE": "fused"}
    assert space.is_valid(params), space.violations(params)
    result = runner.evaluate(template.request(template.render(params), params, seed=5, bench=False, guards=ISOLATED))
    assert result["status"] == "ok", result["error"]
    assert result["verify"] and all(v["out_rel_l2"] < 0.02 for v in result["verify"])


# fault: (status, stage, words) isolated, with the static guard off so that the launcher runs
CHEATS = {
    "none": ("ok", None, ""),
    "half_heads": ("incorrect", "verify", "NaN (unwritten"),
    "input_mutation": ("rejected_input_mutation", "input_mutation", "wrote to its inputs"),  # zero_ is replayed
    "torch_compute": ("rejected_torch_compute", "torch_compute", "computed with PyTorch (aten."),
    "hidden_torch": ("rejected_torch_compute", "torch_compute", "computed with PyTorch (aten."),
    # the harness it would rebind is in another process: its own copy changes, the checker's does not
    "patch_checker": ("runtime_error", "compile", "KeyError: 'evaluators.sparse_mla'"),
    "code_swap": ("incorrect", "verify", "NaN (unwritten"),
    "instance_patch": ("runtime_error", "compile", "no attribute 'f_locals'"),
    "tensor_patch": ("ok", None, ""),
    # the reply it forges lands on the recorder's channel, as an answer of no known form
    "forged_reply": ("runtime_error", "compile", "protocol does not have"),
    "python_host": ("runtime_error", "compile", "sees shapes, not values"),
    # one trace a signature: a launcher cannot count its calls or keep an answer between them
    "stop_after_verify": ("ok", None, ""),
    "nondeterministic": ("ok", None, ""),
    "cached_copy": ("runtime_error", "verify", "a module-level tensor?"),
    "late_write": ("ok", None, ""),  # its thread writes a fake tensor in its own process
}


@pytest.mark.parametrize("fault", sorted(CHEATS))
def test_each_cheat_of_the_launcher_comes_to_nothing_or_to_its_verdict(runner, faulty_request, fault):
    status, stage, words = CHEATS[fault]
    bench = fault in ("none", "stop_after_verify", "late_write")
    result = runner.evaluate(faulty_request(fault, bench=bench, guards={"static": False, **ISOLATED}))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]
    assert words in (result["error"] or "")


def test_the_environment_turns_isolation_on_and_a_request_overrides_it(monkeypatch):
    monkeypatch.setenv(confinement.ENV, "1")
    assert confinement.isolation_wanted({}) and not confinement.isolation_wanted({"isolate_launcher": False})
    monkeypatch.delenv(confinement.ENV)
    assert not confinement.isolation_wanted({}) and confinement.isolation_wanted(ISOLATED)


def _small_args(batch: int = 1, heads: int = 16, topk: int = 64):
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(batch, heads, 576, generator=gen).to(torch.bfloat16)
    cache = torch.randn(1, 64, 576, generator=gen).to(torch.bfloat16)
    indices = torch.randint(0, 64, (batch, topk), generator=gen, dtype=torch.int32)
    out = torch.full((batch, heads, 512), float("nan"), dtype=torch.bfloat16)
    lse = torch.full((batch, heads), float("nan"))
    return q, cache, indices, 0.04, out, lse


def test_a_launcher_that_hangs_is_a_timeout_and_its_process_is_gone(tmp_path, faulty_request, monkeypatch):
    monkeypatch.setattr(isolated_launcher, "RECORD_S", 3.0)
    # slow_compile's launcher loops in its first call: no kernel of it runs in this process
    entry = IsolatedEntry(faulty_request("slow_compile")["source"], "sparse_mla_decode", torch.device("cpu"))
    try:
        with pytest.raises(LauncherTimeout, match="had not recorded a call after 3 s"):
            entry(*_small_args())
        assert entry._proc.poll() is not None  # killed, its group with it
    finally:
        entry.close()


HALF_A_LINE = '''
import torch


def sparse_mla_decode(q, kv_cache, indices, sm_scale, out, lse):
    for name in torch.os.listdir("/proc/self/fd"):
        if int(name) > 2:
            try:
                torch.os.write(int(name), b'{"trace": ')
            except OSError:
                pass
    while True:
        pass
'''


def test_a_recorder_that_writes_half_an_answer_and_stops_is_a_timeout(monkeypatch):
    monkeypatch.setattr(isolated_launcher, "RECORD_S", 3.0)
    entry = IsolatedEntry(HALF_A_LINE, "sparse_mla_decode", torch.device("cpu"))
    try:
        with pytest.raises(LauncherTimeout, match="had not recorded a call after 3 s"):
            entry(*_small_args())
    finally:
        entry.close()


ESCAPES = '''
import torch


def sparse_mla_decode(q, kv_cache, indices, sm_scale, out, lse):
    torch.os.system("setsid sleep 3001.25 &")  # a session of its own: out of its group's kill
'''


def test_what_the_recorder_starts_in_a_session_of_its_own_is_killed_with_it(runner, faulty_request):
    request = {**faulty_request("none"), "source": ESCAPES, "guards": {"static": False, **ISOLATED}}
    result = runner.evaluate(request)
    assert result["status"] == "incorrect", result["error"]  # it launched nothing
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p) == b"sleep\x003001.25\x00"]
    assert not left


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_no_recorder_outlives_its_evaluation(runner, faulty_request):
    for fault in ("none", "torch_compute", "python_host"):  # passed, rejected, failed
        runner.evaluate(faulty_request(fault, guards={"static": False, **ISOLATED}))
        assert _children(runner.proc.pid) == [], fault


def _children(pid: int) -> list[int]:
    """The pids of the processes whose parent is ``pid`` (a recorder is its worker's child)."""
    return [child for child, parent, _ in isolated_launcher._processes() if parent == pid]


# -- a trace is data from the candidate's process: every field is checked -------------------------
KERNELS = {"_kernel"}


@pytest.mark.parametrize("trace, words", [
    ([{"op": "aten.mm.default", "args": [{"t": 0}, {"t": 1}], "out": [2]}], "not an operator a launcher may issue"),
    ([{"op": "aten.empty.memory_format", "args": [{"seq": [4]}], "out": [2]},
      {"launch": "_reference", "grid": [1], "args": [{"t": 2}]}], "not a module-level @jit kernel"),
    ([{"launch": "_kernel", "grid": [1], "args": [{"t": 7}]}], "neither an argument of the call nor made"),
    ([{"launch": "_kernel", "grid": [1, 2, 3, 4], "args": []}], "one to three non-negative ints"),
    ([{"launch": "_kernel", "grid": [-1], "args": []}], "one to three non-negative ints"),
    ([{"launch": "_kernel", "grid": [1], "args": [{"pickle": "..."}]}], "unknown kind"),
    ([{"launch": "_kernel", "grid": [1], "args": [{"dtype": "Tensor"}]}], "not a torch dtype"),
    ([{"exec": "import os"}], "neither an op nor a launch"),
    ({"launch": "_kernel"}, "a list of at most"),
])
def test_a_trace_that_asks_for_more_than_a_launcher_may_is_refused(trace, words):
    with pytest.raises(TraceError, match=words):
        parse(trace, {0, 1}, KERNELS)


def test_a_well_formed_trace_is_accepted_and_its_values_round_trip():
    ids = {}
    t = torch.empty(3)
    steps = parse([{"op": "aten.zeros.default", "args": [encode([2, 3], ids.get)],
                    "kwargs": {"dtype": encode(torch.int32, ids.get), "device": encode(torch.device("cpu"), ids.get)},
                    "out": [2]},
                   {"launch": "_kernel", "grid": [2, 1], "args": [{"t": 0}, {"t": 2}, encode(float("nan"), ids.get)],
                    "kwargs": {"BH": 16}}], {0, 1}, KERNELS)
    assert [s.kernel for s in steps] == [None, "_kernel"] and steps[1].grid == (2, 1)
    with pytest.raises(TraceError, match="cannot hand on"):
        encode(object(), ids.get)
    assert encode(t, lambda x: 5) == {"t": 5}


def test_the_kernels_module_keeps_the_kernels_and_their_constants_as_literals_and_drops_the_host_code():
    source = '''
import os
import math
import torch
import triton
import triton.language as tl
from triton.experimental.gluon import language as gl
BH = 16
BK = BH * 4
LOG2E = 1 / math.log(2)
SCALE = tl.constexpr(0.5)
WIDE: tl.constexpr = 8
HUGE = 1 << 100000
TABLE = torch.arange(4)
PATH = os.getcwd()
SNEAKY = (print("ran") or tl).constexpr(1)

@triton.heuristics({"EVEN": lambda args: args["n"] % 2 == 0})
@triton.jit(do_not_specialize=["n"])
def _kernel(x_ptr, n, EVEN: tl.constexpr):
    pass

def launcher(x):
    _kernel[(1,)](x, 4)
'''
    cut, names = kernels_only(source)
    assert names == ["_kernel"]
    for kept in ("import triton", "import triton.language as tl", "from triton.experimental.gluon import language",
                 "BH = 16", "BK = 64", f"LOG2E = {1 / math.log(2)!r}", "SCALE = _kg_tl.constexpr(0.5)",
                 "WIDE = _kg_tl.constexpr(8)", "@triton.jit(do_not_specialize=('n',))", "def _kernel("):
        assert kept in cut, kept
    for dropped in ("import os", "import torch", "HUGE", "TABLE", "PATH", "SNEAKY", "print", "heuristics",
                    "def launcher"):
        assert dropped not in cut, dropped
    module = load(cut)
    assert module.BK == 64 and module.SCALE == 0.5


@pytest.mark.parametrize("kernel, words", [
    ("@triton.jit\ndef _k(x, D=print('ran')):\n    pass", "has a default value"),
    ("@triton.jit\ndef _k(x, *, D=1):\n    pass", "has a default value"),
    ("@triton.jit\ndef _k(x: print('ran')):\n    pass", "annotates 'x' with something other than constexpr"),
    ("@triton.jit\ndef _k(x) -> print('ran'):\n    pass", "return annotation"),
    ("@(print('ran') or triton).jit\ndef _k(x):\n    pass", "no decorator that is Triton's or Gluon's jit"),
    ("@triton.jit(debug=print('ran'))\ndef _k(x):\n    pass", "passes its decorator a value that is not a literal"),
])
def test_a_kernel_whose_signature_or_decorator_would_run_python_when_loaded_is_refused(kernel, words):
    with pytest.raises(KernelSourceError, match=words):
        kernels_only(f"import triton\nimport triton.language as tl\n{kernel}\n")


def test_an_operator_name_that_is_not_an_overload_is_refused():
    with pytest.raises(TraceError, match="no operator"):
        parse([{"op": "aten.copy_.__init__", "args": ["aten::copy_"], "out": []}], {0}, KERNELS)


# -- what keeps a confined launcher off the processes around it ------------------------------------
GIVE_UP_PRIVILEGE = "import ctypes; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)\n"  # PR_SET_NO_NEW_PRIVS


def test_a_process_that_gave_up_privilege_is_less_privileged_and_this_one_is_not():
    child = subprocess.Popen([sys.executable, "-c", GIVE_UP_PRIVILEGE + "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while "NoNewPrivs:\t1" not in Path(f"/proc/{child.pid}/status").read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert "no_new_privs" in (confinement.less_privileged(child.pid) or "")
        assert confinement.less_privileged(os.getpid()) is None
    finally:
        child.communicate(b"")


def test_the_zygote_forks_nothing_for_a_process_with_less_privilege(tmp_path):
    """A candidate's confined launcher that finds the zygote's socket cannot have it fork a process
    with the privilege it gave up (which could then trace the worker)."""
    socket_path = os.environ.get("KG_WORKER_ZYGOTE")
    if not socket_path or socket_path == "off":
        pytest.skip("the test session runs no zygote")
    asker = GIVE_UP_PRIVILEGE + f"""
import os, sys
from pathlib import Path
from evaluators import zygote
read_fd, write_fd = os.pipe()
try:
    zygote.spawn({socket_path!r}, [sys.executable, "-m", "evaluators.worker", "x"], dict(os.environ), Path.cwd(),
                 Path({str(tmp_path / "w.log")!r}), write_fd)
except OSError as exc:
    print("refused:", exc)
else:
    print("forked")
"""
    done = subprocess.run([sys.executable, "-c", asker], capture_output=True, text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "refused:" in done.stdout and "less privilege than this zygote" in done.stdout, done.stdout + done.stderr
