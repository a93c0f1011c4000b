"""The fire drill's faults for CUDA templates of the sparse MLA problem (engine/faults.py holds the
Triton catalogue and the injector that draws from either).

A CUDA candidate is device code and a launch line; the host side is the trusted launcher
(evaluators/sparse_mla_cuda.py). So each fault is put where a candidate's own bug or cheat would
be: a statement first in the body of every split-kernel entry the launch line names (the entry a
launch picks depends on its split count), text before the source (a header, a global), or a field
of the launch line. A statement names the kernel's parameters by their place in the launcher's
argument list (``{out}``, ``{scale_log2}``, ...: SPLIT_PARAMS), whatever the template calls them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.faults import FaultError
from evaluators.sparse_mla_cuda import (SPLIT_PARAMS, ContractError, parse_contract, split_kernel_names,
                                        with_launch_fields)
from evaluators.static_cuda import blank_comments, closing, top_level_commas


@dataclass(frozen=True)
class CudaFault:
    name: str
    expected: tuple[str, ...]   # acceptable statuses
    statement: str = ""         # C++ put first in each split kernel's body; {param} names a parameter
                                # (str.format: no other braces)
    preamble: str = ""          # put before the source
    launch: tuple[tuple[str, object], ...] = ()  # launch-line fields replaced
    devices: tuple[str, ...] = ("cuda",)  # a CUDA template runs on a GPU only

    def apply(self, source: str, entry: str) -> str:  # entry unused: the launch line names the kernels
        try:
            if self.statement:
                source = _into_split_kernels(source, self.statement)
            if self.launch:
                source = with_launch_fields(source, **dict(self.launch))
        except ContractError as exc:
            raise FaultError(str(exc)) from exc
        return self.preamble + source


_ONE_THREAD = "threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0"

CUDA_FAULTS = (
    CudaFault("crash", ("illegal_address", "worker_crash"),
              "if (threadIdx.x == 0) reinterpret_cast<volatile float*>({out})[1ll << 40] = 1.f;"),
    # nvcc has built the cubin: a kernel that never ends is a timeout of its first call
    CudaFault("hang", ("timeout",), 'for (;;) asm volatile("");'),
    CudaFault("wrong", ("incorrect",), "{scale_log2} *= 1.5f;"),
    # the second half of the head blocks (or value parts) never written: their outputs keep the poison
    CudaFault("partial", ("incorrect",), "if (blockIdx.x >= gridDim.x / 2) return;"),
    # one exponent bit of the first query value flipped, once a call
    CudaFault("input_mutation", ("rejected_input_mutation",),
              f"if ({_ONE_THREAD}) *(volatile unsigned short*)({{q}}) = "
              "(unsigned short)(*(volatile unsigned short*)({q}) ^ 0x0080u);"),
    CudaFault("static_cheat", ("rejected_static",), preamble="#include <cstdio>\n"),
    # the only memory that outlives a launch and that no argument names is a module's globals
    CudaFault("result_cache", ("rejected_static",), "atomicAdd(&kg_calls_seen, 1u);",
              preamble="__device__ unsigned kg_calls_seen;\n"),
    CudaFault("small_shapes_only", ("incorrect",), "if (gridDim.z >= 4) {scale_log2} *= 1.5f;"),
    # more threads a CTA than any kernel takes: the driver refuses the launch
    CudaFault("launch_failure", ("launch_failure",), launch=(("threads", 2048),)),
)


def _into_split_kernels(source: str, statement: str) -> str:
    code = blank_comments(source, strings=True)
    edits = []
    for name in split_kernel_names(parse_contract(source)):
        m = re.search(rf"__global__\b[^;{{}}]*?\b{re.escape(name)}\s*\(", code)
        if m is None:
            raise FaultError(f"the launch line names {name}, and the source defines no __global__ {name}")
        close = closing(code, m.end() - 1)
        if close is None:
            raise FaultError("a split kernel's parameter list never closes")
        params = [re.search(r"(\w+)\s*$", p.strip()).group(1) for p in top_level_commas(code[m.end():close])]
        if len(params) < len(SPLIT_PARAMS):
            raise FaultError(f"{name} takes {len(params)} parameters; the launcher passes {len(SPLIT_PARAMS)}")
        body = code.index("{", close) + 1
        edits.append((body, "\n  " + statement.format(**dict(zip(SPLIT_PARAMS, params)))))
    for at, text in sorted(edits, reverse=True):
        source = source[:at] + text + source[at:]
    return source
