"""The fire drill on CUDA templates: each fault of the CUDA catalogue lands where a candidate's own
bug or cheat would (every split-kernel entry its launch line names, its preamble, its launch line),
on the genomes the headline search runs, and the faulty kernels still build; what they do on a GPU
is tests/gpu/test_gpu_guards.py's."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from engine.faults import FaultError, FaultInjector, faults_for
from engine.faults_cuda import CUDA_FAULTS
from engine.template import load_template, template_from_text
from evaluators.cuda_compile import compile_cuda
from evaluators.rejection import Rejection
from evaluators.sparse_mla_cuda import SPLIT_PARAMS, parse_contract, split_kernel_names
from evaluators.static_cuda import static_check_cuda
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
BARS = json.loads((REPO / "docs" / "diagnostics" / "session63-20261206" / "variants_bars.json").read_text())
GENOMES = {"default": {}, "small-batch bf16 (siblings, q_tma)": BARS["pair i8 (bf16)"]["genes"],
           "small-batch fp8": BARS["fp8 small"]["genes"], "large-batch fp8 (separate)": BARS["fp8 big"]["genes"]}
BY_NAME = {f.name: f for f in CUDA_FAULTS}


def render(genes: dict) -> str:
    return TEMPLATE.render({**TEMPLATE.load_space().default_params(), **genes})


@pytest.fixture(scope="module", params=sorted(GENOMES), ids=sorted(GENOMES))
def source(request):
    return render(GENOMES[request.param])


def first_statement(source: str, name: str) -> str:
    """The first line of the body of the __global__ function ``name``."""
    m = re.search(rf"__global__[^;{{}}]*?\b{name}\s*\([^{{]*\{{\n(.*)\n", source)
    assert m, name
    return m.group(1).strip()


# what the template calls the launcher's arguments (evaluators/sparse_mla_cuda.py: SPLIT_PARAMS)
TEMPLATE_PARAMS = {**{name: name for name in SPLIT_PARAMS}, "kv_cache": "kv"}


@pytest.mark.parametrize("fault", [f for f in CUDA_FAULTS if f.statement], ids=lambda f: f.name)
def test_a_kernel_fault_is_the_first_statement_of_every_split_kernel_with_its_parameters_named(source, fault):
    faulty = fault.apply(source, TEMPLATE.entry)
    names = split_kernel_names(parse_contract(source))
    assert len(names) == len(set(names)) >= 1
    expected = fault.statement.format(**TEMPLATE_PARAMS)
    assert [first_statement(faulty, name) for name in names] == [expected] * len(names)
    assert faulty.count(expected) == len(names)  # and nowhere else
    if fault.name != "result_cache":
        static_check_cuda(faulty)  # nothing the static guard refuses: the GPU must catch these


def test_the_static_faults_are_refused_by_the_static_guard_and_the_source_is_honest_without_them(source):
    static_check_cuda(source)
    for name, says in (("static_cheat", "cstdio"), ("result_cache", "global state")):
        with pytest.raises(Rejection, match=says):
            static_check_cuda(BY_NAME[name].apply(source, TEMPLATE.entry))


def test_the_launch_fault_asks_for_more_threads_than_a_cta_can_have_and_changes_nothing_else(source):
    faulty = BY_NAME["launch_failure"].apply(source, TEMPLATE.entry)
    before, after = parse_contract(source), parse_contract(faulty)
    assert after.threads == 2048 and before.threads <= 1024
    assert dataclasses.replace(after, threads=before.threads) == before

    def other_lines(text: str) -> list[str]:
        return [line for line in text.splitlines() if "kernel-genome-launch" not in line]

    assert other_lines(faulty) == other_lines(source)


def test_a_source_without_the_kernel_its_launch_line_names_is_a_fault_error_naming_it():
    source = render({}).replace("sparse_mla_decode_split(", "renamed_split(")
    with pytest.raises(FaultError, match="sparse_mla_decode_split"):
        BY_NAME["wrong"].apply(source, TEMPLATE.entry)


@NEEDS_NVCC
def test_every_kernel_fault_builds(tmp_path):
    """All the statement faults put into the small-batch genome at once: each is C++ the kernels
    accept (the hang's loop leaves what follows it unreachable; nvcc still checks every line, and
    builds in a second or two)."""
    faulty = render(GENOMES["small-batch bf16 (siblings, q_tma)"])
    for fault in CUDA_FAULTS:
        if fault.statement and fault.name != "result_cache":
            faulty = fault.apply(faulty, TEMPLATE.entry)
    assert faulty.count("for (;;)") == len(split_kernel_names(parse_contract(faulty)))
    build = compile_cuda(faulty, tmp_path)
    assert build.ok, build.excerpt()


def test_a_drill_on_a_cuda_gpu_draws_every_cuda_fault_and_none_without_one():
    injector = FaultInjector(0.3, 7, "cuda", "cuda")
    drawn = [f for f in (injector.draw() for _ in range(90)) if f is not None]
    assert len(drawn) == 27 and {f.name for f in drawn} == {f.name for f in CUDA_FAULTS}
    assert faults_for("cuda", "triton") != faults_for("cuda", "cuda")
    with pytest.raises(ValueError, match="cuda catalogue can happen on cpu"):
        FaultInjector(0.1, 0, "cpu", "cuda")


@NEEDS_NVCC
def test_a_fault_that_cannot_be_put_into_a_genome_is_skipped_with_a_line_and_the_run_goes_on(tmp_path):
    """The build fixture without its launch line: only a preamble fault (a header) can go
    into them. The loop (the real worker, on this machine's CPU: nvcc builds, nothing runs) says so
    for each of the others, keeps no row for it, and records every genome."""
    import io

    from engine.loop import EvolveLoop
    from engine.run_folder import open_run
    from engine.store.reader import read_records
    from engine.store.writer import ResultsWriter
    from engine.strategies import make_strategy
    from evaluators.runner import WorkerRunner

    fixture = REPO / "tests" / "fixtures" / "templates" / "tiny.cu.j2"
    template = template_from_text(fixture, re.sub(r"^// kernel-genome-launch:.*\n", "", fixture.read_text(), flags=re.M))
    space = template.load_space()
    run = tmp_path / "run"
    config = open_run(run, template, "random", 1, resume=False)
    said = io.StringIO()
    runner = WorkerRunner(tmp_path / "kernels", tmp_path / "worker.log", device="cpu", timeout_s=120)
    try:
        loop = EvolveLoop(template, space, make_strategy("random", space, 2), runner, ResultsWriter(run, config.run_id),
                          len(CUDA_FAULTS), cpu_rows=True, progress=said,
                          injector=FaultInjector(1.0, 3, "cuda", "cuda"))  # a whole round: each fault once
        loop.run()
    finally:
        runner.stop()
    rows = read_records(run)
    injected = [r for r in rows if r["kind"] == "injected"]
    assert [(r["operator"], r["status"]) for r in injected] == [("inject:static_cheat->rejected_static",
                                                                 "rejected_static")]
    skipped = re.findall(r"\[inject\] (\w+): not drawn for this genome \((.*)\)", said.getvalue())
    assert sorted(name for name, _ in skipped) == sorted(f.name for f in CUDA_FAULTS if f.name != "static_cheat")
    assert all("kernel-genome-launch" in why for _, why in skipped)
    genomes = [r for r in rows if r["kind"] == "genome"]
    assert len(genomes) == len(CUDA_FAULTS) and {r["stage"] for r in genomes} == {"compile"}  # built; no GPU
