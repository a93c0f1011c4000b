"""GPU tier: a CUDA run builds each genome for its GPU (the split-kernel entries its calls pick,
evaluators/build_target.py), notes the GPU's SM count, and its export ships every entry, checked
kernel by kernel against the run's builds, and runs from the export folder in a CUDA graph."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.store.reader import read_records
from tests.gpu._export_use import use_export

REPO = Path(__file__).resolve().parents[2]
# the bf16 small-batch genome of the bars, less its cache format: the slice's default of each
# format is a siblings genome whose build leaves entries out on any Hopper part
SMALL_BATCH = dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", STAGES=2, Q_LOAD="tma", TOPK_TILE=32,
                   GATHER_LANES=8, PARTIALS="i8", PDL=True, COMBINE="siblings", VALUE_ISSUE="at_p",
                   FIRST_GATHER="pair_first", SPLIT_STEP="pair", PAIRING="fixed")


@pytest.mark.gpu
def test_a_cuda_run_builds_for_its_gpu_and_exports_the_whole_build_checked_against_it(tmp_path):
    import torch

    from engine.export import export
    from evaluators.build_target import BuildTarget
    from evaluators.sparse_mla import SparseMlaDecode
    from evaluators.sparse_mla_cuda import launched_split_counts, parse_contract

    run = tmp_path / "run"
    fixes = [arg for gene, value in SMALL_BATCH.items() for arg in ("--fix", f"{gene}={json.dumps(value)}")]
    done = subprocess.run([sys.executable, "-m", "engine", "evolve", "templates/sparse_mla.cu.j2", "--budget", "2",
                           "--no-e2e", "--out", str(run), *fixes], cwd=REPO, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert json.loads((run / "run.json").read_text())["build_sm_counts"] == [sms]
    genomes = [r for r in read_records(run) if r["kind"] == "genome"]
    assert {json.loads(r["params_json"])["KV_FORMAT"] for r in genomes} == {"bf16", "fp8_656"}
    assert all(r["status"] == "ok" for r in genomes), [r["error"] for r in genomes]
    assert all(r["build_sm_counts"] == [sms] for r in genomes)  # each row names what it was built for
    # what the worker built: only the entries of the counts the problem's calls pick on this GPU
    built = {path.read_text() for path in (run / "cubins").rglob("kernel.cu")}
    for source in built:
        entries = {count for count, _ in parse_contract(source).split_kernels}
        assert entries == set(launched_split_counts(parse_contract(source), SparseMlaDecode().launch_shapes("cuda"),
                                                    (sms,)))
        assert entries and len(entries) < 10
    folder = tmp_path / "export"
    table = export(run, folder, io.StringIO())
    assert table["cubins"]["built"], table["cubins"]
    assert not any(k.get("note") for k in table["kernels"].values()), table["kernels"]
    shipped = [(folder / k["source"]).read_text() for k in table["kernels"].values()]
    assert all(len(parse_contract(s).split_kernels) > len(parse_contract(next(iter(built))).split_kernels)
               for s in shipped)  # every entry ships
    assert BuildTarget.of_envs([{"device_kind": "cuda", "sm_count": str(sms)}]) == BuildTarget((sms,))
    use = use_export(folder)
    assert use.returncode == 0, use.stderr[-3000:]
    assert [line.split(" ", 2)[2] for line in use.stdout.splitlines()] == ["None", "None"], use.stdout
