"""`python -m engine`: bad input ends in one line on stderr and exit status 2, never a traceback.

Every case here fails before a worker is started; each check that a run folder was asked for
also checks that nothing was written there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from engine.run_folder import open_run
from engine.template import load_template
from tests.cli_in_process import run_cli, run_cli_process
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
REAL_TEMPLATE = "templates/sparse_mla.triton.j2"
REAL_SPACE = REPO / "genomes" / "sparse_mla_triton.toml"

FRONT = """\
{{#- kernel-genome
problem = "sparse_mla_decode"
language = "triton"
entry = "sparse_mla_decode"
space = "{space}"
-#}}
"""

TINY_SPACE = """\
[space]
name = "tiny"

[genes.BLOCK]
type = "pow2"
min = 16
max = 64
default = 32
"""


def assert_user_error(proc: subprocess.CompletedProcess, *causes: str) -> str:
    """Exit 2, exactly one stderr line 'engine: error: ...' naming every cause; returns it."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("engine: error: "), line
    for cause in causes:
        assert cause in line, (cause, line)
    assert proc.stdout == ""
    return line


def write_template(tmp_path: Path, body: str, space_text: str = TINY_SPACE,
                   space_name: str = "tiny.toml") -> Path:
    (tmp_path / space_name).write_text(space_text)
    path = tmp_path / "t.triton.j2"
    path.write_text(FRONT.format(space=space_name) + body)
    return path


def assert_no_run_folder(out: Path) -> None:
    assert not out.exists(), sorted(p.name for p in out.iterdir())


# -- the in-process runner ---------------------------------------------------------------------

def _malformed_space_file(tmp_path: Path) -> tuple[list, Path]:
    template = write_template(tmp_path, "X = {{ BLOCK }}\n", space_text='[space]\nname = "tiny\n[genes.BLOCK]\n',
                              space_name="broken.toml")
    return ["eval", template], REPO


@pytest.mark.parametrize("case", [
    lambda tmp_path: (["--help"], REPO),
    lambda tmp_path: (["evolve", "--budget", "abc", REAL_TEMPLATE], REPO),
    lambda tmp_path: (["evolve", "templates/no_such.triton.j2", "--out", tmp_path / "run"], REPO),
    lambda tmp_path: (["eval", REAL_TEMPLATE, "--genome", '{"TOPK_TILE": }'], REPO),
    _malformed_space_file,
    lambda tmp_path: (["evolve", REPO / REAL_TEMPLATE, "--objectives", "score,nope", "--budget", "1"], tmp_path),
    lambda tmp_path: (["show", TRITON_RUN.relative_to(REPO), "--top", "1"], REPO),
], ids=["help", "usage-error", "missing-template", "bad-genome-json", "bad-space-file", "cwd", "show"])
def test_in_process_cli_answers_as_the_real_command(tmp_path, case):
    # the real `python -m engine` also meets what in-process runs cannot: import-time faults,
    # warnings and tracebacks printed by the interpreter
    args, cwd = case(tmp_path)
    real = run_cli_process(*args, cwd=cwd)
    here = run_cli(*args, cwd=cwd)
    assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr)


# -- help -------------------------------------------------------------------------------------

def test_help_exits_zero_and_lists_each_command_with_its_purpose():
    proc = run_cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    # join argparse's continuation lines onto the command they belong to
    entries: dict[str, str] = {}
    current = None
    for line in proc.stdout.splitlines():
        m = re.match(r"^    (evolve|eval|show)\s+(\S.*)$", line)
        if m:
            current = m.group(1)
            entries[current] = m.group(2).strip()
        elif current and re.match(r"^\s{8,}\S", line):
            entries[current] += " " + line.strip()
        else:
            current = None
    assert set(entries) == {"evolve", "eval", "show"}, proc.stdout
    assert "Parquet" in entries["evolve"]
    assert "one genome" in entries["eval"]
    assert "run folder" in entries["show"]
    for purpose in entries.values():
        assert len(purpose) > 20 and "\n" not in purpose


def test_no_command_is_a_one_line_usage_error():
    proc = run_cli()
    assert_user_error(proc, "COMMAND")


# -- templates and spaces ---------------------------------------------------------------------

def test_evolve_unknown_template_path(tmp_path):
    out = tmp_path / "run"
    proc = run_cli("evolve", "templates/no_such.triton.j2", "--out", out)
    assert_user_error(proc, "templates/no_such.triton.j2", "template not found")
    assert_no_run_folder(out)


def test_evolve_template_with_syntax_error_names_file_and_line(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK }}\nY = {% if BLOCK %}\n")
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out)
    line = assert_user_error(proc, str(template), "syntax error")
    assert re.search(re.escape(str(template)) + r":\d+:", line), line
    assert_no_run_folder(out)


