"""Kernel templates: front matter, hole checking, strict rendering (engine/template.py)."""

from __future__ import annotations

import ast
import random
import shutil
import textwrap
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.template import RenderError, Template, load_template, render_text

REPO = Path(__file__).resolve().parents[2]
REAL_TEMPLATE = REPO / "templates" / "sparse_mla.triton.j2"
REAL_SPACE = REPO / "genomes" / "sparse_mla_triton.toml"

SPACE_TOML = """\
[space]
name = "tiny"

[genes.BLOCK]
type = "pow2"
min = 16
max = 64
default = 32

[genes.MODE]
type = "categorical"
choices = ["auto", 1, 2]
default = "auto"

[genes.FAST]
type = "bool"
default = false
"""

FRONT = """\
{#- kernel-genome
problem = "toy"
language = "triton"
entry = "toy_entry"
space = "tiny.toml"
-#}
"""


def write_template(tmp_path: Path, body: str, front: str = FRONT, name: str = "toy.triton.j2") -> Path:
    (tmp_path / "tiny.toml").write_text(SPACE_TOML)
    path = tmp_path / name
    path.write_text(front + textwrap.dedent(body))
    return path


def module_constants(source: str) -> dict[str, object]:
    """Module-level NAME = <literal> assignments of rendered Python source."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


# -- the real template ------------------------------------------------------------------------

def test_real_template_front_matter_fields():
    template = load_template(REAL_TEMPLATE)
    assert isinstance(template, Template)
    assert template.problem == "sparse_mla_decode"
    assert template.language == "triton"
    assert template.entry == "sparse_mla_decode"
    assert template.space_path == REAL_SPACE.resolve()
    assert template.path == REAL_TEMPLATE


def test_real_template_holes_are_all_genes_of_its_space():
    template = load_template(REAL_TEMPLATE)
    space = template.load_space()
    assert space.name == "sparse_mla_triton"
    template.check_holes(space)  # raises on an unfilled hole


def test_real_template_renders_default_genome_to_compilable_python():
    template = load_template(REAL_TEMPLATE)
    space = template.load_space()
    source = template.render(space.default_params())
    compile(source, "sparse_mla_rendered", "exec")
    assert "HEADS_PER_PROGRAM = 64" in source
    assert "TOPK_TILE = 64" in source
    assert 'NUM_SPLITS = "auto"' in source
    assert "PREFETCH_INDICES = True" in source
    assert "FUSED_COMBINE = False" in source
    assert "{{" not in source and "{%" not in source
    assert not source.startswith("{#")  # the front matter is a Jinja comment, not output
    assert 'space = "../genomes' not in source
    assert "def sparse_mla_decode" in source


def test_real_template_renders_each_gene_value_into_the_source():
    template = load_template(REAL_TEMPLATE)
    space = template.load_space()
    rng = random.Random(3)
    for _ in range(25):
        params = space.sample(rng)
        source = template.render(params)
        compile(source, "sparse_mla_rendered", "exec")
        consts = module_constants(source)
        for name in ("HEADS_PER_PROGRAM", "TOPK_TILE", "NUM_SPLITS", "NUM_WARPS", "NUM_STAGES",
                     "PREFETCH_INDICES"):
            assert consts[name] == params[name], name
            assert type(consts[name]) is type(params[name]), name
        assert consts["FUSED_COMBINE"] is (params["COMBINE"] == "fused")


def test_real_template_renders_differently_for_different_genomes():
    template = load_template(REAL_TEMPLATE)
    space = template.load_space()
    default = space.default_params()
    other = {**default, "HEADS_PER_PROGRAM": 32, "NUM_SPLITS": 4}
    a, b = template.render(default), template.render(other)
    assert a != b
    assert "HEADS_PER_PROGRAM = 32" in b and "NUM_SPLITS = 4" in b


def test_real_template_render_without_a_gene_raises_render_error():
    template = load_template(REAL_TEMPLATE)
    params = template.load_space().default_params()
    del params["TOPK_TILE"]
    with pytest.raises(RenderError, match="TOPK_TILE"):
        template.render(params)


# -- check_holes ------------------------------------------------------------------------------

def test_check_holes_names_a_variable_that_is_not_a_gene(tmp_path):
    path = write_template(tmp_path, """
        BLOCK = {{ BLOCK }}
        MODE = {{ MODE | tojson }}
        EXTRA = {{ NOT_A_GENE }}
    """)
    template = load_template(path)
    space = template.load_space()
    assert space.name == "tiny"
    with pytest.raises(UserError) as info:
        template.check_holes(space)
    message = str(info.value)
    assert "NOT_A_GENE" in message
    assert str(path) in message
    assert "['NOT_A_GENE']" in message  # only the unfilled hole is listed


def test_check_holes_sees_variables_used_only_in_conditions(tmp_path):
    path = write_template(tmp_path, """
        {% if FAST and HIDDEN_FLAG %}x = 1{% endif %}
    """)
    template = load_template(path)
    with pytest.raises(UserError, match="HIDDEN_FLAG"):
        template.check_holes(template.load_space())


def test_check_holes_accepts_locally_set_variables_and_unused_genes(tmp_path):
    path = write_template(tmp_path, """
        {% set doubled = BLOCK * 2 %}
        DOUBLED = {{ doubled }}
    """)
    template = load_template(path)
    template.check_holes(template.load_space())
    assert "DOUBLED = 64" in template.render(template.load_space().default_params())


def test_space_path_is_resolved_relative_to_the_template(tmp_path):
    path = write_template(tmp_path, "X = {{ BLOCK }}\n")
    template = load_template(path)
    assert template.space_path == (tmp_path / "tiny.toml").resolve()
    assert template.load_space().gene("BLOCK").values == (16, 32, 64)


# -- strict rendering -------------------------------------------------------------------------

def test_render_text_with_missing_variable_raises_render_error_naming_it():
    with pytest.raises(RenderError) as info:
        render_text("A = {{ A }}\nB = {{ B }}\n", {"A": 1}, "where.j2")
    assert "where.j2" in str(info.value)
    assert "B" in str(info.value)


def test_render_text_missing_variable_in_condition_is_an_error_not_false():
    with pytest.raises(RenderError):
        render_text("{% if FLAG %}yes{% else %}no{% endif %}", {}, "w")


def test_render_text_missing_variable_in_a_string_filter_is_an_error_not_empty():
    with pytest.raises(RenderError, match="MISSING"):
        render_text("X = {{ MISSING | upper }}", {}, "w")


def test_render_text_missing_variable_in_tojson_filter_is_a_render_error():
    with pytest.raises(RenderError):
        render_text("X = {{ MISSING | tojson }}", {}, "w")


def test_render_text_fills_holes_and_keeps_trailing_newline():
    out = render_text("A = {{ A }}\nM = {{ M | tojson }}\n", {"A": 16, "M": "auto"}, "w")
    assert out == 'A = 16\nM = "auto"\n'


def test_render_text_does_not_html_escape():
    out = render_text("{{ X }}", {"X": "a < b & 'c'"}, "w")
    assert out == "a < b & 'c'"


def test_render_text_missing_attribute_is_a_render_error():
    with pytest.raises(RenderError, match="w.j2"):
        render_text("{{ A.missing_attribute }}", {"A": 1}, "w.j2")


def test_render_text_wraps_other_jinja_errors_with_their_type():
    with pytest.raises(RenderError) as info:
        render_text("{{ A | no_such_filter }}", {"A": 1}, "w.j2")
    assert "w.j2" in str(info.value)
    assert "TemplateAssertionError" in str(info.value)


def test_render_text_turns_python_errors_while_rendering_into_render_error():
    with pytest.raises(RenderError):
        render_text("X = {{ 64 // A }}", {"A": 0}, "w.j2")


# -- load_template errors ---------------------------------------------------------------------

def test_template_with_jinja_syntax_error_names_path_and_line(tmp_path):
    # The front matter takes lines 1-6; the unclosed block is on line 9.
    body = "line7 = 1\nline8 = {{ BLOCK }}\n{% if FAST %}\nline10 = 2\n"
    path = write_template(tmp_path, body)
    assert path.read_text().splitlines()[8] == "{% if FAST %}"
    with pytest.raises(UserError) as info:
        load_template(path)
    message = str(info.value)
    assert str(path) in message
    assert "syntax error" in message
    assert f"{path}:" in message
    line = int(message.split(f"{path}:")[1].split(":")[0])
    assert line >= 9


def test_template_with_bad_expression_names_its_exact_line(tmp_path):
    body = "a = 1\nb = 2\nc = {{ BLOCK ) }}\nd = 4\n"
    path = write_template(tmp_path, body)
    with pytest.raises(UserError) as info:
        load_template(path)
    assert f"{path}:9:" in str(info.value)


def test_template_without_front_matter_is_rejected(tmp_path):
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front="")
    with pytest.raises(UserError) as info:
        load_template(path)
    assert str(path) in str(info.value)
    assert "front matter" in str(info.value)


def test_template_with_front_matter_not_at_the_top_is_rejected(tmp_path):
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front="# a comment first\n" + FRONT)
    with pytest.raises(UserError, match="front matter"):
        load_template(path)


def test_template_with_unknown_language_is_rejected(tmp_path):
    front = FRONT.replace('language = "triton"', 'language = "opencl"')
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front=front)
    with pytest.raises(UserError) as info:
        load_template(path)
    assert str(path) in str(info.value)
    assert "opencl" in str(info.value)


def test_template_with_cuda_language_is_accepted(tmp_path):
    front = FRONT.replace('language = "triton"', 'language = "cuda"')
    path = write_template(tmp_path, "int x = {{ BLOCK }};\n", front=front)
    assert load_template(path).language == "cuda"


def test_template_front_matter_missing_a_field_names_it(tmp_path):
    front = FRONT.replace('entry = "toy_entry"\n', "")
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front=front)
    with pytest.raises(UserError) as info:
        load_template(path)
    assert "entry" in str(info.value)
    assert str(path) in str(info.value)


def test_template_with_malformed_front_matter_toml_is_rejected(tmp_path):
    front = FRONT.replace('problem = "toy"', 'problem = "toy')
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front=front)
    with pytest.raises(UserError) as info:
        load_template(path)
    assert str(path) in str(info.value)
    assert "front matter" in str(info.value)


def test_nonexistent_template_path_is_rejected(tmp_path):
    path = tmp_path / "nope.triton.j2"
    with pytest.raises(UserError) as info:
        load_template(path)
    assert str(path) in str(info.value)
    assert "not found" in str(info.value)


def test_directory_as_template_path_is_rejected(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_template(tmp_path)


def test_template_pointing_at_missing_space_file_fails_on_load_space(tmp_path):
    front = FRONT.replace('space = "tiny.toml"', 'space = "absent.toml"')
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front=front)
    template = load_template(path)  # the space is read lazily
    with pytest.raises(UserError) as info:
        template.load_space()
    assert "absent.toml" in str(info.value)


def test_template_whose_space_is_a_directory_raises_user_error(tmp_path):
    front = FRONT.replace('space = "tiny.toml"', 'space = "."')
    path = write_template(tmp_path, "X = {{ BLOCK }}\n", front=front)
    with pytest.raises(UserError):
        load_template(path).load_space()


# -- content hash -----------------------------------------------------------------------------

def test_content_hash_changes_when_the_text_changes(tmp_path):
    path = write_template(tmp_path, "X = {{ BLOCK }}\n")
    before = load_template(path).content_hash
    assert before == load_template(path).content_hash
    path.write_text(path.read_text() + "# one more line\n")
    after = load_template(path).content_hash
    assert after != before
    assert len(before) == len(after) == 16


def test_content_hash_depends_on_text_not_on_path(tmp_path):
    copy_dir = tmp_path / "templates"
    copy_dir.mkdir()
    (tmp_path / "genomes").mkdir()
    shutil.copy(REAL_TEMPLATE, copy_dir / "x.triton.j2")
    shutil.copy(REAL_SPACE, tmp_path / "genomes" / "sparse_mla_triton.toml")
    real = load_template(REAL_TEMPLATE)
    copy = load_template(copy_dir / "x.triton.j2")
    assert copy.content_hash == real.content_hash
    assert copy.space_path == (tmp_path / "genomes" / "sparse_mla_triton.toml").resolve()
