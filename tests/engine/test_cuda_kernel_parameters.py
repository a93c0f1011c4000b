"""A CUDA template's kernels must take what the trusted launcher passes them, in number and kind:
a launch with an argument too few or too many reads garbage (an illegal address that poisons the
CUDA context, or a silent wrong answer), which only a GPU found. The default genome's source is
checked when the template loads (one line naming the file, the kernel and both lists), and every
genome's cubin when it is built (its compile_error, from the sizes the cubin records)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.template import load_template
from evaluators.sparse_mla_cuda import LaunchContract, launched_parameters, parameter_size_faults, parse_contract
from tests.engine.test_cli_errors import assert_user_error, run_cli
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "templates" / "tiny.cu.j2"
SPACE = REPO / "tests" / "fixtures" / "genomes" / "tiny_cuda.toml"
LAST = "int width, float scale_log2)"  # the end of the fixture kernel's 13 parameters


def user_template(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """The CUDA fixture as a user's template of its own, with ``edits`` (old, new) made."""
    text = FIXTURE.read_text().replace('"../genomes/tiny_cuda.toml"', f'"{SPACE}"')
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "mine.cu.j2"
    path.write_text(text)
    return path


def load_checked(path: Path) -> None:
    template = load_template(path)
    template.check_problem(template.load_space())


def refusal(path: Path) -> str:
    with pytest.raises(UserError) as info:
        load_checked(path)
    return str(info.value)


# -- when the template loads: the default genome's source ----------------------------------------

def test_a_kernel_with_the_launchers_thirteen_parameters_loads(tmp_path):
    load_checked(user_template(tmp_path))


def test_a_kernel_with_one_parameter_too_few_is_refused_naming_file_kernel_and_both_lists(tmp_path):
    path = user_template(tmp_path, (LAST, "int width)"))
    message = refusal(path)
    assert message.startswith(f"{path}: the default genome's kernel gather_rows takes 12 parameters ("), message
    assert "int n_idx, int topk, int num_splits, int width)" in message
    assert ("the launcher passes 13: q (pointer), kv_cache (pointer), indices (pointer), out (pointer), lse (pointer), "
            "part_out (pointer), part_lse (pointer), arrivals (pointer), heads (int32), topk (int32), "
            "num_splits (int32), rows_per_split (int32), scale_log2 (float32)") in message


def test_a_kernel_with_one_parameter_too_many_is_refused(tmp_path):
    message = refusal(user_template(tmp_path, (LAST, "int width, float scale_log2, int extra)")))
    assert "kernel gather_rows takes 14 parameters" in message and "int extra" in message
    assert "the launcher passes 13:" in message


@pytest.mark.parametrize("old, new, words", [
    ("int n_idx,", "long long n_idx,",
     "takes 'long long n_idx' as parameter 9 of 13, a 64-bit integer; the launcher passes heads there, a 32-bit int"),
    ("float scale_log2)", "double scale_log2)",
     "takes 'double scale_log2' as parameter 13 of 13, a 64-bit float (double); the launcher passes scale_log2 there"),
    ("int n_idx,", "const int* n_idx,",
     "takes 'const int* n_idx' as parameter 9 of 13, a pointer; the launcher passes heads there, a 32-bit integer"),
    ("float* __restrict__ lse,", "float lse,",
     "takes 'float lse' as parameter 5 of 13, a 32-bit float; the launcher passes lse there, a pointer"),
])
def test_a_parameter_of_another_kind_in_the_launchers_place_is_refused(tmp_path, old, new, words):
    path = user_template(tmp_path, (old, new))
    message = refusal(path)
    assert message.startswith(f"{path}: the default genome's kernel gather_rows "), message
    assert words in message, message


def test_what_the_source_alone_cannot_size_or_read_is_left_to_the_build(tmp_path):
    # a typedef in an int's place; a parameter list behind a macro (what it expands to only the
    # compiler sees); comments, __launch_bounds__' comma and a default argument in the list
    load_checked(user_template(tmp_path, ("int n_idx,", "my_count_t n_idx,"),
                               ("#include <cuda_bf16.h>", "#include <cuda_bf16.h>\ntypedef int my_count_t;")))
    load_checked(user_template(
        tmp_path, ("#include <cuda_bf16.h>",
                   "#include <cuda_bf16.h>\n#define GATHER_PARAMS const __nv_bfloat16* rows, const unsigned char* kv"),
        ("gather_rows(const __nv_bfloat16* __restrict__ rows, const unsigned char* __restrict__ kv,",
         "gather_rows(GATHER_PARAMS,")))
    load_checked(user_template(
        tmp_path, ("__launch_bounds__({{ THREADS }})", "__launch_bounds__({{ THREADS }}, 1)"),
        ("const int* __restrict__ idx,", "const int* __restrict__ idx /* row ids, (int32) */,"),
        (LAST, "int width, float scale_log2 = 1.f)")))