def test_evolve_template_whose_interpreter_flag_is_not_a_boolean_names_the_field(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    template.write_text(template.read_text().replace('space = "tiny.toml"', 'space = "tiny.toml"\ninterpreter = "no"'))
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out)
    assert_user_error(proc, str(template), "interpreter", "'no'")
    assert_no_run_folder(out)


@pytest.mark.parametrize("line", ["interpeter = false", 'build_variable = ["SPLITS"]'])
def test_a_misspelt_front_matter_key_is_named_not_dropped(tmp_path, line):
    # `interpeter = false` was read as no key at all: the template then ran under the interpreter
    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    template.write_text(template.read_text().replace('space = "tiny.toml"', f'space = "tiny.toml"\n{line}'))
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out)
    assert_user_error(proc, str(template), f"unknown keys [{line.split()[0]!r}]", "'interpreter'")
    assert_no_run_folder(out)


@pytest.mark.parametrize("tag, word", [('{% extends "base.j2" %}', "extends"), ('{% include "part.j2" %}', "include"),
                                       ('{% import "macros.j2" as m %}', "import")])
def test_a_template_reading_another_file_is_refused_with_its_line(tmp_path, tag, word):
    # was a render_error of every genome, "no loader for this environment specified"
    template = write_template(tmp_path, f"X = {{{{ BLOCK }}}}\n{tag}\n")
    (tmp_path / "base.j2").write_text("X = {{ BLOCK }}\n")
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out, "--budget", "1")
    assert_user_error(proc, f"{template}:8:", f"{{% {word} %}}", "one file")
    assert_no_run_folder(out)


def test_eval_template_with_syntax_error(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK ) }}\n")
    proc = run_cli("eval", template)
    assert_user_error(proc, f"{template}:7:", "syntax error")


def test_evolve_template_reading_an_undefined_variable_names_it(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK }}\nY = {{ NOT_A_GENE }}\n")
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out)
    assert_user_error(proc, str(template), "NOT_A_GENE")
    assert_no_run_folder(out)


@pytest.mark.parametrize("field, value, words", [
    ("problem", '"nope"', ["problem 'nope' is not a known problem", "sparse_mla_decode"]),
    ("problem_args", '{ kvformat = "BLOCK" }', ["problem_args names ['kvformat']", "kv_format"]),
])
@pytest.mark.parametrize("command", ["evolve", "eval"])
def test_a_template_naming_a_problem_the_evaluators_lack_is_refused_before_any_genome(tmp_path, field, value,
                                                                                      words, command):
    # Otherwise each genome (the defaults too) became a row of invalid_genome and evolve spent
    # its whole budget on them, exiting 0
    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    text = template.read_text().replace('problem = "sparse_mla_decode"\n', "")  # set below, if the field
    template.write_text(text.replace('space = "tiny.toml"', f'space = "tiny.toml"\n{field} = {value}'
                                     + ('' if field == "problem" else '\nproblem = "sparse_mla_decode"')))
    out = tmp_path / "run"
    proc = run_cli(command, template, *(["--out", out, "--budget", "2"] if command == "evolve" else []))
    assert_user_error(proc, str(template), *words)
    assert_no_run_folder(out)


def test_a_triton_template_whose_entry_its_source_never_defines_is_refused(tmp_path):
    shutil.copy(REAL_SPACE, tmp_path / "space.toml")
    text = (REPO / REAL_TEMPLATE).read_text()
    text = re.sub(r'space = "[^"]*"', 'space = "space.toml"', text, count=1)
    template = tmp_path / "t.triton.j2"
    template.write_text(text.replace('entry = "sparse_mla_decode"', 'entry = "nope_fn"', 1))
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--budget", "2", "--out", out)
    assert_user_error(proc, str(template), "entry 'nope_fn' is not a top-level function")
    assert_no_run_folder(out)


@pytest.mark.parametrize("params", ["q, kv_cache, indices, out, lse", "q, kv_cache, indices, sm_scale, out, lse, extra",
                                    "q, kv_cache, indices, sm_scale, out, lse, *, stream"])
