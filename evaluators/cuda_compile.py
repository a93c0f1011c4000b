"""nvcc to cubin for sm_90a, cached by everything that changes the binary, with the resource
figures ptxas reports (registers, shared memory, stack frame, spill bytes) and the size of its
machine code (from the cubin) per kernel.

Runs anywhere nvcc is installed (no GPU needed). Builds are plain subprocesses, so a thread
pool (``CompileAhead``) compiles several genomes in parallel while the GPU is busy.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator

from evaluators.cubin_elf import kernel_code_bytes

ARCH = "sm_90a"
GENCODE = ("-gencode", "arch=compute_90a,code=sm_90a")
# The GPUs a cubin of ARCH loads on: an arch-specific target ("a": wgmma, setmaxnreg, the copy
# engine's tensor maps) runs on its own compute capability only, not on later ones.
CAPABILITY = "9.0"
DEFAULT_FLAGS = ("-O3", "-std=c++17", "-lineinfo")
BUILD_CACHE = Path("build/cubin")  # the project's build cache (engine compile, engine export), from the cwd


def unsupported_gpu(env: dict[str, str]) -> str | None:
    """Why cubins of ARCH cannot run on the GPU a worker's environment fingerprint describes, or
    None when they can (or when the worker has no GPU: that is refused elsewhere)."""
    capability = env.get("compute_capability", "")
    if env.get("device_kind") != "cuda" or capability == CAPABILITY:
        return None
    return (f"its kernels are built for {ARCH} (compute capability {CAPABILITY}, Hopper) and run on no other "
            f"GPU; {env.get('gpu') or 'the GPU'} has compute capability {capability or 'unknown'}")


@dataclass(frozen=True)
class KernelResources:
    name: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    code_bytes: int | None = None  # its machine code (the cubin's .text section); None: not read


@dataclass(frozen=True)
class CudaBuild:
    ok: bool
    key: str
    cubin: str | None
    seconds: float
    cache_hit: bool
    log: str
    kernels: tuple[KernelResources, ...] = field(default=())

    def excerpt(self, limit: int = 3000) -> str:
        """The log as a record keeps it: the compiler's error lines first (nvcc reports in source
        order, so warnings about later lines can push an error out of the log's end), then as much
        of the end as fits in ``limit`` characters; a log that fits is kept whole, as it is."""
        if len(self.log) <= limit:
            return self.log
        errors = "\n".join(line for line in self.log.splitlines() if "error" in line)[: limit // 2]
        if not errors:
            return self.log[-limit:]
        return f"{errors}\n...\n{self.log[-(limit - len(errors) - 5):]}"

    def notes(self) -> tuple[str, ...]:
        """The compiler's warnings and ptxas's performance advisories in the log, one line each."""
        return compiler_notes(self.log)

    def totals(self) -> dict[str, int | None]:
        """The figures a record keeps: the largest over the module's kernels."""
        if not self.kernels:
            return dict.fromkeys(RESOURCE_FIELDS)
        code = [k.code_bytes for k in self.kernels if k.code_bytes is not None]
        return {"registers": max(k.registers for k in self.kernels),
                "shared_bytes": max(k.shared_bytes for k in self.kernels),
                "stack_bytes": max(k.stack_bytes for k in self.kernels),
                "spill_bytes": max(k.spill_store_bytes + k.spill_load_bytes for k in self.kernels),
                "code_bytes": max(code) if code else None}


# what a record keeps of a build (CudaBuild.totals), each the largest over the module's kernels
RESOURCE_FIELDS = ("registers", "shared_bytes", "stack_bytes", "spill_bytes", "code_bytes")


@functools.cache
def nvcc_version() -> str:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise FileNotFoundError("nvcc is not on PATH")
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    return out.strip().splitlines()[-1]


