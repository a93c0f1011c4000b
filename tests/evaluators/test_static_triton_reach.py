"""The static guard follows attribute chains from a Triton module's imports on the real modules:
torch.sys, torch.os and triton.runtime.jit.inspect are modules no import may name, reached
without one (evaluators/guards.py, `_check_module_reach`)."""

from __future__ import annotations

import pytest

from evaluators.guards import static_check_triton
from evaluators.rejection import Rejection

MODULE = "import math\n\nimport torch\nimport triton\nimport triton.language as tl\n\n\ndef entry(q):\n    {}\n"


@pytest.mark.parametrize("line, said", [
    ("torch.os.write(1, b'x')", "torch.os.write reaches module os"),
    ("x = torch.sys", "torch.sys reaches module sys"),
    ("triton.runtime.jit.inspect.stack()", "reaches module inspect"),
    ("torch.utils.cpp_extension.load_inline('m', '')", ".load_inline builds and loads native code"),
    ("build = torch.utils.cpp_extension", "reaches module torch.utils.cpp_extension"),
    ("x = torch.multiprocessing", "reaches module torch.multiprocessing"),
    ("torch.backends.cuda.matmul.allow_tf32 = True", "assigns to torch.backends.cuda.matmul.allow_tf32"),
    ("x = q.tolist()", ".tolist copies a tensor into Python lists"),
    ("x = q.float().numpy()", ".numpy copies a tensor into numpy"),
    ("x = torch.ops.load_library('x.so')", ".load_library loads native code"),
    # what would hide a chain from these checks: a module as a value, reflection re-exported by torch
    ("T = torch", "uses the module torch as a value"),
    ("x = [torch][0].os", "uses the module torch as a value"),
    ("F = torch.nn.functional", "uses the module torch.nn.functional as a value"),
    ("get = torch.autograd.profiler_util.attrgetter", "reaches operator.attrgetter"),
    # the third red team's: the interpreter's names, Triton calling the candidate's functions
    ("b = __builtins__", "uses the name __builtins__"),
    ("g = triton.cdiv.get_capture_scope()", ".get_capture_scope reads a module's globals"),
    ("c = triton.constexpr_function(torch.utils.checkpoint.checkpoint)", ".constexpr_function has Triton call"),
    # the host code's allowlist: what a launcher has no need of is refused by name
    ("type(q).any = len", "assigns to type(q).any"),
    ("t = type(q)", "host code uses type"),
    ("q.grad_fn", "host code reads .grad_fn of q"),
    ("x = [v for v in q.shape]", "a ListComp in host code"),
    ("f = lambda: 0", "a Lambda in host code"),
    ("x = torch.load('w.pt')", "host code uses torch.load (torch.load), not in the host API"),
    ("x = torch.compile", "not in the host API"),
])
def test_a_chain_to_a_module_no_import_may_name_is_refused(line, said):
    with pytest.raises(Rejection, match="static") as caught:
        static_check_triton(MODULE.format(line), "entry")
    assert said in str(caught.value)


def test_host_statements_a_launcher_has_no_need_of_are_refused():
    for body, said in [("try:\n        pass\n    except Exception:\n        pass", "uses a Try statement"),
                       ("with q:\n        pass", "uses a With statement"),
                       ("global X", "uses a Global statement")]:
        with pytest.raises(Rejection, match=said):
            static_check_triton(MODULE.format(body), "entry")
    with pytest.raises(Rejection, match="a ClassDef at the module's top level"):
        static_check_triton(MODULE.format("pass") + "\n\nclass C:\n    pass\n", "entry")


def test_a_module_as_a_default_argument_is_refused():
    with pytest.raises(Rejection, match="uses the module torch as a value"):
        static_check_triton(MODULE.replace("def entry(q):", "def entry(q, T=torch):").format("pass"), "entry")


@pytest.mark.parametrize("line", [
    "x = torch.empty(3, dtype=torch.bfloat16, device=q.device)",
    "n = triton.cdiv(5, 2)",
    "x = math.log2(3)",
    "x = torch.cuda.get_device_properties(q.device).multi_processor_count",
    "x = torch.float8_e4m3fn",
    "x = triton.next_power_of_2(q.shape[0])",
])
def test_what_a_launcher_uses_passes(line):
    static_check_triton(MODULE.format(line), "entry")


KERNEL = ("import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _k(p, N: tl.constexpr):\n"
          "    {}\n\n\ndef entry(q):\n    _k[(1,)](q, N=4)\n")


@pytest.mark.parametrize("line, said", [
    # under the interpreter a kernel body is Python with Triton's own globals (inspect, np) beside the module's
    ("x = inspect.stack()", "kernel _k uses inspect"),
    ("print = tl.load(p)", "kernel _k rebinds print"),
    ("x = [v for v in range(N)]", "kernel _k holds a ListComp"),
    ("async def f():\n        yield 0", "kernel _k holds a AsyncFunctionDef statement"),
    ("f = lambda: 0", "kernel _k holds a Lambda"),
])
def test_a_kernel_body_names_only_its_own_the_modules_its_imports_and_tritons_builtins(line, said):
    with pytest.raises(Rejection, match="static") as caught:
        static_check_triton(KERNEL.format(line), "entry")
    assert said in str(caught.value)


def test_a_plain_kernel_body_passes():
    static_check_triton(KERNEL.format("x = tl.load(p + tl.arange(0, N))\n    tl.store(p, tl.sum(x, 0))"), "entry")