def test_a_triton_entry_that_cannot_take_the_problems_arguments_is_refused(tmp_path, params):
    # was a runtime_error of every genome at its first call ("takes 5 positional arguments but 6 were given")
    template = write_template(tmp_path, f"X = {{{{ BLOCK }}}}\ndef sparse_mla_decode({params}):\n    pass\n")
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--budget", "2", "--out", out)
    assert_user_error(proc, str(template), f"entry sparse_mla_decode({params}) cannot be called as "
                      "sparse_mla_decode(q, kv_cache, indices, sm_scale, out, lse)")
    assert_no_run_folder(out)


@pytest.mark.parametrize("params", ["q, kv, idx, scale, o, l", "*args", "q, kv, idx, scale, o, l, extra=None",
                                    "q, kv, idx, scale, o, l, *, stream=None"])
def test_a_triton_entry_that_takes_the_problems_arguments_under_other_names_is_accepted(tmp_path, params):
    template = load_template(write_template(tmp_path, f"X = {{{{ BLOCK }}}}\ndef sparse_mla_decode({params}):\n    pass\n"))
    template.check_problem(template.load_space())


@pytest.mark.parametrize("edit, words", [
    (('"split_kernel": "gather_rows"', '"split_kernel": "gather_row"'), ["names ['gather_row']", "['gather_rows']"]),
    (('extern "C" __global__', "__global__"), ["names ['gather_rows']", 'not extern "C" __global__', "those are []"]),
    (("// kernel-genome-launch:", "// launch:"), ["no '// kernel-genome-launch: {...}' line"]),
    (('"smem_bytes": 0}', '"smem_bytes": 0,}'), ["malformed kernel-genome-launch line"]),
])
@pytest.mark.parametrize("command", ["compile", "eval"])
def test_a_cuda_template_whose_launch_line_names_no_kernel_of_its_source_is_refused(tmp_path, edit, words, command):
    # `compile` said ok, and on a GPU every genome failed: no launch line (compile_error), or a
    # kernel the cubin lacks (a misspelt name, or a C++ one, mangled without extern "C")
    space = REPO / "tests" / "fixtures" / "genomes" / "tiny_cuda.toml"
    text = (REPO / "tests" / "fixtures" / "templates" / "tiny.cu.j2").read_text()
    assert edit[0] in text
    template = tmp_path / "t.cu.j2"
    template.write_text(text.replace('"../genomes/tiny_cuda.toml"', f'"{space}"').replace(*edit))
    proc = run_cli(command, template, *(["--cache", tmp_path / "cache"] if command == "compile" else []))
    assert_user_error(proc, str(template), *words)
    assert not (tmp_path / "cache").exists()  # refused before nvcc


def test_eval_template_with_malformed_space_file_names_the_space_file(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK }}\n",
                              space_text='[space]\nname = "tiny\n[genes.BLOCK]\n', space_name="broken.toml")
    proc = run_cli("eval", template)
    assert_user_error(proc, "broken.toml", "malformed TOML")


def test_evolve_template_with_invalid_space_names_the_gene_field(tmp_path):
    bad = TINY_SPACE.replace("max = 64", "max = 100")
    template = write_template(tmp_path, "X = {{ BLOCK }}\n", space_text=bad, space_name="bad.toml")
    out = tmp_path / "run"
    proc = run_cli("evolve", template, "--out", out)
    assert_user_error(proc, "bad.toml", "genes.BLOCK")
    assert_no_run_folder(out)


def test_eval_template_whose_space_file_is_missing(tmp_path):
    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    template.write_text(template.read_text().replace('space = "tiny.toml"', 'space = "gone.toml"'))
    proc = run_cli("eval", template)
    assert_user_error(proc, "gone.toml", "not found")


def test_a_space_path_written_relative_to_the_shell_is_named_with_the_template_and_the_rule(tmp_path):
    # was "/tmp/.../own/tiny.toml: space file not found", which named neither the template nor the field
    (tmp_path / "own").mkdir()
    template = write_template(tmp_path / "own", "X = {{ BLOCK }}\n")
    template.write_text(template.read_text().replace('space = "tiny.toml"', 'space = "own/tiny.toml"'))
    proc = run_cli("eval", template, cwd=tmp_path)
    assert_user_error(proc, f"{template}: front matter space: {tmp_path / 'own' / 'own' / 'tiny.toml'} not found",
                      "relative to the template's folder")


# -- --genome ---------------------------------------------------------------------------------

