"""Code regions: Jinja blocks of a template that a genome may rewrite (engine/template.py,
engine/genome.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.genome import Genome, InvalidGenome
from engine.isolated_render import render_in_child
from engine.template import RenderError, load_template, render_with_code, template_from_text

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "tests" / "fixtures" / "templates" / "sparse_mla_small.triton.j2"
SOFTMAX = ("        m_new = tl.maximum", "        m_i = m_new\n")


def regions_template(folder: Path) -> Path:
    """The small fixture kernel with its online-softmax update marked as a code region."""
    text = SMALL.read_text().replace('"../genomes/small.toml"', f'"{SMALL.parent.parent / "genomes" / "small.toml"}"')
    text = text.replace(SOFTMAX[0], "{% block online_softmax %}" + SOFTMAX[0], 1)
    text = text.replace(SOFTMAX[1], SOFTMAX[1] + "{% endblock %}", 1)
    path = folder / "sparse_mla_regions.triton.j2"
    path.write_text(text)
    return path


def test_a_block_is_a_region_that_renders_as_written_until_a_genome_rewrites_it(tmp_path):
    template = load_template(regions_template(tmp_path))
    body = template.regions["online_softmax"]
    assert body.startswith(SOFTMAX[0]) and body.endswith(SOFTMAX[1]) and list(template.regions) == ["online_softmax"]
    params = template.load_space().default_params()
    own = template.render(params)
    assert own == load_template(SMALL).render(params)  # the block tags leave the kernel as it was
    new = body.replace("alpha = tl.exp2(m_i - m_safe)", "alpha = tl.exp2(m_i - m_safe)  # {{ BLOCK_K }} rows")
    rewritten = template.render(params, {"online_softmax": new})
    assert rewritten == own.replace("alpha = tl.exp2(m_i - m_safe)", "alpha = tl.exp2(m_i - m_safe)  # 128 rows")


def test_rewritten_text_renders_in_the_sandbox_and_its_faults_are_render_errors(tmp_path):
    template = load_template(regions_template(tmp_path))
    params = template.load_space().default_params()
    with pytest.raises(RenderError, match="refused by the sandbox: access to attribute '__class__'"):
        template.render(params, {"online_softmax": "{{ ''.__class__.__mro__ }}"})
    with pytest.raises(RenderError, match="syntax error at line 1"):
        template.render(params, {"online_softmax": "{% if %}"})
    with pytest.raises(RenderError, match="'NOT_A_GENE' is undefined"):
        template.render(params, {"online_softmax": "{{ NOT_A_GENE }}"})


def test_rewritten_text_that_runs_away_is_stopped_in_its_own_process_and_the_driver_goes_on(tmp_path):
    """An LLM's region that loops for hours, asks for 10 GB or writes 100 MB is the genome's
    RenderError, from a child process with a time and memory limit; the driver lives on and
    renders the next genome."""
    template = load_template(regions_template(tmp_path))
    params = template.load_space().default_params()
    endless = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    start = time.monotonic()
    with pytest.raises(RenderError, match=r"the rewritten code regions: still rendering after 2 s \(stopped"):
        render_in_child(template.text, {"online_softmax": endless}, params, str(template.path), timeout_s=2)
    assert time.monotonic() - start < 20
    with pytest.raises(RenderError, match="the rewritten code regions: the render used more than 2 GiB"):
        template.render(params, {"online_softmax": "{{ 'x' * 10**10 }}"})
    with pytest.raises(RenderError, match=r"the rendered source has 100,0\d\d,\d{3} bytes, over 8 MiB"):
        template.render(params, {"online_softmax": "{% for i in range(100000) %}{{ 'y' * 1000 }}{% endfor %}"})
    body = template.regions["online_softmax"]
    assert template.render(params, {"online_softmax": body + "# next\n"}) == render_with_code(
        template.text, {"online_softmax": body + "# next\n"}, params, str(template.path))


def test_a_genome_rewrites_only_the_regions_its_template_has_and_without_code_keeps_its_id(tmp_path):
    template = load_template(regions_template(tmp_path))
    space = template.load_space()
    params = space.default_params()
    plain = Genome.make(space, params, template.content_hash)
    assert plain.genome_id == Genome.make(space, params, template.content_hash, {}, template.regions).genome_id
    assert plain.code_json == "" and plain.code == {}
    coded = Genome.make(space, params, template.content_hash, {"online_softmax": "pass\n"}, template.regions)
    assert coded.genome_id != plain.genome_id and coded.code == {"online_softmax": "pass\n"}
    with pytest.raises(InvalidGenome, match=r"unknown code regions \['epilogue'\] \(the template's: \['online_softmax'\]\)"):
        Genome.make(space, params, template.content_hash, {"epilogue": "x"}, template.regions)
    with pytest.raises(InvalidGenome, match="code region online_softmax: text must be a string, not int"):
        Genome.make(space, params, template.content_hash, {"online_softmax": 3}, template.regions)
    # what no source file can hold is refused with the place, not met as a traceback at render
    for text, said in [("x = 1  # \ud83d\n", r"lone surrogate \(U\+D83D\) at character 9"),
                       ("x = 1\0\n", "NUL character at character 5")]:
        with pytest.raises(InvalidGenome, match=f"code region online_softmax: text has a {said}"):
            Genome.make(space, params, template.content_hash, {"online_softmax": text}, template.regions)
    paired = Genome.make(space, params, template.content_hash, {"online_softmax": "x = 1  # \U0001f600\n"},
                         template.regions)
    assert "\U0001f600" in paired.code["online_softmax"]  # a whole character outside the BMP is fine


def test_nested_regions_are_refused_when_the_template_loads_naming_the_line(tmp_path):
    text = ('{#- kernel-genome\nproblem = "p"\nlanguage = "triton"\nentry = "e"\nspace = "s.toml"\n-#}\n'
            "{% block outer %}\na\n{% block inner %}b{% endblock %}\n{% endblock %}\n")
    with pytest.raises(UserError, match=r"t.j2:9: code region 'inner' lies inside 'outer'; regions do not nest"):
        template_from_text(Path("t.j2"), text)
