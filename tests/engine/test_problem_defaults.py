"""Genes that change the problem (the cache format): each problem gets its own default genome,
and every genome is scored against the default of the problem it solves. Runs of a two-format
fixture kernel with the real worker under the interpreter."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from engine.loop import EvolveLoop
from engine.run_folder import open_run
from engine.space_file import load_space
from engine.store.reader import read_records
from engine.store.writer import ResultsWriter
from engine.strategies import make_strategy
from engine.template import load_template
from evaluators.runner import WorkerRunner
from tests.recording_worker import RecordingWorker

REPO = Path(__file__).resolve().parents[2]
FORMATS = REPO / "tests" / "fixtures" / "templates" / "sparse_mla_formats.triton.j2"
CUDA = REPO / "templates" / "sparse_mla.cu.j2"


def _format(record) -> str:
    return json.loads(record["params_json"])["KV_FORMAT"]


def _run(run_dir: Path, runner, budget: int, resume: bool = False) -> tuple[EvolveLoop, list[dict]]:
    template = load_template(FORMATS)
    space = template.load_space()
    config = open_run(run_dir, template, "random", 5, resume)
    loop = EvolveLoop(template, space, make_strategy("random", space, 5), runner,
                      ResultsWriter(run_dir, config.run_id), budget, cpu_rows=True)
    loop.restore(read_records(run_dir))
    loop.run()
    return loop, read_records(run_dir)


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cpu", timeout_s=120)


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory, runner):
    """The fixture's whole space (four genomes, two a format) as one run."""
    run_dir = tmp_path_factory.mktemp("formats") / "run"
    loop, records = _run(run_dir, runner, budget=4)
    return run_dir, loop, records


def test_each_cache_format_has_its_default_evaluated_first(whole_run):
    _, _, records = whole_run
    genomes = [r for r in records if r["kind"] == "genome"]
    assert [r["operator"] for r in genomes[:2]] == ["default", "default"]
    assert [_format(r) for r in genomes[:2]] == ["bf16", "fp8_656"]
    assert all(r["operator"] != "default" for r in genomes[2:]) and len(genomes) == 4
    for r in genomes:
        assert r["status"] == "ok", r["error"]


def test_every_genome_is_scored_against_its_own_formats_default(whole_run):
    _, _, records = whole_run
    genomes = [r for r in records if r["kind"] == "genome"]
    defaults = {_format(r): r for r in genomes if r["operator"] == "default"}
    for r in genomes:
        own = defaults[_format(r)]
        assert r["baseline"] == f"default genome {own['genome_id']}"
        base = {w["name"]: w["median_us"] for w in own["workloads"]}
        ratios = [w["median_us"] / base[w["name"]] for w in r["workloads"]]
        assert len(ratios) == len(base) == 4
        assert r["score"] == pytest.approx(math.exp(sum(map(math.log, ratios)) / len(ratios)), rel=1e-9)
    assert [defaults[f]["score"] for f in ("bf16", "fp8_656")] == pytest.approx([1.0, 1.0], abs=1e-12)


def test_a_resumed_run_rebuilds_each_formats_baseline(whole_run):
    run_dir, loop, _ = whole_run
    template = load_template(FORMATS)
    space = template.load_space()
    again = EvolveLoop(template, space, make_strategy("random", space, 5), None,
                       ResultsWriter(run_dir, "unused"), 4, cpu_rows=True)
    again.restore(read_records(run_dir))
    assert again.state.baselines.by_problem == loop.state.baselines.by_problem
    assert sorted(again.state.baselines.by_problem) == ['{"kv_format": "bf16"}', '{"kv_format": "fp8_656"}']
    assert again.state.baselines.references == loop.state.baselines.references
    assert sorted(again.state.baselines.references) == ['{"kv_format": "bf16"}', '{"kv_format": "fp8_656"}']
    assert again.state.reference_problems == loop.state.reference_problems