def test_eval_genome_value_outside_the_space_names_the_gene():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", '{"TOPK_TILE": 3}')
    assert_user_error(proc, "--genome", "TOPK_TILE")


def test_eval_genome_violating_a_constraint_names_the_constraint():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", '{"COMBINE": "fused", "NUM_SPLITS": 1}')
    assert_user_error(proc, "--genome", "COMBINE == 'separate' or NUM_SPLITS != 1")


def test_eval_genome_with_bool_for_an_int_gene_is_rejected():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", '{"NUM_STAGES": true}')
    assert_user_error(proc, "NUM_STAGES")


def test_eval_genome_with_unknown_gene_names_it():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", '{"NOPE": 1}')
    assert_user_error(proc, "--genome", "NOPE", "unknown")


def test_eval_genome_neither_json_nor_a_file():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", "not json and not a file")
    assert_user_error(proc, "--genome", "not json and not a file")


def test_eval_genome_with_malformed_json_object():
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", '{"TOPK_TILE": }')
    assert_user_error(proc, "--genome", "not valid JSON")


def test_eval_genome_file_holding_a_json_array(tmp_path):
    genome_file = tmp_path / "g.json"
    genome_file.write_text("[1, 2]")
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", genome_file)
    assert_user_error(proc, f"--genome {genome_file}", "JSON object")


def test_eval_genome_file_with_malformed_json_names_the_file_and_the_line(tmp_path):
    genome_file = tmp_path / "g.json"
    genome_file.write_text('{"TOPK_TILE": 32,\n "STAGES": }\n')
    line = assert_user_error(run_cli("eval", REAL_TEMPLATE, "--genome", genome_file),
                             f"--genome {genome_file}", "not valid JSON", "line 2")
    assert line.count("--genome") == 1, line


def test_eval_genome_file_with_value_outside_the_space(tmp_path):
    genome_file = tmp_path / "g.json"
    genome_file.write_text(json.dumps({"HEADS_PER_PROGRAM": 128}))
    proc = run_cli("eval", REAL_TEMPLATE, "--genome", genome_file)
    assert_user_error(proc, f"--genome {genome_file}", "HEADS_PER_PROGRAM")


# -- evolve arguments and run folders ---------------------------------------------------------

def test_evolve_resume_without_out():
    proc = run_cli("evolve", REAL_TEMPLATE, "--resume")
    assert_user_error(proc, "--resume", "--out")


def test_evolve_resume_on_empty_folder_without_run_json(tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    proc = run_cli("evolve", REAL_TEMPLATE, "--resume", "--out", out)
    assert_user_error(proc, str(out), "run.json")
    assert list(out.iterdir()) == []


def test_evolve_resume_on_malformed_run_json(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text("{not json")
    proc = run_cli("evolve", REAL_TEMPLATE, "--resume", "--out", out)
    assert_user_error(proc, "run.json", "malformed")
    assert (out / "run.json").read_text() == "{not json"


def test_a_run_json_that_is_not_utf8_is_one_line(tmp_path):
    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(REPO / REAL_TEMPLATE), "random", 0, resume=False)
    with (run_dir / "run.json").open("ab") as f:
        f.write(b"\xff\xfe")
    for argv in (["show", run_dir], ["evolve", REAL_TEMPLATE, "--resume", "--out", run_dir]):
        assert_user_error(run_cli(*argv), "run.json", "malformed", "utf-8")


@pytest.mark.parametrize("fixed, words", [({"NUM_WARPS": 3}, "NUM_WARPS: 3 is not one of"),
                                          ({"NO_SUCH_GENE": 1}, "unknown gene 'NO_SUCH_GENE'")])
def test_a_run_json_whose_slice_the_space_lacks_is_one_line(tmp_path, fixed, words):
    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(REPO / REAL_TEMPLATE), "random", 0, resume=False)
    config = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**config, "fixed": fixed}))
    proc = run_cli("evolve", REAL_TEMPLATE, "--resume", "--out", run_dir, "--budget", "1")
    assert_user_error(proc, str(run_dir / "run.json"), "fixed", words)


def test_evolve_budget_zero():
    proc = run_cli("evolve", REAL_TEMPLATE, "--budget", "0")
    assert_user_error(proc, "--budget", "at least 1")


@pytest.mark.parametrize("limit", ["0", "-5m", "2x", "h", "1h30m"])
def test_evolve_time_limit_that_is_no_positive_duration_is_named(limit, tmp_path):
    out = tmp_path / "run"
    proc = run_cli("evolve", REAL_TEMPLATE, f"--time-limit={limit}", "--out", out)
    assert_user_error(proc, "--time-limit", repr(limit), "90m")
    assert_no_run_folder(out)