def cuobjdump_path() -> str | None:
    """cuobjdump from PATH, beside nvcc, or the copy Triton's wheel carries (the machines here
    have only that one); None when there is none."""
    on_path, nvcc = shutil.which("cuobjdump"), shutil.which("nvcc")
    candidates = [Path(on_path)] if on_path else []
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent / "cuobjdump")
    try:
        import triton
        candidates.append(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump")
    except ImportError:
        pass
    return next((str(c) for c in candidates if c.is_file()), None)


def build_key(source: str, flags: tuple[str, ...], arch: str = ARCH) -> str:
    material = "\n".join([source, nvcc_version(), " ".join(flags), arch])
    return hashlib.sha256(material.encode()).hexdigest()[:24]


def compile_cuda(source: str, cache_dir: Path, flags: tuple[str, ...] = DEFAULT_FLAGS,
                 timeout_s: float = 300.0) -> CudaBuild:
    """The cubin of ``source``, from the cache or built there. One build of a key runs at a time,
    across processes: the GPU worker that reaches a genome a compile-ahead worker is still building
    waits for that build rather than starting a second one beside it (a siblings genome takes
    15-25 s on the device's busy cores; the sixty-fourth session's search built many twice). A
    build refused for a fault of the source (a front-end or ptxas error) is cached too: the same key
    always fails; one that timed out, was killed, or met nvcc's own fatal error is not."""
    key = build_key(source, flags)
    folder = cache_dir / key
    if (found := _cached(key, folder)) is not None:
        return found
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with _one_build_at_a_time(folder, timeout_s):
        if (found := _cached(key, folder)) is not None:
            return replace(found, seconds=time.perf_counter() - t0)  # the wait for the other build
        return _build(source, key, folder, flags, timeout_s)


def _cached(key: str, folder: Path) -> CudaBuild | None:
    cubin, log_path, refused = folder / "kernel.cubin", folder / "ptxas.log", folder / "nvcc-error.log"
    if cubin.is_file() and log_path.is_file():
        log = log_path.read_text()
        return CudaBuild(True, key, str(cubin), 0.0, True, log, with_code_bytes(parse_ptxas(log), cubin))
    if refused.is_file():
        return CudaBuild(False, key, None, 0.0, True, refused.read_text())
    return None


@contextlib.contextmanager
def _one_build_at_a_time(folder: Path, timeout_s: float) -> Iterator[None]:
    """An exclusive lock on the key's folder, held while building. The system drops it when its
    holder dies (a compile-ahead worker killed mid-build), and a holder's build ends within
    ``timeout_s`` (nvcc's own limit), so a waiter that still finds it held after that long builds
    without it."""
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout_s + 5.0
        held = False
        while not held and time.monotonic() < deadline:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
            except BlockingIOError:
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def _build(source: str, key: str, folder: Path, flags: tuple[str, ...], timeout_s: float) -> CudaBuild:
    cubin, log_path = folder / "kernel.cubin", folder / "ptxas.log"
    src = folder / "kernel.cu"
    src.write_text(source)
    tmp = folder / f"kernel.{os.getpid()}.cubin"
    cmd = ["nvcc", "-cubin", *GENCODE, *flags, "-Xptxas", "-v", "-o", str(tmp), str(src)]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return CudaBuild(False, key, None, time.perf_counter() - t0, False,
                         f"nvcc timed out after {timeout_s:g} s")
    seconds = time.perf_counter() - t0
    log = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        if _SOURCE_FAULT.search(log):  # the source's fault, the same on every build (not a full disk, a signal)
            write_whole(folder / "nvcc-error.log", log)
        return CudaBuild(False, key, None, seconds, False, log)
    log_path.write_text(log)
    tmp.replace(cubin)  # the cache never holds half a cubin
    return CudaBuild(True, key, str(cubin), seconds, False, log, with_code_bytes(parse_ptxas(log), cubin))


# a diagnostic against the rendered source (front end) or its PTX (ptxas): what the same source
# meets on every build, unlike nvcc's own fatal errors (a missing file, an unwritable folder)
_SOURCE_FAULT = re.compile(r"kernel\.cu\(\d+\): (?:catastrophic )?error|^ptxas (?:error|fatal)", re.M)


def write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` so that a reader finds all of it or no file (two writers, threads
    of one process included, each write a whole file of their own and the last one's stands)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(text)
    tmp.replace(path)


_FUNCTION = re.compile(r"Function properties for (\S+)\s*\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, "
                       r"(\d+) bytes spill loads", re.M)
_USED = re.compile(r"Compiling entry function '([^']+)'.*?Used (\d+) registers(?:, used \d+ barriers)?"
                   r"(?:, \d+ bytes cumulative stack size)?(?:, (\d+) bytes smem)?", re.S)


def parse_ptxas(log: str) -> tuple[KernelResources, ...]:
    """Per entry function: registers and static shared memory from its 'Used' line, stack and
    spills from its 'Function properties' block."""
    props = {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in _FUNCTION.finditer(log)}
    kernels = []
    for block in log.split("Compiling entry function ")[1:]:
        m = _USED.search("Compiling entry function " + block)
        if not m:
            continue
        name = m.group(1)
        stack, spill_st, spill_ld = props.get(name, (0, 0, 0))
        kernels.append(KernelResources(name, int(m.group(2)), int(m.group(3) or 0), stack, spill_st, spill_ld))
    return tuple(kernels)


def with_code_bytes(kernels: tuple[KernelResources, ...], cubin: Path) -> tuple[KernelResources, ...]:
    """``kernels`` with the size of each one's machine code in ``cubin``."""
    sizes = kernel_code_bytes(cubin)
    return tuple(replace(k, code_bytes=sizes.get(k.name)) for k in kernels)


_FRONT_END_WARNING = re.compile(r"^.*\((\d+)\): warning (#\d+-D): (.*)$")
_ADVISORY = re.compile(r"\((C\d+)\) Potential Performance Loss: (.*)$")
_TOOL_WARNING = re.compile(r"^(nvcc|ptxas) warning\s*: (.*)$")


def compiler_notes(log: str) -> tuple[str, ...]:
    """What a build's log says beyond its resources, each once, in the log's order: nvcc's
    warnings about the source (with the rendered line: a genome renders the same source again),
    the tools' own warnings, and ptxas's "Potential Performance Loss" advisories, which ptxas
    prints as info although they matter most: wgmma instructions serialized (C7510-C7520) run a
    kernel at a fraction of its tensor-core rate and raise nothing else."""
    notes: list[str] = []
    for line in log.splitlines():
        line = line.strip()
        if m := _FRONT_END_WARNING.match(line):
            note = f"line {m.group(1)}: warning {m.group(2)}: {m.group(3)}"
        elif m := _ADVISORY.search(line):
            note = f"ptxas {m.group(1)}: {m.group(2)}"
        elif m := _TOOL_WARNING.match(line):
            note = f"{m.group(1)} warning: {m.group(2)}"
        else:
            continue
        if note not in notes:
            notes.append(note)
    return tuple(notes)


class CompileAhead:
    """Compiles upcoming genomes on CPU threads (each an nvcc process) while the GPU evaluates."""

    def __init__(self, cache_dir: Path, workers: int | None = None, flags: tuple[str, ...] = DEFAULT_FLAGS):
        self.cache_dir, self.flags = cache_dir, flags
        self.pool = ThreadPoolExecutor(max_workers=workers or max(1, (os.cpu_count() or 2) - 1))
        self.pending: dict[str, Future] = {}

    def submit(self, source: str) -> Future:
        key = build_key(source, self.flags)
        if key not in self.pending:
            self.pending[key] = self.pool.submit(compile_cuda, source, self.cache_dir, self.flags)
        return self.pending[key]

    def result(self, source: str) -> CudaBuild:
        return self.submit(source).result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
