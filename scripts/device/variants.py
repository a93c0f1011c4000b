"""The variants files of the device scripts (time_cuda_genomes.py, profile_small_batch.py,
trace_seesaw.py), read in one place, with one meaning of each key.

A variants file is a JSON object that maps each variant's name to one of two forms:

* a map of gene changes from the space's defaults: {"MMA": "wgmma", "TOPK_TILE": 32};
* a map of these fields (any of them, and no other key):
    "genes"     gene changes from the space's defaults (absent: none);
    "edits"     [[old, new], ...]: replacements made, in order, in the rendered source; each old
                text must occur exactly once when its turn comes (absent: none);
    "template"  the path, from the working directory (the repository root), of a template text
                to render the genes with instead of the script's own template: another template
                (templates/sparse_mla.gluon.j2, with its own space and language), or an edited
                copy or older text of the script's template (e.g. `git show
                REV:templates/sparse_mla.cu.j2 > old.cu.j2`). The space its front matter names is
                read from the folder of the script's own template (templates/), wherever the
                file lies: a copy kept outside templates/ is rendered with the current space of
                the template it copies (absent, null or "": the script's own template).
  A map with a "genes", "edits" or "template" key is of this second form.

The genes, with any a script forces over them (trace_seesaw.py forces COMBINE = separate), are
checked against the space of the template that renders them before anything runs. A malformed
file or variant is a UserError that names the file, the variant and the field.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from engine.errors import UserError
from engine.template import Template, template_from_text

FIELDS = ("genes", "edits", "template")


@dataclass(frozen=True)
class Variant:
    name: str
    template: Template                      # renders the genes: the script's own, or the file of "template"
    params: dict[str, Any]                  # the space's defaults, then the genes, then the forced genes
    edits: tuple[tuple[str, str], ...] = ()
    template_file: Path | None = None       # the "template" field; None: the script's own template
    where: str = "variants"                 # the file the variant came from, for messages

    def render(self, template: Template | None = None) -> str:
        """The source that ``template`` (default: the variant's own) renders from the params, with
        the edits made."""
        source = (template or self.template).render(self.params)
        for i, (old, new) in enumerate(self.edits):
            n = source.count(old)
            if n != 1:
                raise UserError(f"{self.where}: variant {self.name!r}: field 'edits'[{i}]: its old text occurs "
                                f"{n} times in the source rendered by {(template or self.template).path}, "
                                f"not once: {old[:80]!r}")
            source = source.replace(old, new)
        return source


def load_variants(path: Path | str, template: Template, *, language: str | None = None,
                  force: Mapping[str, Any] | None = None) -> dict[str, Variant]:
    """The variants of the JSON file at ``path``, in its order; ``template`` is the script's own
    template, ``language`` (if given) the only language the script runs, ``force`` genes set over
    every variant's."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"{path}: unreadable variants file: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: malformed JSON: {exc}") from None
    return parse_variants(data, template, where=str(path), language=language, force=force)


def parse_variants(data: Any, template: Template, *, where: str = "variants", language: str | None = None,
                   force: Mapping[str, Any] | None = None) -> dict[str, Variant]:
    """The variants of an already parsed variants file (or of a script's built-in table);
    ``where`` names it in messages."""
    if not isinstance(data, dict):
        raise UserError(f"{where}: a variants file is a JSON object mapping names to variants, "
                        f"not a {type(data).__name__}")
    texts: dict[str, Template] = {}
    return {name: _variant(name, spec, template, where, language, dict(force or {}), texts)
            for name, spec in data.items()}


def _variant(name: str, spec: Any, base: Template, where: str, language: str | None,
             force: dict[str, Any], texts: dict[str, Template]) -> Variant:
    at = f"{where}: variant {name!r}"
    if not isinstance(spec, dict):
        raise UserError(f"{at}: must be a JSON object (gene changes, or {list(FIELDS)}), "
                        f"not {type(spec).__name__}")
    if not any(key in spec for key in FIELDS):  # the first form: the map is the gene changes
        spec = {"genes": spec}
    unknown = sorted(set(spec) - set(FIELDS))
    if unknown:
        raise UserError(f"{at}: unknown field(s) {unknown}; a variant with {list(FIELDS)} has no other key")
    genes = spec.get("genes", {})
    if not isinstance(genes, dict):
        raise UserError(f"{at}: field 'genes' must be an object of gene changes, not {type(genes).__name__}")
    edits = spec.get("edits", [])
    if not isinstance(edits, list):
        raise UserError(f"{at}: field 'edits' must be a list of [old, new] pairs, not {type(edits).__name__}")
    for i, edit in enumerate(edits):
        if not (isinstance(edit, list) and len(edit) == 2 and all(isinstance(s, str) for s in edit)):
            raise UserError(f"{at}: field 'edits'[{i}] must be a pair [old, new] of strings, not {edit!r}")
        if not edit[0]:
            raise UserError(f"{at}: field 'edits'[{i}]: the old text is empty")
    file = spec.get("template")
    if file is not None and not isinstance(file, str):
        raise UserError(f"{at}: field 'template' must be a path (a string), not {type(file).__name__}")
    template = base
    if file:
        if file not in texts:
            texts[file] = _template_text(Path(file), base, at)
        template = texts[file]
    if language and template.language != language:
        raise UserError(f"{at}: field 'template': {template.path} is a {template.language} template; "
                        f"this script runs {language} ones")
    space = template.load_space()
    params = {**space.default_params(), **genes, **force}
    problems = space.violations(params)
    if problems:
        raise UserError(f"{at}: field 'genes': not a genome of {template.space_path.name}: {'; '.join(problems)}")
    return Variant(name, template, params, tuple(tuple(e) for e in edits), Path(file) if file else None, where)


def _template_text(path: Path, base: Template, at: str) -> Template:
    """The template text at ``path``; its front matter's space is read from ``base``'s folder."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{at}: field 'template': {path}: unreadable template: {exc}") from None
    named = template_from_text(path, text)  # a malformed front matter is reported against the file
    home = template_from_text(base.path.parent / path.name, text)
    return dataclasses.replace(named, space_path=home.space_path)