def test_a_separate_combine_kernel_is_checked_where_the_launcher_launches_it(tmp_path):
    # "num_splits": 1 never launches the combine kernel (the fixture names its split kernel there);
    # with auto splits it runs, and must take part_out, part_lse, out, lse, heads, num_splits
    combine = ('extern "C" __global__ void merge(const float* part_out, const float* part_lse, float* out, '
               'float* lse, int heads)\n{ }\n')
    path = user_template(tmp_path, ('"combine_kernel": "gather_rows"', '"combine_kernel": "merge"'),
                         ("#include <cuda_bf16.h>\n", "#include <cuda_bf16.h>\n" + combine))
    load_checked(path)
    auto = user_template(tmp_path, ('"combine_kernel": "gather_rows"', '"combine_kernel": "merge"'),
                         ('"num_splits": 1', '"num_splits": "auto"'),
                         ("#include <cuda_bf16.h>\n", "#include <cuda_bf16.h>\n" + combine))
    message = refusal(auto)
    assert "kernel merge takes 5 parameters" in message, message
    assert "the launcher passes 6: part_out (pointer), part_lse (pointer), out (pointer), lse (pointer), " \
           "heads (int32), num_splits (int32)" in message


def test_a_query_tensor_map_is_one_more_parameter_passed_by_value(tmp_path):
    tensor_map = ("#include <cuda_bf16.h>",
                  "#include <cuda_bf16.h>\nstruct alignas(64) Map { unsigned long long w[16]; };")
    q_tma = ('"smem_bytes": 0}', '"smem_bytes": 0, "q_tma": true}')
    message = refusal(user_template(tmp_path, q_tma))
    assert "takes 13 parameters" in message and "the launcher passes 14:" in message
    assert message.endswith("scale_log2 (float32), q_map (tensor_map)"), message
    load_checked(user_template(tmp_path, q_tma, tensor_map,
                               (LAST, "int width, float scale_log2, const __grid_constant__ Map q_map)")))
    message = refusal(user_template(tmp_path, q_tma, (LAST, "int width, float scale_log2, const Map* q_map)")))
    assert ("'const Map* q_map' as parameter 14 of 14, a pointer; the launcher passes q_map there, a tensor map "
            "(128 bytes by value)") in message


def test_engine_compile_refuses_a_mismatched_template_in_one_line_before_nvcc(tmp_path):
    path = user_template(tmp_path, (LAST, "int width)"))
    proc = run_cli("compile", path, "--cache", tmp_path / "cache")
    assert_user_error(proc, str(path), "kernel gather_rows takes 12 parameters", "the launcher passes 13")
    assert not (tmp_path / "cache").exists()


# -- the shipped template: every launch it can render --------------------------------------------

# the genes that change which kernels a launch runs and what they take (the tensor map of q, the
# siblings' entries and their counts, a combine kernel or none) or which code declares them (the
# other genes change only the bodies and the launch line's numbers)
LAUNCH_GENES = ("COMBINE", "Q_LOAD", "NUM_SPLITS", "KV_FORMAT", "MMA", "PIPELINE", "SCHEDULE", "SPLIT_STEP")


def test_the_shipped_cuda_template_loads():
    load_checked(REPO / "templates" / "sparse_mla.cu.j2")


def test_every_launch_the_shipped_cuda_template_renders_passes_its_kernels_what_they_declare():
    from evaluators.sparse_mla_cuda import PARAM_KINDS
    from evaluators.static_cuda import kernel_parameters, parameter_fault

    template = load_template(REPO / "templates" / "sparse_mla.cu.j2")
    firsts = {}  # the first valid genome of each combination of the launch genes' values
    for params in template.load_space().listed():
        firsts.setdefault(tuple(params.get(gene) for gene in LAUNCH_GENES), params)
    assert len(firsts) > 100
    seen, entries = set(), set()
    for params in firsts.values():
        source = template.render(params)
        launch = parse_contract(source)
        declared = kernel_parameters(source)
        for kernel, passed in launched_parameters(launch):
            assert declared.get(kernel) and None not in declared[kernel], (kernel, params)
            for listed in declared[kernel]:
                assert parameter_fault(listed, [(p, PARAM_KINDS[p]) for p in passed]) is None, (kernel, params)
            seen.add((re.sub(r"_s\d+$", "", kernel), len(passed)))  # a siblings' count entry as its family
            entries.add(kernel)
    # split entries with and without the tensor map, the combine kernel, the siblings' entries
    assert seen == {("sparse_mla_decode_split", 13), ("sparse_mla_decode_split", 14), ("sparse_mla_decode_combine", 6)}
    assert {"sparse_mla_decode_split_s2", "sparse_mla_decode_split_s32"} <= entries


