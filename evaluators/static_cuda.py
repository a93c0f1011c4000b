"""Source-level guard for rendered CUDA kernels (the CUDA counterpart of static_check_triton).

A CUDA candidate may compute only from its arguments into its arguments: no host API calls,
no device-side allocation, no printf or trap, no clock reads, no headers outside a short list of
device headers, and no global state (``__device__`` / ``__managed__`` variables or ``static``
variables persist across launches, so they can cache answers between timed calls). Comments
and string literals are blanked first, so a word in a comment rejects nothing.
"""

from __future__ import annotations

import re

from evaluators.rejection import Rejection
from evaluators.status import Status

# Device-side headers a template may include; system headers are reached through these.
CUDA_HEADERS = frozenset({
    "cuda_bf16.h", "cuda_fp16.h", "cuda_fp8.h", "cuda_fp4.h", "cuda_pipeline.h", "cuda_awbarrier.h",
    "mma.h", "cooperative_groups.h", "cooperative_groups/memcpy_async.h", "cooperative_groups/reduce.h",
    "stdint.h", "cstdint", "cuda/barrier", "cuda/pipeline", "cuda/ptx", "cuda/std/cstdint",
    "cuda/std/limits", "cuda/std/type_traits", "cuda/std/utility", "cuda/std/array",
})
HEADER_PREFIXES = ("cute/", "cutlass/")  # header-only device libraries

# (pattern, reason); matched on the source with comments and strings blanked.
FORBIDDEN = [
    (r"\bprintf\s*\(", "calls printf (output outside the kernel's arguments)"),
    (r"\b(?:malloc|free|realloc|calloc)\s*\(", "allocates memory on the device"),
    (r"\bnew\b|\bdelete\b", "allocates memory with new/delete"),
    (r"\b__trap\s*\(|\btrap\s*;|\b__brkpt\s*\(|\bassert\s*\(", "can stop the kernel (trap/assert)"),
    (r"\bclock(?:64)?\s*\(|%clock|%globaltimer|\b__globaltimer\b|\b__nanosleep\s*\(",
     "reads a clock or sleeps (timing-dependent behaviour)"),
    (r"\bcuda[A-Z]\w*\s*\(", "calls the CUDA runtime API"),
    (r"\bcu[A-Z][a-z]\w*\s*\(", "calls the CUDA driver API"),
    (r"\b__managed__\b", "declares managed (host-visible) memory"),
]

def static_check_cuda(source: str) -> None:
    """Raise ``Rejection`` (rejected_static) naming the line of the first thing a CUDA kernel
    template must not do."""
    code = blank_comments(source, strings=True)
    with_strings = blank_comments(source, strings=False)
    for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', source, re.MULTILINE):
        header = m.group(1).strip()
        if header not in CUDA_HEADERS and not header.startswith(HEADER_PREFIXES):
            raise _reject(source, m.start(), f"includes <{header}>; allowed: device headers "
                                             f"{sorted(CUDA_HEADERS)} and {list(HEADER_PREFIXES)}")
    for pattern, reason in FORBIDDEN:
        m = re.search(pattern, code)
        if m:
            raise _reject(source, m.start(), f"{reason}: {m.group(0).strip()[:40]!r}")
    for m in re.finditer(r"\b(?:asm|__asm__)\b[^;]*;", with_strings):  # inline PTX is in strings
        bad = re.search(r"\b(?:trap|exit|brkpt)\b|%clock|%globaltimer|\bnanosleep\b", m.group(0))
        if bad:
            raise _reject(source, m.start(), f"inline assembly uses {bad.group(0)!r} (trap, exit or a clock)")
    for m in re.finditer(r"\b(__device__|static)\b", code):
        if _declares_variable(code, m):
            end = min(len(code), code.find(";", m.start()) + 1 or len(code))
            raise _reject(source, m.start(), f"declares global state that outlives a launch: "
                                             f"{' '.join(code[m.start():end].split())[:60]!r}")


def _declares_variable(code: str, m: re.Match) -> bool:
    """Whether the ``__device__`` or ``static`` at ``m`` declares a variable (its declaration
    reaches ';', '=' or '{' before any '('), not a function; static shared memory and
    constants are allowed."""
    rest = code[m.end():]
    if m.group(1) == "static" and re.match(r"\s+(?:__shared__|constexpr|const)\b", rest):
        return False
    stop = re.search(r"[(;={]", rest)
    return stop is not None and stop.group(0) != "("


def _reject(source: str, offset: int, reason: str) -> Rejection:
    line = source.count("\n", 0, offset) + 1
    return Rejection(Status.REJECTED_STATIC, "static", f"line {line}: {reason}")


def blank_comments(source: str, strings: bool) -> str:
    """The source with comments (and, if ``strings``, string and character literals) replaced
    by spaces; newlines are kept, so offsets and line numbers still match."""
    def blank(m: re.Match) -> str:
        text = m.group(0)
        if text.startswith(("\"", "'")):
            return text[0] + re.sub(r"[^\n]", " ", text[1:-1]) + text[-1] if strings else text
        return re.sub(r"[^\n]", " ", text)

    token = r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    return re.sub(token, blank, source, flags=re.DOTALL)


_EXTERN_C_BEFORE = re.compile(r'\bextern\s+"C"\s*$')  # searched up to a kernel's start (endpos)


def c_kernels(source: str) -> set[str]:
    """The names of the source's __global__ functions of C linkage (extern "C" before each, or an
    extern "C" { ... } block around it): the names a cubin's kernels are loaded by (a C++ name is
    mangled)."""
    linkage = blank_comments(source, strings=False)  # "C" kept
    code = blank_comments(source, strings=True)      # the same offsets; braces in asm strings blanked
    code = re.sub(r"\b__(?:launch_bounds|cluster_dims|maxnreg)__\s*\([^()]*\)", lambda m: " " * len(m.group(0)), code)
    blocks = [(m.end(), closing(code, m.end() - 1) or len(code)) for m in re.finditer(r'\bextern\s+"C"\s*\{', linkage)]
    names = set()
    for m in re.finditer(r"\b__global__\s+[^;{}()]*?\b(\w+)\s*\(", code):
        if (_EXTERN_C_BEFORE.search(linkage, 0, m.start())
                or any(start <= m.start() < end for start, end in blocks)):
            names.add(m.group(1))
    return names


def closing(code: str, open_at: int) -> int | None:
    """The offset of the bracket that closes the one at ``open_at`` (``(``, ``[`` or ``{``), or None
    when it never closes; ``code`` with its comments and strings blanked."""
    opening = code[open_at]
    steps = {opening: 1, {"(": ")", "[": "]", "{": "}"}[opening]: -1}
    depth = 0
    for i in range(open_at, len(code)):
        depth += steps.get(code[i], 0)
        if depth == 0:
            return i
    return None
