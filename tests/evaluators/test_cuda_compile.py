"""The CUDA build path with the local nvcc (no GPU needed): cubins for sm_90a, cached, with the
resource figures of ptxas; a genome that breaks compilation is a compile status, not a crash."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.cuda_compile import (DEFAULT_FLAGS, CompileAhead, build_key, compile_cuda, compiler_notes,
                                     cuobjdump_path, parse_ptxas, unsupported_gpu)
from tests.marks import NEEDS_NVCC

pytestmark = NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "fixtures" / "templates" / "tiny.cu.j2"


def render(**genes) -> str:
    template = load_template(TINY)
    return template.render({**template.load_space().default_params(), **genes})


@pytest.mark.parametrize("threads, unroll, smem", [(64, 1, 0), (128, 4, 1024), (256, 16, 8192)])
def test_genomes_compile_to_sm90a_cubins_with_their_resources(tmp_path, threads, unroll, smem):
    build = compile_cuda(render(THREADS=threads, UNROLL=unroll, SMEM_FLOATS=smem), tmp_path)
    assert build.ok, build.log
    assert Path(build.cubin).read_bytes()[:4] == b"\x7fELF"
    (kernel,) = build.kernels
    assert kernel.name == "gather_rows"
    assert kernel.shared_bytes == smem * 4
    assert 8 <= kernel.registers <= 255 and kernel.spill_store_bytes == 0
    assert build.totals()["shared_bytes"] == smem * 4
    # its machine code, from the cubin: whole 16-byte Hopper instructions
    assert kernel.code_bytes > 0 and kernel.code_bytes % 16 == 0 and build.totals()["code_bytes"] == kernel.code_bytes
    # the arch-specific target, as ptxas was asked for it (its command line, kept in the cubin's
    # notes; the SASS header of an older cuobjdump, Triton's, says sm_90 for either)
    tool = cuobjdump_path()
    if tool is not None:
        elf = subprocess.run([tool, "-elf", build.cubin], capture_output=True, text=True)
        assert "-arch sm_90a " in elf.stdout, elf.stdout[-2000:]


def test_code_bytes_follow_the_unrolling_and_are_the_cubins_text_section(tmp_path):
    small, large = (compile_cuda(render(UNROLL=u), tmp_path / str(u)) for u in (1, 16))
    assert small.kernels[0].code_bytes < large.kernels[0].code_bytes  # sixteen loads and adds a row, not one
    tool = cuobjdump_path()
    if tool is not None:  # the same figure as the tool's own reading of the section headers
        elf = subprocess.run([tool, "-elf", large.cubin], capture_output=True, text=True).stdout
        # its section header line: index, offset, size (hex), ..., PROGBITS, ..., name
        headers = [line.split() for line in elf.splitlines()
                   if "PROGBITS" in line and line.rstrip().endswith(".text.gather_rows")]
        assert len(headers) == 1 and int(headers[0][2], 16) == large.kernels[0].code_bytes, headers


def test_a_file_that_is_no_cubin_is_refused_by_name(tmp_path):
    from evaluators.cubin_elf import kernel_code_bytes

    text = tmp_path / "kernel.cubin"
    text.write_text("not an ELF file")
    with pytest.raises(ValueError, match=f"{text}: not a 64-bit"):
        kernel_code_bytes(text)
    build = compile_cuda(render(), tmp_path / "build")
    cut = tmp_path / "cut.cubin"
    cut.write_bytes(Path(build.cubin).read_bytes()[:200])  # the header, without the sections it points at
    with pytest.raises(ValueError, match=f"{cut}: section headers unreadable"):
        kernel_code_bytes(cut)


PARAMETERS = """\
#include <cuda_bf16.h>
struct alignas(64) Map { unsigned long long words[16]; };
typedef float* Out;
#define MORE int extra, short small
extern "C" __global__ void every_kind(const __nv_bfloat16* __restrict__ q, int n, float s, long long big, char c,
                                      double d, const __grid_constant__ Map map, Out out, MORE) {
  if (n > 0) out[n] = s + big + c + d + map.words[n % 16] + extra + small + __bfloat162float(q[0]);
}
extern "C" __global__ void unused_ones(float* out, int unused, float too) { }
extern "C" __global__ void nothing() { }
"""


def test_the_cubin_records_every_kernels_parameter_sizes_in_order_after_macros_and_typedefs(tmp_path):
    from evaluators.cubin_elf import kernel_parameter_sizes

    build = compile_cuda(PARAMETERS, tmp_path)
    assert build.ok, build.log
    sizes = kernel_parameter_sizes(Path(build.cubin))
    assert sizes == {"every_kind": (8, 4, 4, 8, 1, 8, 128, 8, 4, 2), "unused_ones": (8, 4, 4), "nothing": ()}
    tool = cuobjdump_path()
    if tool is not None:  # the tool's own reading of the same records
        elf = subprocess.run([tool, "-elf", build.cubin], capture_output=True, text=True, check=True).stdout
        section = elf[elf.index("\n.nv.info.every_kind\n"):]  # the section's contents, not its header's line
        section = section[:section.index("\n\n\n")]
        entries = re.findall(r"Ordinal\s*:\s*(0x[0-9a-f]+)\s+Offset\s*:\s*0x[0-9a-f]+\s+Size\s*:\s*(0x[0-9a-f]+)", section)
        listed = sorted((int(ordinal, 16), int(size, 16)) for ordinal, size in entries)
        assert tuple(size for _, size in listed) == sizes["every_kind"], section


def test_a_second_build_of_the_same_source_is_a_cache_hit_and_flags_change_the_key(tmp_path):
    source = render()
    first, second = compile_cuda(source, tmp_path), compile_cuda(source, tmp_path)
    assert not first.cache_hit and second.cache_hit and second.key == first.key
    assert second.kernels == first.kernels
    assert build_key(source, ("-O3",)) != build_key(source, ("-O2",))


def test_a_genome_that_breaks_compilation_is_a_compile_status_with_the_compiler_message(tmp_path):
    build = compile_cuda(render(BREAK=True), tmp_path)
    assert not build.ok and build.cubin is None
    assert "this_does_not_compile" in build.log and "error" in build.log
    assert len(build.log) < 3000 and build.excerpt() == build.log  # a short log is kept whole, no line twice
    assert not list(tmp_path.rglob("kernel.cubin"))  # nothing half-built left in the cache


def test_a_broken_build_keeps_its_error_ahead_of_many_later_warnings(tmp_path):
    # nvcc reports in source order: an error early in a long source comes before the warnings about
    # everything after it, and a record that kept only the log's end would lose it
    later = "\n".join(f"__global__ void unused_{i}() {{ int never_read_{i} = {i}; }}" for i in range(300))
    build = compile_cuda("__global__ void broken() { this_does_not_compile; }\n" + later, tmp_path)
    assert not build.ok and "this_does_not_compile" not in build.log[-3000:]  # the tail alone loses it
    excerpt = build.excerpt()
    assert "this_does_not_compile" in excerpt and len(excerpt) <= 3000
    assert excerpt.endswith(build.log[-100:])  # and the end of the log follows


# a wgmma inside a branch that only some threads take: ptxas serializes every wgmma of the kernel
# (C7520) and says so only as an "info" line; and a variable nobody reads (nvcc #177-D, line 12)
SERIALIZED_WGMMA = r"""#include <stdint.h>
__device__ __forceinline__ void wgmma(float (&d)[16], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1, 0, 0;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
                 "+f"(d[15])
               : "l"(a), "l"(b));
}
extern "C" __global__ void scores(float* out, uint64_t a, uint64_t b, int n) {
  float d[16] = {};
  int never_read = n;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int i = 0; i < n; ++i)
    if (i % 3 == threadIdx.x % 2) wgmma(d, a + i, b);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 16 + i] = d[i];
}
"""


def test_the_compilers_warnings_and_a_wgmma_serialization_are_the_builds_notes(tmp_path):
    build = compile_cuda(SERIALIZED_WGMMA, tmp_path)
    assert build.ok, build.log
    notes = build.notes()
    assert any(n.startswith("ptxas C7520: wgmma.mma_async instructions are serialized") and "'scores'" in n
               for n in notes), notes
    assert 'line 12: warning #177-D: variable "never_read" was declared but never referenced' in notes
    assert len(notes) == 2  # each once; the resource lines and remarks are not notes
    assert compile_cuda(SERIALIZED_WGMMA, tmp_path).notes() == notes  # a cache hit keeps them


def test_resource_lines_are_no_notes_and_the_tools_own_warnings_are():
    assert compiler_notes("ptxas info    : Used 12 registers, used 0 barriers\n") == ()
    log = ("nvcc warning : incompatible redefinition for option 'std', the last value of this option was used\n"
           "ptxas warning : Value of threads per SM for entry f is out of range. .minnctapersm will be ignored\n")
    assert compiler_notes(log) == (
        "nvcc warning: incompatible redefinition for option 'std', the last value of this option was used",
        "ptxas warning: Value of threads per SM for entry f is out of range. .minnctapersm will be ignored")


def test_compile_ahead_builds_several_genomes_in_parallel(tmp_path):
    ahead = CompileAhead(tmp_path, workers=2)
    try:
        sources = [render(UNROLL=u) for u in (1, 2, 4, 8)]
        for s in sources:
            ahead.submit(s)
        builds = [ahead.result(s) for s in sources]
    finally:
        ahead.close()
    assert all(b.ok for b in builds) and len({b.key for b in builds}) == 4


def test_ptxas_spills_and_stack_are_parsed_per_kernel():
    log = """ptxas info    : Compiling entry function 'a' for 'sm_90a'
