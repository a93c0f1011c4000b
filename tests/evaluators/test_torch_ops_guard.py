"""The runtime watch on a Triton launcher's PyTorch calls (evaluators/torch_ops_guard.py): PyTorch
computing through names the static guard cannot read is rejected with the operator and the line;
what a launcher needs (allocate, view, copy, fill, read) passes; operators Triton's own machinery
issues are not blamed on the candidate."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from evaluators.guards import static_check_triton
from evaluators.rejection import Rejection
from evaluators.status import Status
from evaluators.torch_ops_guard import kernel_language_only
from evaluators.triton_backend import load_entry

REPO = Path(__file__).resolve().parents[2]


def watched_entry(body: str, tmp_path: Path, preamble: str = ""):
    source = f"import torch\n{preamble}\n\ndef entry(q, kv, out):\n{textwrap.indent(textwrap.dedent(body), '    ')}"
    return kernel_language_only(load_entry(source, "entry", tmp_path))


def inputs():
    g = torch.Generator().manual_seed(5)
    return torch.randn(4, 8, generator=g), torch.randn(6, 8, generator=g), torch.full((4, 6), float("nan"))


HIDDEN = [
    ("tensor-method", "", "out.copy_(q.matmul(kv.t()))", "aten.mm"),
    ("alias", "F = torch.nn.functional", "out.copy_(F.linear(q, kv))", "aten.mm"),
    ("aten-overload", "", "out.copy_(torch.ops.aten.mm.default(q, kv.t()))", "aten.mm"),
    ("operator", "", "out.copy_(q.mul(2.0)[:, :6])", "aten.mul"),
    ("swallowed", "", "try:\n    out.copy_(q @ kv.t())\nexcept Exception:\n    pass", "aten.mm"),
]


@pytest.mark.parametrize("preamble, body, op", [h[1:] for h in HIDDEN], ids=[h[0] for h in HIDDEN])
def test_pytorch_computing_in_the_launcher_is_rejected_with_its_operator_and_line(tmp_path, preamble, body, op):
    fn = watched_entry(body, tmp_path, preamble)
    with pytest.raises(Rejection) as caught:
        fn(*inputs())
    assert caught.value.status == Status.REJECTED_TORCH_COMPUTE and caught.value.guard == "torch_compute"
    message = str(caught.value)
    assert op in message
    line = 5 + body.startswith("try")  # import torch, the preamble, a blank line, def entry, then the body
    assert f"line {line}:" in message, message


def test_code_the_candidate_makes_at_run_time_is_the_candidates(tmp_path):
    # exec and compile are refused by the static guard; were one to get through, the code it makes
    # lives in no file the watch trusts
    made = compile("def made(q, kv):\n    return q.sum()\n", "<made>", "exec")
    scope: dict = {}
    exec(made, scope)  # noqa: S102  (the test makes the code, as a candidate would)
    fn = kernel_language_only(scope["made"])
    with pytest.raises(Rejection, match="aten.sum"):
        fn(*inputs()[:2])


def test_what_a_launcher_needs_passes_and_returns_its_result(tmp_path):
    fn = watched_entry("""
        scratch = torch.empty(2, 3, dtype=torch.float32)
        flags = torch.zeros(4, dtype=torch.int32)
        offsets = torch.arange(0, 8, 2)
        rows = kv.view(-1).view(6, 8)[1:3].contiguous().clone()
        scratch.fill_(1.0)
        flags.zero_()
        first = float(q[0, 0].item())
        out.copy_(q[:, :6].to(torch.float64).to(torch.float32))
        return rows, first
    """, tmp_path)
    q, kv, out = inputs()
    rows, first = fn(q, kv, out)
    assert torch.equal(rows, kv[1:3]) and first == float(q[0, 0]) and torch.equal(out, q[:, :6])


def test_the_watch_is_only_around_the_call(tmp_path):
    """After a call, passed, rejected or raising, no watch is left on the dispatcher: the
    harness's own PyTorch (the reference, the checks) runs unwatched."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    q, kv, out = inputs()
    for body, raised in (("out.copy_(q[:, :6])", None), ("out.copy_(q.mul(2.0)[:, :6])", Rejection),
                         ("raise KeyError('mine')", KeyError)):
        fn = watched_entry(body, tmp_path / body[:5])
        if raised is None:
            fn(q, kv, out)
        else:
            with pytest.raises(raised):
                fn(q, kv, out)
        assert _get_current_dispatch_mode() is None, body


def test_operators_tritons_interpreter_issues_are_not_the_candidates(tmp_path):
    """Under TRITON_INTERPRET the interpreter copies a launch's tensors in and out with PyTorch
    operators that compute (it is not on the launcher's list); only the candidate's own are
    blamed. Run in a fresh process: the interpreter is chosen when Triton is first imported."""
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        import torch
        from evaluators import torch_ops_guard
        from evaluators.rejection import Rejection
        from evaluators.triton_backend import load_entry

        blamed_to_triton = []
        origin = torch_ops_guard._origin
        def counting(frame):
            verdict = origin(frame)
            blamed_to_triton.append(verdict is None)
            return verdict
        torch_ops_guard._origin = counting

        source = '''
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def twice(x, y, N: tl.constexpr):
            o = tl.arange(0, N)
            tl.store(y + o, tl.load(x + o) * 2)

        def honest(x, y):
            twice[(1,)](x, y, N=16)

        def cheat(x, y):
            twice[(1,)](x, y, N=16)
            y.add_(0.0)
        '''
        x, y = torch.randn(16), torch.full((16,), float("nan"))
        torch_ops_guard.kernel_language_only(load_entry(source, "honest", Path({str(tmp_path)!r})))(x, y)
        assert torch.equal(y, 2 * x)
        assert blamed_to_triton and all(blamed_to_triton), blamed_to_triton
        try:
            torch_ops_guard.kernel_language_only(load_entry(source, "cheat", Path({str(tmp_path)!r})))(x, y)
        except Rejection as r:
            print("REJECTED", r)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "REJECTED torch_compute" in done.stdout and "aten.add_" in done.stdout, done.stdout


@pytest.mark.parametrize("code, words", [
    ("torch._C._DisableTorchDispatch()", "torch._C._DisableTorchDispatch"),
    ("T.utils._python_dispatch._disable_current_modes()", "T.utils._python_dispatch"),
], ids=["torch._C", "alias"])
def test_the_static_guard_refuses_pytorchs_private_api_which_could_switch_the_watch_off(code, words):
    source = f"import torch\nimport torch as T\n\ndef entry(q, kv, out):\n    {code}\n"
    with pytest.raises(Rejection, match="private API") as caught:
        static_check_triton(source, "entry")
    assert caught.value.status == Status.REJECTED_STATIC and words in str(caught.value)
    with pytest.raises(Rejection, match="imports _C from torch"):
        static_check_triton("from torch import _C\n\ndef entry(q, kv, out):\n    pass\n", "entry")