# -- when a genome is built: the sizes its cubin records ------------------------------------------

def contract(**fields) -> LaunchContract:
    base = {"split_kernel": "split", "combine_kernel": "merge", "heads_per_cta": 64, "threads": 256,
            "topk_tile": 64, "num_splits": "auto", "combine": "separate", "kv_format": "bf16", "smem_bytes": 0}
    return parse_contract(f"// kernel-genome-launch: {json.dumps({**base, **fields})}\n")


SPLIT = (8,) * 8 + (4,) * 5
MERGE = (8,) * 4 + (4, 4)


def test_the_launches_a_launch_line_makes_are_every_split_entry_and_a_separate_combine():
    assert [k for k, _ in launched_parameters(contract())] == ["split", "merge"]
    assert [k for k, _ in launched_parameters(contract(num_splits=1))] == ["split"]
    assert [k for k, _ in launched_parameters(contract(combine="fused"))] == ["split"]
    siblings = contract(combine="siblings", split_kernels={"8": "split_s8"}, q_tma=True)
    (split, split_params), (entry, entry_params) = launched_parameters(siblings)
    assert (split, entry) == ("split", "split_s8") and split_params == entry_params and split_params[-1] == "q_map"


def test_a_cubin_whose_kernels_take_what_the_launcher_passes_has_no_fault():
    assert parameter_size_faults(contract(), {"split": SPLIT, "merge": MERGE, "other": ()}) == []
    assert parameter_size_faults(contract(q_tma=True), {"split": SPLIT + (128,), "merge": MERGE}) == []


@pytest.mark.parametrize("sizes, words", [
    ({"split": SPLIT[:-1], "merge": MERGE}, ("kernel split takes 12 parameters of [8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4] "
                                            "bytes, and the launcher passes 13: q (pointer, 8 B)")),
    ({"split": SPLIT, "merge": MERGE + (4,)}, "kernel merge takes 7 parameters"),
    ({"split": SPLIT[:8] + (8,) + SPLIT[9:], "merge": MERGE}, "heads (int32, 4 B)"),
    ({"split": SPLIT}, "the launch line names kernel merge, and the cubin has none (its kernels: ['split'])"),
])
def test_a_cubin_whose_kernels_take_other_parameters_is_a_fault_naming_kernel_and_sizes(sizes, words):
    (fault,) = parameter_size_faults(contract(), sizes)
    assert words in fault, fault


@NEEDS_NVCC
def test_the_worker_types_a_built_kernel_that_takes_other_parameters_as_compile_error(module_worker, tmp_path):
    # the load check reads the default genome only; the build check reads every genome's cubin
    template = load_template(user_template(tmp_path))
    params = template.load_space().default_params()
    source = template.render(params)
    worker = module_worker("cpu", timeout_s=120)
    wrong = worker.evaluate(template.request(source.replace(LAST, "int width)"), params, seed=1))
    assert wrong["status"] == "compile_error" and wrong["stage"] == "compile", wrong
    assert "kernel gather_rows takes 12 parameters of [8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4] bytes" in wrong["error"]
    assert wrong["resources"]["registers"] is not None  # nvcc built it: the cubin said so
    right = worker.evaluate(template.request(source, params, seed=1))
    assert right["status"] == "runtime_error" and "runs only on a GPU" in right["error"], right  # past the check


@NEEDS_NVCC
def test_engine_compile_says_compile_error_for_a_genome_whose_kernel_takes_another_list(tmp_path):
    # the default genome loads; the genome with UNROLL 8 adds a parameter the launcher never passes
    path = user_template(tmp_path, (LAST, "int width, float scale_log2{% if UNROLL == 8 %}, int extra{% endif %})"))
    ok = run_cli("compile", path, "--cache", tmp_path / "cache")
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "ok", ok.stderr
    proc = run_cli("compile", path, "--genome", '{"UNROLL": 8}', "--cache", tmp_path / "cache")
    assert proc.returncode == 1, proc.stderr
    record = json.loads(proc.stdout)
    assert record["status"] == "compile_error" and record["cubin"], record
    assert record["error"].startswith("kernel gather_rows takes 14 parameters of [8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, "
                                      "4, 4] bytes, and the launcher passes 13"), record["error"]