class _BrokenFp8Default(WorkerRunner):
    """The real worker, handed a kernel that cannot compile in place of the FP8 default's."""

    def evaluate(self, request):
        if request.get("problem_args") == {"kv_format": "fp8_656"} and "BK=128" in (request["source"] or ""):
            request = {**request, "source": request["source"].replace("def sparse_mla_decode(", "def (")}
        return super().evaluate(request)


def test_a_format_whose_default_failed_is_scored_against_the_first_default_and_says_so(tmp_path):
    runner = _BrokenFp8Default(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        _, records = _run(tmp_path / "run", runner, budget=4)
    finally:
        runner.stop()
    genomes = {(_format(r), json.loads(r["params_json"])["BLOCK_K"]): r for r in records if r["kind"] == "genome"}
    assert genomes["fp8_656", 128]["status"] != "ok" and genomes["fp8_656", 128]["score"] is None
    bf16_default = genomes["bf16", 128]
    fp8 = genomes["fp8_656", 64]
    assert fp8["status"] == "ok", fp8["error"]
    assert fp8["baseline"] == f"default genome {bf16_default['genome_id']}"


def test_the_cuda_template_poses_one_problem_a_cache_format():
    template = load_template(CUDA)
    space = template.load_space()
    defaults = template.problem_defaults(space)
    assert defaults[0] == space.default_params()
    assert [d["KV_FORMAT"] for d in defaults] == ["bf16", "fp8_656"]
    assert all(space.is_valid(d) for d in defaults)
    # genes other than the problem's keep their defaults where the constraints allow
    assert {k: v for k, v in defaults[1].items() if k != "KV_FORMAT"} == \
        {k: v for k, v in defaults[0].items() if k != "KV_FORMAT"}
    (fixed,) = template.problem_defaults(space.restrict({"KV_FORMAT": "fp8_656"}))
    assert fixed["KV_FORMAT"] == "fp8_656"


def test_where_a_constraint_excludes_the_defaults_the_problems_first_valid_genome_stands_in(tmp_path):
    text = (REPO / "tests" / "fixtures" / "genomes" / "formats.toml").read_text()
    path = tmp_path / "formats.toml"
    path.write_text(text + '\n[[constraints]]\nexpr = "KV_FORMAT == \'bf16\' or BLOCK_K == 64"\n'
                    'why = "no 128-row tiles of FP8 rows"\n')
    defaults = load_template(FORMATS).problem_defaults(load_space(path))
    assert defaults == [{"KV_FORMAT": "bf16", "BLOCK_K": 128}, {"KV_FORMAT": "fp8_656", "BLOCK_K": 64}]


def test_a_template_without_problem_genes_has_the_one_default():
    template = load_template(REPO / "templates" / "sparse_mla.triton.j2")
    space = template.load_space()
    assert template.problem_defaults(space) == [space.default_params()]


@pytest.fixture(scope="module")
def shown(whole_run) -> str:
    """`engine show`'s text of the whole run."""
    import io

    from engine.show import show

    out = io.StringIO()
    show(whole_run[0], out)
    return out.getvalue()


def test_show_ranks_each_formats_genomes_apart_against_their_own_default(whole_run, shown):
    _, _, records = whole_run
    text = shown
    for fmt in ("bf16", "fp8_656"):
        default = next(r for r in records if r["operator"] == "default" and _format(r) == fmt)
        header = f"top 2 by score for KV_FORMAT={fmt} (geomean time relative to default genome {default['genome_id']}):"
        assert header in text
        ranked = text.split(header)[1].split("\n\n")[0]
        ids = {r["genome_id"] for r in records if r["kind"] == "genome" and _format(r) == fmt}
        assert {line.split()[1] for line in ranked.strip().splitlines()} == ids


def test_the_audit_reruns_the_best_of_each_format(whole_run):
    import io

    from engine.audit import audit

    run_dir, _, records = whole_run
    out = io.StringIO()
    fresh = lambda template, folder, device: WorkerRunner(folder / "k", folder / "w.log", device="cpu",  # noqa: E731
                                                          timeout_s=120)
    failed = audit(run_dir, 1, fresh, out)
    text = out.getvalue()
    assert failed == 0, text
    best = {}
    for r in records:
        if r["kind"] == "genome" and (_format(r) not in best or r["score"] < best[_format(r)]["score"]):
            best[_format(r)] = r
    assert "top 2 genomes (up to 1 of each of 2 problems)" in text
    audited = [line.split()[0] for line in text.splitlines() if "reproduces" in line]
    assert audited == [best["bf16"]["genome_id"], best["fp8_656"]["genome_id"]]


def test_each_format_has_its_own_pareto_front(whole_run):
    from engine.objectives import evaluate, pareto_front

    run_dir, _, records = whole_run
    template = load_template(FORMATS)
    space = template.load_space()
    loop = EvolveLoop(template, space, make_strategy("random", space, 5), None, ResultsWriter(run_dir, "unused"),
                      4, cpu_rows=True, objectives=("score", "error"))
    loop.restore(read_records(run_dir))
    front = loop.pareto()
    by_format: dict[str, set] = {}
    for p in front:
        by_format.setdefault(p["problem"]["kv_format"], set()).add(p["genome_id"])
        assert p["params"]["KV_FORMAT"] == p["problem"]["kv_format"]
    for fmt in ("bf16", "fp8_656"):  # each format's front, computed from its own rows alone
        own = [r for r in records if r["kind"] == "genome" and _format(r) == fmt]
        default = next(r for r in own if r["operator"] == "default")
        base = {w["name"]: w["median_us"] for w in default["workloads"]}
        points = [(r["genome_id"], evaluate(("score", "error"), r, base)) for r in own]
        assert by_format[fmt] == {gid for gid, _ in pareto_front(points)}


def _relative(times: dict, base: dict) -> float:
    return math.exp(sum(math.log(times[k] / base[k]) for k in base) / len(base))


def test_a_replayed_sweep_reads_each_formats_genomes_against_their_own_default(whole_run):
    from engine.compare import load_sweep
    from engine.genome import canonical_json

    run_dir, _, records = whole_run
    sweep = load_sweep(run_dir, objective="long_context")
    genomes = [r for r in records if r["kind"] == "genome"]
    defaults = {_format(r): r for r in genomes if r["operator"] == "default"}
    longest = max(w["context"] for w in genomes[0]["workloads"])
    for r in genomes:
        times = {w["name"]: w["median_us"] for w in r["workloads"] if w["context"] == longest}
        base = {w["name"]: w["median_us"] for w in defaults[_format(r)]["workloads"] if w["context"] == longest}
        key = canonical_json(json.loads(r["params_json"]))
        assert sweep.objective[key] == pytest.approx(_relative(times, base), rel=1e-9)
    assert [sweep.objective[canonical_json(json.loads(d["params_json"]))] for d in defaults.values()] == [1.0, 1.0]


def test_a_replayed_sweep_reads_the_decode_layers_time_against_its_own_formats_default(whole_run, tmp_path):
    """The e2e objective of a run made with --e2e: the decode layer's times ride in the baseline."""
    from engine.compare import load_sweep
    from engine.genome import canonical_json

    _, _, records = whole_run
    template = load_template(FORMATS)
    run = tmp_path / "e2e-run"
    config = open_run(run, template, "random", 5, False)
    rows, layer = [], {}
    for k, r in enumerate(records):  # the same rows, each with a decode layer's time of its own
        layer[r["genome_id"]] = 100.0 + 7.0 * k
        e2e = [{"name": "b1_layer", "batch": 1, "heads": 16, "topk": 64, "context": 512,
                "step_us": layer[r["genome_id"]]}] if r["status"] == "ok" else None
        rows.append({**r, "e2e": e2e})
    ResultsWriter(run, config.run_id).append(rows)
    sweep = load_sweep(run, objective="e2e")
    genomes = [r for r in records if r["kind"] == "genome"]
    defaults = {_format(r): r["genome_id"] for r in genomes if r["operator"] == "default"}
    for r in genomes:
        expected = layer[r["genome_id"]] / layer[defaults[_format(r)]]
        assert sweep.objective[canonical_json(json.loads(r["params_json"]))] == pytest.approx(expected, rel=1e-12)


def test_each_format_has_its_own_pytorch_reference_path(whole_run):
    _, loop, records = whole_run
    references = [r for r in records if r["kind"] == "reference"]
    assert [(r["genome_id"], json.loads(r["params_json"])) for r in references] == [
        ("pytorch-reference-bf16", {"KV_FORMAT": "bf16"}), ("pytorch-reference-fp8_656", {"KV_FORMAT": "fp8_656"})]
    assert all(r["status"] == "ok" and r["workloads"] for r in references)
    assert [r["kind"] for r in records[:2]] == ["reference", "reference"]  # before any genome
    assert loop.state.reference_problems == {'{"kv_format": "bf16"}', '{"kv_format": "fp8_656"}'}


def test_each_reference_path_is_asked_for_its_own_formats_problem_and_a_resumed_older_run_gets_the_missing_one(
        whole_run, tmp_path):
    """A run from before each problem had its own reference (one row, no params, the bf16 problem):
    resumed, it gains the FP8 one and no second bf16 one; the worker is asked for the FP8 problem."""
    import shutil

    old_dir, _, records = whole_run
    run = tmp_path / "older"
    run.mkdir()
    shutil.copy(old_dir / "run.json", run)
    shutil.copytree(old_dir / "snapshot", run / "snapshot")
    rows = []
    for r in records:
        if r["genome_id"] == "pytorch-reference-fp8_656":
            continue
        row = {k: v for k, v in r.items() if k not in ("schema_version", "run_id", "created_at")}
        if r["kind"] == "reference":
            row.update(genome_id="pytorch-reference", params_json=None)
        rows.append(row)
    ResultsWriter(run, records[0]["run_id"]).append(rows)
    runner = RecordingWorker(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        loop, again = _run(run, runner, budget=4, resume=True)
    finally:
        runner.stop()
    assert [(r["builtin"], r["problem_args"]) for r in runner.requests] == [("torch_reference", {"kv_format": "fp8_656"})]
    references = [r for r in again if r["kind"] == "reference"]
    assert [r["genome_id"] for r in references] == ["pytorch-reference", "pytorch-reference-fp8_656"]
    assert references[1]["status"] == "ok" and references[1]["attempt"] == max(r["attempt"] for r in again)
    assert loop.state.baselines.references.keys() == {'{"kv_format": "bf16"}', '{"kv_format": "fp8_656"}'}


def test_show_compares_each_formats_best_with_its_own_pytorch_path(whole_run, shown):
    _, _, records = whole_run
    text = shown
    for fmt in ("bf16", "fp8_656"):
        reference = next(r for r in records if r["genome_id"] == f"pytorch-reference-{fmt}")
        header = (f"best genome per workload for KV_FORMAT={fmt} (median us, IQR, TFLOP/s, fraction of roofline "
                  f"floor; PyTorch reference path from the same run, on the same problem):")
        assert header in text
        table = text.split(header)[1].split("\n\n")[0].strip().splitlines()[1:]
        torch_us = {line.split()[0]: float(line.split()[5]) for line in table}
        assert torch_us == pytest.approx({w["name"]: w["median_us"] for w in reference["workloads"]}, abs=0.05)


def test_eval_reference_runs_the_pytorch_path_on_the_named_genomes_format():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "engine", "eval", str(FORMATS), "--reference", "--device", "cpu",
                           "--genome", '{"KV_FORMAT": "fp8_656"}'], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout)
    assert (record["kind"], record["genome_id"], record["status"]) == ("reference", "pytorch-reference-fp8_656", "ok")
    assert json.loads(record["params_json"]) == {"KV_FORMAT": "fp8_656"} and record["workloads"]
