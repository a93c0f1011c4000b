"""The CUDA source guard: each thing a CUDA kernel template must not do is rejected by name and
line; honest kernels, and forbidden words in comments or strings, pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.rejection import Rejection
from evaluators.static_cuda import (kernel_parameters, own_machine_code_faults, parameter_kind, sass_faults,
                                    static_check_cuda)
from tests.marks import NEEDS_NVCC

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"

HONEST = """\
#include <cuda_bf16.h>
#include <cuda/pipeline>
#include <cute/tensor.hpp>
// printf("debug") and cudaMalloc(...) in a comment are only words; so is new.
static constexpr int kRows = 64;
__constant__ float kTable[4] = {1.f, 2.f, 3.f, 4.f};
template <int N> static __device__ __forceinline__ float twice(float x) { return 2.f * x; }
__device__ inline unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
extern "C" __global__ void __launch_bounds__(128) k(const float* in, float* out) {
  __shared__ float tile[kRows];
  static __shared__ float more[32];
  const char* label = "clock() and malloc( inside a string";
  tile[threadIdx.x % kRows] = twice<2>(in[threadIdx.x]) + kTable[0] + (label != nullptr);
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % kRows] + static_cast<float>(more[0] * 0.f);
}
"""

CASES = [
    ("#include <cstdio>\n", "includes <cstdio>"),
    ('#include "../../evaluators/harness.h"\n', "includes <../../evaluators/harness.h>"),
    ('__global__ void k(float* o) { printf("%f", o[0]); }\n', "calls printf"),
    ("__global__ void k(float* o) { float* t = (float*)malloc(64); }\n", "allocates memory on the device"),
    ("__global__ void k(float* o) { float* t = new float[4]; }\n", "new/delete"),
    ("__global__ void k(float* o) { if (o[0] != o[0]) __trap(); }\n", "trap/assert"),
    ("__global__ void k(float* o) { assert(o[0] > 0); }\n", "trap/assert"),
    ('__global__ void k(float* o) { asm volatile("trap;"); }\n', "trap"),
    ("__global__ void k(long long* o) { o[0] = clock64(); }\n", "reads a clock"),
    ('__global__ void k(unsigned* o) { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(o)); }\n', None),
    ("__global__ void k(float* o) { __nanosleep(1000); }\n", "sleeps"),
    ("__global__ void k(float* o) { cudaDeviceSynchronize(); }\n", "CUDA runtime API"),
    ("void host() { cuMemAlloc(0, 0); }\n", "CUDA driver API"),
    ("__device__ float cache[4096];\n__global__ void k(float* o) { o[0] = cache[0]; }\n", "global state"),
    ("__device__ int calls = 0;\n__global__ void k(float* o) { calls++; }\n", "global state"),
    ("__managed__ int seen;\n__global__ void k(float* o) { }\n", "managed"),
    ("__global__ void k(float* o) { static float last; o[0] = last; }\n", "global state"),
]


def test_an_honest_kernel_with_forbidden_words_in_comments_and_strings_passes():
    static_check_cuda(HONEST)


def test_the_cuda_fixture_template_passes_for_its_default_genome():
    template = load_template(FIXTURES / "tiny.cu.j2")
    static_check_cuda(template.render(template.load_space().default_params()))


@pytest.mark.parametrize("source, words", CASES, ids=[c[1] or "globaltimer" for c in CASES])
def test_each_forbidden_construct_is_rejected_with_its_line(source, words):
    with pytest.raises(Rejection) as info:
        static_check_cuda("// a kernel\n" + source)
    rejection = info.value
    assert rejection.status.value == "rejected_static" and rejection.guard == "static"
    assert str(rejection).startswith("static: line 2:"), str(rejection)
    if words:
        assert words in str(rejection)


def test_engine_compile_refuses_a_cheat_before_nvcc(tmp_path):
    import json
    import subprocess
    import sys

    src = tmp_path / "cheat.cu.j2"
    space = FIXTURES.parent / "genomes" / "tiny_cuda.toml"
    text = (FIXTURES / "tiny.cu.j2").read_text().replace('"../genomes/tiny_cuda.toml"', f'"{space}"')
    src.write_text(text.replace("#include <cuda_bf16.h>", "#include <cuda_bf16.h>\n__device__ float stash[64];"))
    done = subprocess.run([sys.executable, "-m", "engine", "compile", str(src), "--cache", str(tmp_path / "c")],
                          cwd=FIXTURES.parents[2], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "rejected_static" and "global state" in record["error"]
    assert not (tmp_path / "c").exists()  # nothing was compiled


@NEEDS_NVCC
def test_a_device_variable_spelt_past_the_source_check_is_found_in_the_cubin(tmp_path):
    import json
    import subprocess
    import sys

    src = tmp_path / "pasted.cu.j2"
    space = FIXTURES.parent / "genomes" / "tiny_cuda.toml"
    text = (FIXTURES / "tiny.cu.j2").read_text().replace('"../genomes/tiny_cuda.toml"', f'"{space}"')
    pasted = "#define KG_CAT(a, b) a##b\nKG_CAT(__dev, ice__) float stash[64];"
    src.write_text(text.replace("#include <cuda_bf16.h>", "#include <cuda_bf16.h>\n" + pasted))
    done = subprocess.run([sys.executable, "-m", "engine", "compile", str(src), "--cache", str(tmp_path / "c")],
                          cwd=FIXTURES.parents[2], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "rejected_static", record
    assert "the cubin holds device variables (.nv.global 256 bytes)" in record["error"]


@NEEDS_NVCC
def test_a_clock_read_spelt_past_the_source_check_is_found_in_the_machine_code(tmp_path):
    import json
    import subprocess
    import sys

    src = tmp_path / "clock.cu.j2"
    space = FIXTURES.parent / "genomes" / "tiny_cuda.toml"
    text = (FIXTURES / "tiny.cu.j2").read_text().replace('"../genomes/tiny_cuda.toml"', f'"{space}"')
    # the timer's name pasted and made a string by macros: no word of the source names it
    timer = ('#define KG_STR2(x) #x\n#define KG_STR(x) KG_STR2(x)\n#define KG_CAT(a, b) a##b\n'
             '__device__ __forceinline__ unsigned long long kg_now() {\n  unsigned long long t;\n'
             '  asm volatile("mov.u64 %0, %%" KG_STR(KG_CAT(global, timer)) ";" : "=l"(t)); return t; }\n')
    text = text.replace("#include <cuda_bf16.h>", "#include <cuda_bf16.h>\n" + timer)
    src.write_text(text.replace("  float acc[", "  if (kg_now() == 1ull) return;\n  float acc[", 1))
    done = subprocess.run([sys.executable, "-m", "engine", "compile", str(src), "--cache", str(tmp_path / "c")],
                          cwd=FIXTURES.parents[2], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "rejected_static", record
    assert "reads a clock or sleeps" in record["error"] and "SR_GLOBALTIMER" in record["error"], record["error"]
    # the check left its verdict beside the cubin, for the GPU worker to read instead of disassembling
    kept = tmp_path / "c" / record["build_key"] / "kernel.sass-faults.json"
    verdict = json.loads(kept.read_text())["faults"]
    assert len(verdict) == 1 and verdict[0].startswith("gather_rows: ") and "SR_GLOBALTIMER" in verdict[0]
    # a verdict kept for other bytes (or other rules) is not taken: the cubin is disassembled again
    from evaluators.static_cuda import static_check_cubin

    kept.write_text(json.dumps({**json.loads(kept.read_text()), "cubin_sha256": "0" * 64, "faults": []}))
    with pytest.raises(Rejection, match="SR_GLOBALTIMER"):
        static_check_cubin(Path(record["cubin"]), src.read_text())


def test_the_machine_code_check_names_each_kernel_and_instruction():
    sass = ("\t\tFunction : split\n        /*0020*/    CS2R R2, SR_CLOCKLO ;   /* 0x0000000000027805 */\n"
            "        /*0030*/    S2R R11, SR_TID.X ;   /* 0x00000000000b7919 */\n"
            "\t\tFunction : merge\n        /*0040*/    NANOSLEEP 0x64 ;   /* 0x000000640000795d */\n"
            "        /*0050*/    S2UR UR4, SR_CgaCtaId ;\n")
    assert sass_faults(sass) == ["split: CS2R R2, SR_CLOCKLO", "merge: NANOSLEEP 0x64"]


def test_a_barriers_waits_explain_the_timer_and_sleeps_but_never_the_counters():
    # what cuda::barrier's arrive_and_wait leaves in an sm_90a kernel, a pasted clock64(), a PM read
    faults = ["k: CS2R R6, SR_GLOBALTIMERLO", "k: NANOSLEEP 0xf4240", "k: CS2R R2, SR_CLOCKLO", "k: S2UR UR4, SR_PM7"]
    uses = "#include <cuda/barrier>\n__global__ void k() { __shared__ cuda::barrier<cuda::thread_scope_block> b; }\n"
    assert own_machine_code_faults(faults, uses) == ["k: CS2R R2, SR_CLOCKLO", "k: S2UR UR4, SR_PM7"]
    # a barrier only included, named in a comment or a string, or in an #if 0 block explains nothing
    for unused in ("#include <cuda/barrier>\n", "// cuda::barrier<cuda::thread_scope_block>\n",
                   'const char* s = "cuda::barrier<int>";\n',
                   "#if 0\n__shared__ cuda::barrier<cuda::thread_scope_block> b;\n#endif\n"):
        assert own_machine_code_faults(faults, unused) == faults, unused


@pytest.mark.parametrize("spelling", [
    'asm volatile("mov.u64 %0, %%global" "timer;" : "=l"(t));',  # adjacent literals: one string
    "auto t = cuda::std::chrono::system_clock::now();",
    "auto t = cuda::ptx::get_sreg_globaltimer();",
    'asm volatile("mov.u32 %0, %%pm0;" : "=r"(t));',
    "cuda::std::this_thread::sleep_for(d);",
])
def test_the_source_check_refuses_the_timer_under_other_names(spelling):
    with pytest.raises(Rejection, match="reads a clock or sleeps|inline assembly uses"):
        static_check_cuda(f"__global__ void k(unsigned long long* o) {{\n  {spelling}\n}}\n")


KERNELS = """\
#include <cuda_bf16.h>
template <typename T, int N> struct Pair { T v[N]; };
extern "C" __global__ void declared(float*, int);  // declared, then defined below
extern "C" {
__global__ void __launch_bounds__(128, 1) in_block(const Pair<float, 2> pairs, /* a, (b) */ int n = 4,
                                                    float (*pick)(float, int), void* __restrict__ out) { }
__global__ void none(void) { }
}
extern "C" __global__ void declared(float* __restrict__ out, int n) { out[0] = n; }
__global__ void mangled(int n) { }
#define KERNEL_PARAMS float* a, float* b
extern "C" __global__ void behind_a_macro(KERNEL_PARAMS) { }
extern "C" __global__ void behind_a_header_macro(CUTE_PARAMS) { }
extern "C" __global__ void behind_a_macro_call(KG_PARAMS(float)) { }
"""


def test_kernel_parameters_are_read_per_declaration_past_templates_comments_defaults_and_nested_parentheses():
    found = kernel_parameters(KERNELS)
    assert found == {
        "declared": [("float*", "int"), ("float* __restrict__ out", "int n")],
        "in_block": [("const Pair<float, 2> pairs", "int n", "float (*pick)(float, int)", "void* __restrict__ out")],
        "none": [()],
        "behind_a_macro": [None],         # a macro the source defines: only the compiler sees its expansion
        "behind_a_header_macro": [None],  # one word that is no type: a header's macro, perhaps several
        "behind_a_macro_call": [None],
    }  # mangled: C++ linkage, no kernel the launcher loads


@pytest.mark.parametrize("declaration, kind", [
    ("const __nv_bfloat16* __restrict__ q", "pointer"), ("float rows[4]", "pointer"), ("kg::PartT* p", "pointer"),
    ("int heads", "int32"), ("unsigned int n", "int32"), ("unsigned", "int32"), ("const std::uint32_t n", "int32"),
    ("long long n", "int64"), ("size_t n", "int64"), ("unsigned long long", "int64"), ("char c", "int8"),
    ("bool flag", "int8"), ("short s", "int16"), ("float scale", "float32"), ("const float", "float32"),
    ("double d", "float64"), ("__nv_bfloat16 h", "float16"),
    ("const __grid_constant__ kg::TensorMap q_map", None), ("my_int_t n", None), ("Pair<float, 2> p", None),
])
def test_parameter_kind_reads_what_the_declaration_says_and_no_more(declaration, kind):
    assert parameter_kind(declaration) == kind
