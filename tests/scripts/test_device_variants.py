"""scripts/device/variants.py, the one reader of the device scripts' variants files
(time_cuda_genomes.py, profile_small_batch.py, trace_seesaw.py), on real files: both forms of a
variant, another template with its own space, an edited copy kept outside the templates' folder
(rendered with the space of the template it copies), forced genes, and malformed files and
variants refused with the file, the variant and the field named."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.template import load_template
from tests.scripts._device_script import load_device_script

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "templates"
TINY = load_template(FIXTURES / "tiny.cu.j2")   # stands for a script's own template (CUDA)
SMALL = FIXTURES / "sparse_mla_small.triton.j2"  # another template beside it, with its own space


@pytest.fixture(scope="module")
def variants():
    return load_device_script("variants.py")


def write(folder: Path, data, name: str = "variants.json") -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_both_forms_and_every_field_load_from_a_file(variants, tmp_path):
    copy = tmp_path / "elsewhere" / "tiny_edited.cu.j2"  # its front matter's ../genomes/ is not beside it
    copy.parent.mkdir()
    copy.write_text((FIXTURES / "tiny.cu.j2").read_text().replace("// Test fixture", "// An edited copy"))
    path = write(tmp_path, {
        "bare": {"THREADS": 64},
        "fields": {"genes": {"UNROLL": 2}, "edits": [["float acc[2];", "float acc[2] = {};"]]},
        "null template": {"genes": {"SMEM_FLOATS": 1024}, "template": None},
        "other": {"template": str(SMALL), "genes": {"BLOCK_H": 32}},
        "copy": {"template": str(copy), "genes": {"THREADS": 256}},
    })
    got = variants.load_variants(path, TINY)
    assert list(got) == ["bare", "fields", "null template", "other", "copy"]
    tiny = TINY.load_space().default_params()

    bare = got["bare"]
    assert bare.params == {**tiny, "THREADS": 64} and bare.template is TINY
    assert bare.edits == () and bare.template_file is None and bare.where == str(path)
    assert bare.render() == TINY.render(bare.params)

    fields = got["fields"]
    assert fields.params == {**tiny, "UNROLL": 2} and fields.template is TINY
    assert fields.edits == (("float acc[2];", "float acc[2] = {};"),)
    assert fields.render() == TINY.render(fields.params).replace("float acc[2];", "float acc[2] = {};")
    assert "float acc[2] = {};" in fields.render()

    assert got["null template"].template is TINY and got["null template"].template_file is None
    assert got["null template"].params == {**tiny, "SMEM_FLOATS": 1024}

    other = got["other"]  # its own space and language, as a template in the same folder
    assert other.template_file == SMALL and other.template.language == "triton"
    assert other.template.space_path == (FIXTURES.parent / "genomes" / "small.toml").resolve()
    assert other.params == {**load_template(SMALL).load_space().default_params(), "BLOCK_H": 32}

    edited = got["copy"]  # the space its front matter names, read from the script template's folder
    assert edited.template_file == copy and edited.template.path == copy
    assert edited.template.space_path == TINY.space_path
    assert edited.params == {**tiny, "THREADS": 256}
    assert "// An edited copy" in edited.render() and edited.render() != TINY.render(edited.params)


def test_forced_genes_are_set_over_every_variant_before_the_check(variants, tmp_path):
    path = write(tmp_path, {"a": {"THREADS": 64}, "b": {"genes": {"THREADS": 128, "UNROLL": 8}}})
    got = variants.load_variants(path, TINY, force={"THREADS": 256})
    assert got["a"].params["THREADS"] == 256 and got["b"].params["THREADS"] == 256 and got["b"].params["UNROLL"] == 8


def test_a_built_in_table_is_read_like_a_file(variants):
    got = variants.parse_variants({"x": {"UNROLL": 16}}, TINY, where="the built-in variants")
    assert got["x"].params["UNROLL"] == 16 and got["x"].where == "the built-in variants"


def test_a_script_of_one_language_refuses_a_template_of_another(variants, tmp_path):
    path = write(tmp_path, {"triton": {"template": str(SMALL)}})
    with pytest.raises(UserError, match=r"variant 'triton': field 'template': .* is a triton template; "
                                        r"this script runs cuda ones"):
        variants.load_variants(path, TINY, language="cuda")


@pytest.mark.parametrize("data, message", [
    ("{", r"malformed JSON"),
    ([{"genes": {}}], r"a variants file is a JSON object mapping names to variants, not a list"),
    ({"v": 3}, r"variant 'v': must be a JSON object"),
    ({"v": {"genes": {}, "edit": []}}, r"variant 'v': unknown field\(s\) \['edit'\]"),
    ({"v": {"genes": [["THREADS", 64]]}}, r"variant 'v': field 'genes' must be an object"),
    ({"v": {"edits": "float"}}, r"variant 'v': field 'edits' must be a list of \[old, new\] pairs"),
    ({"v": {"edits": [["a", "b"], ["a", "b", "c"]]}}, r"variant 'v': field 'edits'\[1\] must be a pair"),
    ({"v": {"edits": [["", "b"]]}}, r"variant 'v': field 'edits'\[0\]: the old text is empty"),
    ({"v": {"template": 3}}, r"variant 'v': field 'template' must be a path"),
    ({"v": {"template": "nowhere/missing.cu.j2"}}, r"variant 'v': field 'template': nowhere/missing.cu.j2: unreadable"),
    ({"v": {"THREADS": 96}}, r"variant 'v': field 'genes': not a genome of tiny_cuda.toml: gene THREADS=96"),
    ({"v": {"genes": {"NO_SUCH_GENE": 1}}}, r"variant 'v': field 'genes': .*unknown genes \['NO_SUCH_GENE'\]"),
], ids=["json", "list", "not-object", "unknown-field", "genes", "edits", "edit-pair", "empty-old", "template-type",
        "template-missing", "gene-value", "unknown-gene"])
def test_a_malformed_file_or_variant_is_refused_naming_the_file_and_field(variants, tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(UserError, match=message) as refused:
        variants.load_variants(path, TINY)
    assert str(refused.value).startswith(f"{path}: ")


def test_an_edit_whose_old_text_is_not_there_once_is_refused_when_rendered(variants, tmp_path):
    path = write(tmp_path, {"v": {"edits": [["float acc[4];", "float acc[4] = {};"], ["no such text", ""]]}})
    variant = variants.load_variants(path, TINY)["v"]
    refusal = re.escape(f"{path}: variant 'v': field 'edits'[1]: its old text occurs 0 times")
    with pytest.raises(UserError, match="^" + refusal):
        variant.render()


@pytest.mark.parametrize("schedule, extra", [("pingpong", {}), ("scorer", {"Q_LOAD": "tma"})])
def test_the_trace_script_refuses_a_schedule_other_than_lockstep_before_any_gpu_work(tmp_path, schedule, extra):
    # its probes sit in the lockstep consumers' code; on this machine without a GPU the refusal
    # must come before the script first touches CUDA
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"lockstep": {"MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "TOPK_TILE": 32,
                                             "GATHER_LANES": 8},
                                "other": {"MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "TOPK_TILE": 32,
                                          "GATHER_LANES": 8, "SCHEDULE": schedule, **extra}}))
    done = subprocess.run([sys.executable, "scripts/device/trace_seesaw.py", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert f"{path}: variant 'other': SCHEDULE = {schedule}" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_the_timeline_script_refuses_a_lockstep_variant_before_any_gpu_work(tmp_path):
    # its stamps sit in the scorer's code and the separate combine kernel; the refusal names the
    # file and the variant and comes before the script first touches CUDA (none on this machine)
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps({"scorer": {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "STAGES": 2,
                                           "Q_LOAD": "tma", "TOPK_TILE": 32, "GATHER_LANES": 8},
                                "lock": {"MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "TOPK_TILE": 32,
                                         "GATHER_LANES": 8}}))
    done = subprocess.run([sys.executable, "scripts/device/trace_timeline.py", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert f"{path}: variant 'lock': SCHEDULE = lockstep" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
