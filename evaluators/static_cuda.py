"""Source-level guard for rendered CUDA kernels (the CUDA counterpart of static_check_triton).

A CUDA candidate may compute only from its arguments into its arguments: no host API calls,
no device-side allocation, no printf or trap, no clock reads, no headers outside a short list of
device headers, and no global state (``__device__`` / ``__managed__`` variables or ``static``
variables persist across launches, so they can cache answers between timed calls). Comments
and string literals are blanked first, so a word in a comment rejects nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

from evaluators.cubin_elf import device_variables
from evaluators.cuda_compile import cuobjdump_path, write_whole
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
    (r"\bclock(?:64)?\s*\(|%clock|%globaltimer|\b__globaltimer\b|\b__nanosleep\s*\(|%pm\d"
     r"|\bget_sreg_(?:clock|globaltimer|pm)\w*|\bchrono\b|\b(?:system|steady|high_resolution)_clock\b"
     r"|\bthis_thread\b|\bsleep_(?:for|until)\b",
     "reads a clock or sleeps (timing-dependent behaviour)"),
    (r"\bcuda[A-Z]\w*\s*\(", "calls the CUDA runtime API"),
    (r"\bcu[A-Z][a-z]\w*\s*\(", "calls the CUDA driver API"),
    (r"\b__managed__\b", "declares managed (host-visible) memory"),
]

# In the machine code: the SM's cycle counter, the global nanosecond timer and sleeps. A kernel
# needs none of them to compute its answer; with them it can tell when it is being timed. Looked
# for in the SASS, however the source spelt them (a macro pasting ``clo`` and ``ck64``, a PTX
# string split in two), in any form (S2R, CS2R, S2UR).
# The performance-monitor counters (SR_PM*) too.
SASS_FORBIDDEN = re.compile(r"\bSR_(?:CLOCKLO|CLOCKHI|GLOBALTIMERLO|GLOBALTIMERHI|GLOBALTIMER|PM\w*)\b|\bNANOSLEEP\b")
# cuda::barrier (<cuda/barrier>, an allowed header) backs its waits off with the timer and sleeps
# (libcu++'s own code, on sm_90a). In a kernel that uses one, the machine code cannot tell those
# from the kernel's own: there only the cycle and performance counters are looked for, and the
# timer and sleeps are left to the source check, which a macro's spelling can pass (README).
_BARRIER_USE = re.compile(r"\bcuda::barrier\s*<")
_COUNTERS = re.compile(r"\bSR_(?:CLOCKLO|CLOCKHI|PM\w*)\b")


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
        # adjacent literals are one string to the compiler: "%%global" "timer;" reads the timer
        ptx = re.sub(r'"\s*"', "", m.group(0))
        bad = re.search(r"\b(?:trap|exit|brkpt)\b|%clock|%globaltimer|\bnanosleep\b|%pm\d", ptx)
        if bad:
            raise _reject(source, m.start(), f"inline assembly uses {bad.group(0)!r} (trap, exit or a clock)")
    for m in re.finditer(r"\b(__device__|static)\b", code):
        if _declares_variable(code, m):
            end = min(len(code), code.find(";", m.start()) + 1 or len(code))
            raise _reject(source, m.start(), f"declares global state that outlives a launch: "
                                             f"{' '.join(code[m.start():end].split())[:60]!r}")


def static_check_cubin(cubin: Path, source: str) -> None:
    """The source check reads names; the built cubin (of ``source``) says what the kernel does,
    however the source spelt it (a macro pasting ``__dev`` and ``ice__``): device variables (state
    that outlives a launch) in its sections, clock reads and sleeps in its machine code."""
    found = device_variables(cubin)
    if found:
        raise Rejection(Status.REJECTED_STATIC, "static",
                        f"the cubin holds device variables ({', '.join(f'{n} {b} bytes' for n, b in found.items())}): "
                        "state that outlives a launch (a cache across calls), however the source spelt it")
    faults = own_machine_code_faults(machine_code_faults(cubin), source)
    if faults:
        raise Rejection(Status.REJECTED_STATIC, "static",
                        f"the machine code reads a clock or sleeps (timing-dependent behaviour), however the "
                        f"source spelt it: {'; '.join(faults[:4])}")


def own_machine_code_faults(faults: list[str], source: str) -> list[str]:
    """``faults`` less what a cuda::barrier's waits explain, where the kernel's code (not a comment,
    a string or an ``#if 0`` block) uses one."""
    code = re.sub(r"^[ \t]*#[ \t]*if[ \t]+0\b.*?^[ \t]*#[ \t]*endif\b", "", blank_comments(source, strings=True),
                  flags=re.DOTALL | re.MULTILINE)
    if _BARRIER_USE.search(code):
        return [f for f in faults if _COUNTERS.search(f)]
    return faults


SASS_VERDICT = ".sass-faults.json"  # beside a built cubin, after its name: its machine code's faults


def machine_code_faults(cubin: Path) -> list[str]:
    """``sass_faults`` of ``cubin``: read from beside it where a check before this one left them,
    else disassembled now and left there. In a search the compile-ahead workers' compile stage
    (which runs this check) disassembles while the GPU times other genomes, and the GPU worker
    reads their verdict: on its own time a large cubin's disassembly took 1.7 s."""
    verdict = cubin.with_name(cubin.stem + SASS_VERDICT)
    # a verdict holds only for the bytes it was reached on and the rules it was reached by
    stamp = {"cubin_sha256": hashlib.sha256(cubin.read_bytes()).hexdigest(), "rules": SASS_FORBIDDEN.pattern}
    try:
        found = json.loads(verdict.read_text())
        faults = found.get("faults") if isinstance(found, dict) else None
        if ({k: found.get(k) for k in stamp} == stamp and isinstance(faults, list)
                and all(isinstance(f, str) for f in faults)):
            return faults
    except (OSError, ValueError):
        pass
    faults = sass_faults(disassemble(cubin))
    try:
        write_whole(verdict, json.dumps({**stamp, "faults": faults}))  # never half a verdict
    except OSError:  # a read-only cache: the verdict stands, it is only not kept
        pass
    return faults


def disassemble(cubin: Path) -> str:
    """The cubin's SASS, every kernel's, as cuobjdump prints it."""
    tool = cuobjdump_path()
    if tool is None:
        raise FileNotFoundError(f"{cubin}: no cuobjdump (beside nvcc, or in Triton's wheel) to read its "
                                "machine code with; the CUDA toolkit's bin folder has one")
    done = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{cubin}: cuobjdump -sass failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return done.stdout


def sass_faults(sass: str) -> list[str]:
    """Each forbidden instruction of ``sass`` as ``kernel: instruction``, in order."""
    faults, kernel = [], "?"
    for line in sass.splitlines():
        m = re.match(r"\s*Function\s*:\s*(\S+)", line)
        if m:
            kernel = m.group(1)
        elif SASS_FORBIDDEN.search(line):
            instruction = line.split("*/", 1)[-1].split("/*", 1)[0].strip().rstrip(" ;")
            faults.append(f"{kernel}: {instruction}")
    return faults


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
_KERNEL_ATTRIBUTES = re.compile(r"\b__(?:launch_bounds|cluster_dims|maxnreg)__\s*\([^()]*\)")


def c_kernels(source: str) -> set[str]:
    """The names of the source's __global__ functions of C linkage (extern "C" before each, or an
    extern "C" { ... } block around it): the names a cubin's kernels are loaded by (a C++ name is
    mangled)."""
    return {name for name, _ in _c_kernel_openings(blank_comments(source, strings=True), source)}


def _c_kernel_openings(code: str, source: str) -> list[tuple[str, int]]:
    """(name, offset of the "(" that opens its parameter list in ``code``) of each declaration of
    a C-linkage kernel; ``code`` is ``source`` with its comments and strings blanked."""
    linkage = blank_comments(source, strings=False)  # "C" kept, the same offsets
    code = _KERNEL_ATTRIBUTES.sub(lambda m: " " * len(m.group(0)), code)  # their parentheses are no parameter list
    blocks = [(m.end(), closing(code, m.end() - 1) or len(code)) for m in re.finditer(r'\bextern\s+"C"\s*\{', linkage)]
    openings = []
    for m in re.finditer(r"\b__global__\s+[^;{}()]*?\b(\w+)\s*\(", code):
        if (_EXTERN_C_BEFORE.search(linkage, 0, m.start())
                or any(start <= m.start() < end for start, end in blocks)):
            openings.append((m.group(1), m.end() - 1))
    return openings


def kernel_parameters(source: str) -> dict[str, list[tuple[str, ...] | None]]:
    """Each C-linkage kernel's parameter declarations as written (spaces collapsed, a default
    argument dropped), one list for each declaration of it; None for a list the source alone
    cannot read (a preprocessor directive in it, a macro, or no closing parenthesis): only the
    compiler sees what those expand to."""
    code = blank_comments(source, strings=True)
    macros = set(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", code, re.MULTILINE))
    found: dict[str, list[tuple[str, ...] | None]] = {}
    for name, open_at in _c_kernel_openings(code, source):
        close = closing(code, open_at)
        listed = None if close is None else _declarations(code[open_at + 1:close], macros)
        found.setdefault(name, []).append(listed)
    return found


def _declarations(params: str, macros: set[str]) -> tuple[str, ...] | None:
    if "#" in params or macros & set(re.findall(r"\w+", params)):
        return None
    parts = [" ".join(_without_default(p).split()) for p in top_level_commas(params)]
    if parts in ([], ["void"]):
        return ()
    # one word that is no type, or NAME(...) (not a function pointer's "type (*name)(...)"): a
    # header's macro, which may stand for several parameters
    if any(re.fullmatch(r"\w+", p) and parameter_kind(p) is None or re.fullmatch(r"\w+\s*\((?!\s*\*).*\)", p)
           for p in parts):
        return None
    return tuple(parts)


_DEPTH = {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1}  # a template's <> nests in a declaration


def top_level_commas(params: str) -> list[str]:
    """The list split at the commas outside parentheses, brackets and template arguments."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(params):
        depth += _DEPTH.get(c, 0)
        if c == "," and depth == 0:
            parts.append(params[start:i])
            start = i + 1
    parts.append(params[start:])
    return [p for p in parts if p.strip()]


def _without_default(declaration: str) -> str:
    """The declaration without its default argument (the first '=' outside brackets)."""
    depth = 0
    for i, c in enumerate(declaration):
        depth += _DEPTH.get(c, 0)
        if c == "=" and depth == 0:
            return declaration[:i]
    return declaration


# What a kernel reads from its parameter, as the launcher's kinds name it (evaluators/sparse_mla_cuda.py)
KIND_WORDS = {"pointer": "a pointer", "int8": "an 8-bit integer", "int16": "a 16-bit integer",
              "int32": "a 32-bit integer", "int64": "a 64-bit integer", "float16": "a 16-bit float",
              "float32": "a 32-bit float", "float64": "a 64-bit float (double)",
              "tensor_map": "a tensor map (128 bytes by value)"}
_SCALARS = {
    **dict.fromkeys(("bool", "char", "signed char", "unsigned char", "int8_t", "uint8_t"), "int8"),
    **dict.fromkeys(("short", "short int", "unsigned short", "unsigned short int", "int16_t", "uint16_t"), "int16"),
    **dict.fromkeys(("int", "signed", "signed int", "unsigned", "unsigned int", "int32_t", "uint32_t"), "int32"),
    **dict.fromkeys(("long", "long int", "unsigned long", "unsigned long int", "long long", "long long int",
                     "unsigned long long", "unsigned long long int", "int64_t", "uint64_t", "size_t", "ptrdiff_t",
                     "intptr_t", "uintptr_t"), "int64"),
    **dict.fromkeys(("__half", "half", "__nv_bfloat16", "nv_bfloat16"), "float16"),
    "float": "float32", "double": "float64",
}
_QUALIFIERS = re.compile(r"\b(?:const|volatile|__restrict__|__restrict|__grid_constant__|register|struct|class)\b"
                         r"|\b(?:__align__|alignas)\s*\([^()]*\)")


def parameter_kind(declaration: str) -> str | None:
    """What a parameter declaration reads, one of KIND_WORDS' kinds (an array decays to a
    pointer), or None for a type the source alone does not size: a struct, a typedef, a
    template's argument."""
    text = _QUALIFIERS.sub(" ", declaration)
    if "*" in text or "[" in text:
        return "pointer"
    if "&" in text or "(" in text:
        return None  # a reference (nvcc refuses one in a kernel) or something stranger
    words = [word.rsplit("::", 1)[-1] for word in re.findall(r"[\w:]+", text)]
    for named in (len(words), len(words) - 1):  # the type's words, without or with the parameter's name
        kind = _SCALARS.get(" ".join(words[:named]))
        if kind is not None:
            return kind
    return None


def parameter_fault(declared: tuple[str, ...], passed: list[tuple[str, str]]) -> str | None:
    """How a kernel's declared parameters disagree with what its launcher passes, ``passed`` as
    (name, kind) in order; None where they agree as far as the source tells (a type it cannot
    size, parameter_kind None, agrees with anything)."""
    if len(declared) != len(passed):
        return (f"takes {len(declared)} parameters ({', '.join(declared) or 'none'}), and the launcher passes "
                f"{len(passed)}: {', '.join(f'{name} ({kind})' for name, kind in passed)}")
    for place, (declaration, (name, kind)) in enumerate(zip(declared, passed), 1):
        found = parameter_kind(declaration)
        if found is not None and found != kind:
            return (f"takes '{declaration}' as parameter {place} of {len(passed)}, {KIND_WORDS[found]}; the launcher "
                    f"passes {name} there, {KIND_WORDS[kind]}")
    return None


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