def test_evolve_unknown_strategy():
    proc = run_cli("evolve", REAL_TEMPLATE, "--strategy", "annealing")
    assert_user_error(proc, "--strategy", "annealing")


def test_evolve_into_non_empty_folder_without_resume(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    proc = run_cli("evolve", REAL_TEMPLATE, "--out", out)
    assert_user_error(proc, str(out), "--resume")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "mine"


def test_show_on_folder_without_run_json(tmp_path):
    proc = run_cli("show", tmp_path)
    assert_user_error(proc, str(tmp_path), "run.json")


def test_show_on_missing_folder(tmp_path):
    proc = run_cli("show", tmp_path / "absent")
    assert_user_error(proc, "absent", "run.json")


@pytest.mark.parametrize("command", ["show", "export"])
def test_a_run_json_field_of_the_wrong_type_is_named(tmp_path, command):
    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(REPO / REAL_TEMPLATE), "random", 0, resume=False)
    config = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**config, "template": 5, "e2e": "yes"}))
    proc = run_cli(command, run_dir)
    assert_user_error(proc, str(run_dir / "run.json"), "template 5 (not a string)", "e2e 'yes' (not true or false)")


def test_a_run_whose_template_file_no_longer_loads_is_read_from_its_copy(tmp_path):
    """A half-made edit of the working-tree template (no front matter yet) is a changed template:
    export, audit and compare-strategies read the run's copy instead of failing on the edit."""
    from engine.run_folder import read_config, template_of_run

    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    run_dir = tmp_path / "run"
    made = load_template(template)
    open_run(run_dir, made, "random", 0, resume=False)
    template.write_text("half an edit {{ BLOCK\n")
    assert template_of_run(run_dir, read_config(run_dir)).text == made.text


def test_a_damaged_copy_of_a_runs_template_is_named_as_the_copy(tmp_path):
    from engine.errors import UserError
    from engine.run_folder import read_config, template_of_run

    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(template), "random", 0, resume=False)
    template.write_text(template.read_text() + "# edited since\n")
    snap = run_dir / "snapshot"
    good = (snap / "template.j2").read_text()
    (snap / "template.j2").write_text(good + "{% if BLOCK %}\n")
    with pytest.raises(UserError, match=re.escape(str(snap / "template.j2")) + r":\d+: template syntax error"):
        template_of_run(run_dir, read_config(run_dir))
    (snap / "template.j2").write_text(good)
    (snap / "space.toml").write_text((snap / "space.toml").read_text() + "# edited\n")
    with pytest.raises(UserError, match=re.escape(str(snap / "space.toml")) + ".*does not match the hash"):
        template_of_run(run_dir, read_config(run_dir))


def test_evolve_resume_on_a_run_of_another_template_leaves_the_folder_untouched(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "genomes").mkdir()
    other = tmp_path / "templates" / "x.triton.j2"
    # A byte-identical copy would be the same template (identity is the content hash), so the
    # other template differs by one comment line.
    other.write_text((REPO / REAL_TEMPLATE).read_text() + "# a variant of the kernel\n")
    shutil.copy(REAL_SPACE, tmp_path / "genomes" / "sparse_mla_triton.toml")
    template_a = load_template(other)
    assert template_a.content_hash != load_template(REPO / REAL_TEMPLATE).content_hash

    run_dir = tmp_path / "run-a"
    config = open_run(run_dir, template_a, "ga", 0, resume=False)
    assert config.template_hash == template_a.content_hash
    (run_dir / "part-keep.txt").write_text("rows of the earlier run\n")
    before = {str(p.relative_to(run_dir)): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    assert set(before) == {"run.json", "part-keep.txt", "snapshot/template.j2", "snapshot/space.toml"}

    proc = run_cli("evolve", REAL_TEMPLATE, "--resume", "--out", run_dir)
    assert_user_error(proc, str(run_dir), "template", template_a.content_hash)

    after = {str(p.relative_to(run_dir)): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    assert after == before


def test_evolve_resume_after_the_space_file_changed_leaves_the_folder_untouched(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "genomes").mkdir()
    template_path = tmp_path / "templates" / "x.triton.j2"
    shutil.copy(REPO / REAL_TEMPLATE, template_path)
    space_path = tmp_path / "genomes" / "sparse_mla_triton.toml"
    shutil.copy(REAL_SPACE, space_path)
    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(template_path), "ga", 0, resume=False)
    before = (run_dir / "run.json").read_bytes()

    space_path.write_text(space_path.read_text() + "# edited after the run began\n")
    proc = run_cli("evolve", template_path, "--resume", "--out", run_dir)
    assert_user_error(proc, "space file", "changed")
    assert (run_dir / "run.json").read_bytes() == before
    assert sorted(p.name for p in run_dir.iterdir()) == ["run.json", "snapshot"]


@pytest.mark.parametrize("argv", [
    ["evolve", "--budget", "abc", REAL_TEMPLATE],
    ["eval", REAL_TEMPLATE, "--device", "tpu"],
    ["show"],
    ["frobnicate"],
    ["evolve", REAL_TEMPLATE, "--gpus", "0,0"],
    ["evolve", REAL_TEMPLATE, "--gpus", "first"],
])
def test_argument_errors_are_one_line_without_usage_dump(argv):
    proc = run_cli(*argv)
    assert_user_error(proc)
    assert "usage:" not in proc.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="asks for a GPU this machine must not have")