ptxas info    : Function properties for a
    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 48 bytes cumulative stack size, 4096 bytes smem
ptxas info    : Compiling entry function 'b' for 'sm_90a'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
"""
    a, b = parse_ptxas(log)
    assert (a.name, a.registers, a.shared_bytes, a.stack_bytes, a.spill_store_bytes, a.spill_load_bytes) == \
        ("a", 255, 4096, 48, 40, 36)
    assert (b.name, b.registers, b.shared_bytes) == ("b", 12, 0)


def test_engine_compile_prints_the_figures_and_types_a_broken_genome(tmp_path):
    def run(genome: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "engine", "compile", str(TINY), "--genome", genome,
                               "--cache", str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                              timeout=300)
    ok = run('{"SMEM_FLOATS": 1024}')
    assert ok.returncode == 0, ok.stderr
    figures = json.loads(ok.stdout)
    assert figures["status"] == "ok" and figures["shared_bytes"] == 4096 and figures["arch"] == "sm_90a"
    assert {"registers", "stack_bytes", "spill_bytes", "compile_s", "build_key"} <= set(figures)
    assert figures["code_bytes"] == figures["kernels"][0]["code_bytes"] > 0
    assert figures["compiler_notes"] == []  # the fixture builds cleanly
    assert "SMEM_FLOATS" not in Path(figures["source"]).read_text()  # the rendered text, holes filled
    assert Path(figures["source"]).parent == Path(figures["cubin"]).parent
    broken = run('{"BREAK": true}')
    reply = json.loads(broken.stdout)
    assert broken.returncode == 1 and reply["status"] == "compile_error"
    assert "Traceback" not in broken.stderr
    assert Path(reply["source"]).name in reply["error"]  # the error's lines are that file's


def test_compile_refuses_a_triton_template_in_one_line():
    done = subprocess.run([sys.executable, "-m", "engine", "compile", "templates/sparse_mla.triton.j2"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "CUDA templates" in done.stderr


@pytest.mark.parametrize("gpu, capability", [("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA L40S", "8.9"),
                                             ("NVIDIA B200", "10.0"), ("NVIDIA GeForce RTX 5090", "12.0")])
def test_a_gpu_other_than_hopper_is_named_with_its_capability(gpu, capability):
    # sm_90a cubins (wgmma, setmaxnreg, tensor maps) load on compute capability 9.0 only, later
    # GPUs included: the CLI refuses such a GPU before the first attempt with this text
    env = {"device_kind": "cuda", "gpu": gpu, "compute_capability": capability}
    why = unsupported_gpu(env)
    assert why is not None and gpu in why and capability in why and "sm_90a" in why


@pytest.mark.parametrize("env", [{"device_kind": "cuda", "gpu": "NVIDIA H200", "compute_capability": "9.0"},
                                 {"device_kind": "cuda", "gpu": "NVIDIA H100 PCIe", "compute_capability": "9.0"},
                                 {"device_kind": "cpu", "gpu": "none (Triton interpreter on CPU)",
                                  "compute_capability": ""}])
def test_hopper_and_the_cpu_worker_are_not_refused_for_their_architecture(env):
    assert unsupported_gpu(env) is None  # no GPU at all is the CLI's other, earlier refusal


def test_the_progress_line_names_ptxas_advisories_of_a_real_build_by_code(tmp_path):
    from engine.loop import advisories_text

    serialized = compile_cuda(SERIALIZED_WGMMA, tmp_path)
    assert advisories_text({"compiler_notes": list(serialized.notes())}) == "  [ptxas C7520]"
    clean = compile_cuda(render(), tmp_path)
    assert advisories_text({"compiler_notes": list(clean.notes())}) == ""
    assert advisories_text({"compiler_notes": None}) == ""  # a Triton genome: not built by nvcc


BUILD_ONE = """
import json, sys
from pathlib import Path
from evaluators.cuda_compile import compile_cuda
print("ready", flush=True)
b = compile_cuda(sys.stdin.read(), Path(sys.argv[1]))
print(json.dumps({"ok": b.ok, "cache_hit": b.cache_hit, "seconds": b.seconds}))
"""


def test_two_processes_building_one_source_run_nvcc_once_and_the_second_waits_for_it(tmp_path):
    # the GPU worker meeting a genome that a compile-ahead worker is still building
    source = render(UNROLL=16, THREADS=256)
    procs = [subprocess.Popen([sys.executable, "-c", BUILD_ONE, str(tmp_path)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    # both past their imports before either gets the source: they reach compile_cuda together
    assert [p.stdout.readline().strip() for p in procs] == ["ready", "ready"]
    for p in procs:
        p.stdin.write(source)
        p.stdin.close()
    outs = [json.loads(p.stdout.read()) for p in procs]
    assert [p.wait() for p in procs] == [0, 0]
    built, waited = sorted(outs, key=lambda o: o["cache_hit"])
    assert built["ok"] and waited["ok"]
    assert not built["cache_hit"] and waited["cache_hit"]  # one nvcc run, not two
    assert waited["seconds"] > 0.1  # it found the build under way and waited for it, not a later hit
    assert len(list(tmp_path.rglob("kernel.cubin"))) == 1


def test_a_refused_build_is_cached_and_a_timed_out_one_or_nvccs_own_failure_is_not(tmp_path):
    broken = render(BREAK=True)
    first, again = compile_cuda(broken, tmp_path), compile_cuda(broken, tmp_path)
    assert not first.ok and not first.cache_hit
    assert not again.ok and again.cache_hit and again.log == first.log and again.cubin is None
    source = render(UNROLL=2)
    for _ in range(2):  # nvcc's own fatal error (here a flag it does not know) is no fault of the source's
        unknown = compile_cuda(source, tmp_path, flags=("-O3", "--no-such-nvcc-flag"))
        assert not unknown.ok and not unknown.cache_hit and "no-such-nvcc-flag" in unknown.log
    late = compile_cuda(source, tmp_path, timeout_s=0.01)
    assert not late.ok and "timed out" in late.log
    built = compile_cuda(source, tmp_path)
    assert built.ok and not built.cache_hit  # the time-out was not kept as the source's fault


def test_a_build_lock_left_by_a_killed_holder_does_not_stop_the_next_build(tmp_path):
    source = render(UNROLL=4)
    folder = tmp_path / build_key(source, DEFAULT_FLAGS)
    folder.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\n"
                               "f = open(sys.argv[1], 'w'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)\n"
                               "time.sleep(600)", str(folder / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        holder.kill()
        holder.wait()
        build = compile_cuda(source, tmp_path, timeout_s=60)
    finally:
        holder.kill()
    assert build.ok and not build.cache_hit and build.seconds < 60