@pytest.mark.parametrize("ask, words", [(["--gpus", "0"], "--gpus 0"), (["--device", "cuda"], "--device cuda")])
def test_evolve_on_a_gpu_this_machine_lacks_names_the_option_and_writes_nothing(tmp_path, ask, words):
    proc = run_cli("evolve", REAL_TEMPLATE, *ask, "--budget", "1", "--out", tmp_path / "run")
    assert_user_error(proc, words, "no CUDA GPU")
    assert_no_run_folder(tmp_path / "run")


def test_evolve_gpus_with_cpu_device_writes_nothing(tmp_path):
    proc = run_cli("evolve", REAL_TEMPLATE, "--gpus", "0,1", "--device", "cpu", "--out", tmp_path / "run")
    assert_user_error(proc, "--gpus", "--device cpu")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("argv, words", [
    (["--objectives", "score,nope"], ["--objectives", "nope"]),
    (["--strategy", "cmaes", "--objectives", "score,small_batch"], ["--strategy cmaes", "one objective"]),
    (["--strategy", "ga", "--storage", "study.journal"], ["--storage", "not to ga"]),
])
def test_evolve_option_errors_leave_no_run_folder_in_the_default_place(tmp_path, argv, words):
    # without --out a run goes to results/ under the working directory: nothing may appear there
    proc = run_cli("evolve", REPO / REAL_TEMPLATE, *argv, "--budget", "1", cwd=tmp_path)
    assert_user_error(proc, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("storage, words", [
    ("bogus://host/db", "NoSuchModuleError"),  # a database kind SQLAlchemy does not know
    ("sqlite:///{tmp}/no/such/folder/study.db", "unable to open database file"),
])
def test_evolve_storage_that_cannot_be_opened_names_it_and_writes_nothing(tmp_path, storage, words):
    storage = storage.format(tmp=tmp_path)
    proc = run_cli("evolve", REAL_TEMPLATE, "--strategy", "tpe", "--storage", storage, "--out", tmp_path / "run")
    assert_user_error(proc, "--storage", repr(storage), words)
    assert_no_run_folder(tmp_path / "run")


@pytest.mark.parametrize("fix, words", [
    ("NUM_WRAPS=8", "unknown gene 'NUM_WRAPS'"),
    ("NUM_WARPS=16", "NUM_WARPS: 16 is not one of"),
    ("NUM_WARPS", "expected GENE=VALUE"),
])
def test_evolve_fix_outside_the_space_names_it_and_writes_nothing(tmp_path, fix, words):
    proc = run_cli("evolve", REAL_TEMPLATE, "--fix", fix, "--out", tmp_path / "run")
    assert_user_error(proc, "--fix", words)
    assert not (tmp_path / "run").exists()


def test_fix_values_are_read_as_the_genes_types():
    # JSON first (false -> a bool gene's False, 8 -> an int), a bare word as a categorical value
    from engine.cli import _fixed_genes

    space = load_template(REPO / REAL_TEMPLATE).load_space()
    fixed = _fixed_genes(space, ["MASK_INVALID_ROWS=false", "PROGRAM_SPLIT=heads", "NUM_WARPS=8"])
    assert fixed == {"MASK_INVALID_ROWS": False, "PROGRAM_SPLIT": "heads", "NUM_WARPS": 8}
    assert fixed["MASK_INVALID_ROWS"] is False and type(fixed["NUM_WARPS"]) is int
    sliced = space.restrict(fixed)
    assert sliced.default_params()["MASK_INVALID_ROWS"] is False
    assert _fixed_genes(space, ["MASK_INVALID_ROWS=False"]) == {"MASK_INVALID_ROWS": False}  # Python's spelling


def test_a_gene_fixed_twice_is_refused_not_the_last_kept(tmp_path):
    proc = run_cli("evolve", REAL_TEMPLATE, "--fix", "NUM_WARPS=4", "--fix", "NUM_WARPS=8", "--out", tmp_path / "run")
    assert_user_error(proc, "--fix NUM_WARPS", "given twice", "'NUM_WARPS=8'")
    assert_no_run_folder(tmp_path / "run")


@pytest.mark.parametrize("objectives, words", [("score,score", "['score'] named twice"),
                                               ("", "name at least one of"), (" , ", "name at least one of")])
def test_objectives_named_twice_or_none_are_refused(tmp_path, objectives, words):
    proc = run_cli("evolve", REAL_TEMPLATE, "--objectives", objectives, "--out", tmp_path / "run")
    assert_user_error(proc, "--objectives", words)
    assert_no_run_folder(tmp_path / "run")


@pytest.mark.parametrize("field", ["space", "entry", "problem"])
def test_a_front_matter_field_of_the_wrong_type_is_named_not_said_missing(tmp_path, field):
    template = write_template(tmp_path, "X = {{ BLOCK }}\n")
    text = template.read_text()
    line = next(x for x in text.splitlines() if x.startswith(f"{field} ="))
    template.write_text(text.replace(line, f"{field} = 5"))
    line = assert_user_error(run_cli("eval", template), str(template), f"{field} = 5: must be a string")
    assert "lacks" not in line


def test_evolve_resume_with_another_slice_leaves_the_folder_untouched(tmp_path):
    template = load_template(REPO / REAL_TEMPLATE)
    run_dir = tmp_path / "run"
    open_run(run_dir, template, "exhaustive", 0, resume=False, fixed={"MASK_INVALID_ROWS": False})
    before = (run_dir / "run.json").read_bytes()
    proc = run_cli("evolve", REAL_TEMPLATE, "--resume", "--out", run_dir, "--fix", "MASK_INVALID_ROWS=true")
    assert_user_error(proc, "--fix MASK_INVALID_ROWS=true", "MASK_INVALID_ROWS=false")
    assert (run_dir / "run.json").read_bytes() == before


def test_a_second_evolve_on_a_run_being_written_is_refused_and_writes_nothing(tmp_path):
    # two writers would number their Parquet parts from the same counter
    import fcntl

    run_dir = tmp_path / "run"
    open_run(run_dir, load_template(REPO / REAL_TEMPLATE), "ga", 0, resume=False)
    fd = os.open(run_dir / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as the first evolve holds it
        before = sorted(p.name for p in run_dir.rglob("*"))
        # a process of its own: the lock is between processes (flock happens to hold within one too)
        proc = run_cli_process("evolve", REAL_TEMPLATE, "--resume", "--out", run_dir, "--device", "cpu")
    finally:
        os.close(fd)
    assert_user_error(proc, str(run_dir), "another engine process is writing this run")
    assert sorted(p.name for p in run_dir.rglob("*")) == before


# -- numbers and paths given on the command line ----------------------------------------------

TRITON_RUN = REPO / "docs" / "runs" / "h200-triton-ga150-20261130"


@pytest.mark.parametrize("argv, words", [
    (["evolve", REAL_TEMPLATE, "--seed", "-1"], ["--seed", "'-1'", "0 to 4294967295"]),
    (["evolve", REAL_TEMPLATE, "--seed", str(2**32)], ["--seed", "0 to 4294967295"]),
    (["evolve", REAL_TEMPLATE, "--budget", "1.5"], ["--budget", "'1.5': a whole number"]),
    (["eval", REAL_TEMPLATE, "--timeout-s", "0"], ["--timeout-s", "a positive number of seconds"]),
    (["evolve", REAL_TEMPLATE, "--timeout-s", "nan"], ["--timeout-s", "'nan'"]),
    (["audit", TRITON_RUN, "--timeout-s", "-5"], ["--timeout-s", "'-5'"]),
    (["export", TRITON_RUN, "--min-gain", "nan"], ["--min-gain", "'nan'"]),
    (["export", TRITON_RUN, "--min-gain", "-0.1"], ["--min-gain", "'-0.1'"]),
])
def test_a_number_out_of_its_range_is_refused_before_anything_runs(tmp_path, argv, words):
    # e.g. a seed numpy refuses once Optuna's sampler is made (after the run folder was), a
    # timeout of 0 that makes every genome a timeout, a NaN gain that ships no winner
    proc = run_cli(*argv, "--out", tmp_path / "out") if argv[0] in ("evolve", "export") else run_cli(*argv)
    assert_user_error(proc, *words)
    assert not (tmp_path / "out").exists()


def test_evolve_into_a_path_that_is_a_file_or_cannot_be_made_names_it(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("mine")
    assert_user_error(run_cli("evolve", REAL_TEMPLATE, "--out", a_file), str(a_file), "not a folder")
    assert a_file.read_text() == "mine"
    under_a_file = a_file / "run"
    assert_user_error(run_cli("evolve", REAL_TEMPLATE, "--out", under_a_file), str(under_a_file),
                      "cannot make the run folder")


def test_export_into_a_folder_that_cannot_be_made_names_it(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("mine")
    proc = run_cli("export", TRITON_RUN, "--out", a_file / "export")
    assert_user_error(proc, "--out", str(a_file / "export"), "cannot write the export")


def test_compile_with_a_cache_folder_that_cannot_be_made_blames_the_folder_not_nvcc(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("mine")
    for cache in (a_file, a_file / "cache"):
        line = assert_user_error(run_cli("compile", "templates/sparse_mla.cu.j2", "--cache", cache),
                                 "--cache", str(cache), "cannot make this folder")
        assert "nvcc" not in line


@pytest.mark.parametrize("png", ["plot.xyz", "plot"])
def test_compare_strategies_plot_not_named_png_is_refused_before_the_replay(tmp_path, png):
    # matplotlib would pick another format by the suffix, or save plot.png while `plot` was said
    proc = run_cli("compare-strategies", TRITON_RUN, "--png", tmp_path / png)
    assert_user_error(proc, "--png", str(tmp_path / png), ".png")
    assert sorted(tmp_path.iterdir()) == []


def test_a_genome_file_that_is_not_text_names_the_file(tmp_path):
    genome = tmp_path / "g.json"
    genome.write_bytes(b"\xff\xfe{")
    assert_user_error(run_cli("eval", REAL_TEMPLATE, "--genome", genome), f"--genome {genome}", "unreadable as text")


def test_an_empty_genome_argument_is_refused_not_read_as_the_defaults():
    assert_user_error(run_cli("eval", REAL_TEMPLATE, "--genome", ""), "--genome", "neither a JSON object")


def test_a_space_whose_defaults_break_its_constraint_names_the_space_file(tmp_path):
    space = TINY_SPACE + '\n[[constraints]]\nexpr = "BLOCK > 32"\nwhy = "big blocks only"\n'
    template = write_template(tmp_path, "X = {{ BLOCK }}\ndef sparse_mla_decode(q, kv_cache, indices, sm_scale, out, lse):\n"
                              "    pass\n", space_text=space)
    line = assert_user_error(run_cli("eval", template), str(tmp_path / "tiny.toml"), "default genome",
                             "big blocks only")
    assert "--genome" not in line


@NEEDS_NVCC
def test_a_gene_the_template_never_reads_is_noted(tmp_path):
    # allowed, since a gene may be declared before the template reads it, but a search would time
    # the same kernel once a value
    fixtures = REPO / "tests" / "fixtures"
    space = tmp_path / "genomes" / "tiny_cuda.toml"
    space.parent.mkdir()
    space.write_text((fixtures / "genomes" / "tiny_cuda.toml").read_text()
                     + '\n[genes.UNUSED_KNOB]\ntype = "bool"\ndefault = false\n')
    template = tmp_path / "templates" / "tiny.cu.j2"
    template.parent.mkdir()
    shutil.copy(fixtures / "templates" / "tiny.cu.j2", template)
    proc = run_cli("compile", template, "--cache", tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    assert f"engine: note: {template} reads no gene ['UNUSED_KNOB'] of tiny_cuda.toml" in proc.stderr
    plain = run_cli("compile", fixtures / "templates" / "tiny.cu.j2", "--cache", tmp_path / "cache")
    assert plain.returncode == 0 and "note" not in plain.stderr, plain.stderr
