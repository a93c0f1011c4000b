"""Kernel templates: front matter, content hash and strict rendering.

A template opens with a Jinja comment holding TOML that says what it is::

    {#- kernel-genome
    problem = "sparse_mla_decode"      # a problem in evaluators/
    language = "triton"                # triton | cuda
    entry = "sparse_mla_decode"        # the function the harness calls
    space = "../genomes/sparse_mla_triton.toml"   # relative to the template
    problem_args = { kv_format = "KV_FORMAT" }     # optional: problem arguments set by genes
    interpreter = false                # optional (Triton): kernels that the interpreter cannot run (Gluon)
    build_variables = ["LAUNCHED_SPLITS"]  # optional: set by the run, not genes (see below; the CUDA template's)
    -#}

Rendering uses ``StrictUndefined``: a hole the genome does not fill is an error, never an
empty string.

Build variables are facts of the run that a template may build less code by: the problem
computes them from a genome's full render and the run's GPUs (``evaluators.build_target``), and
the genome is rendered again with them. A render without a target (``engine compile``,
``engine export``) leaves them undefined, and the template then builds for every launch; the
template tests them with ``is defined``.

Code regions are Jinja blocks (``{% block online_softmax %}...{% endblock %}``): the template
renders them as written, and the LLM operator may give a genome new text for any of them (Jinja
too, reading the same genes and the template's top-level variables and macros; a block inside a
loop needs ``scoped`` to see the loop variable). A genome's new text renders in Jinja's sandbox,
which refuses the attribute tricks that would run Python in the driver, and in a child process
(engine.isolated_render), which stops the loops and allocations the sandbox lets through.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import re
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping

import jinja2
import jinja2.meta
import jinja2.nodes
import jinja2.sandbox

from engine.errors import UserError
from engine.genome import InvalidGenome, Space, Value, canonical_code, code_violations
from engine.space_file import load_space
from evaluators.build_target import BuildTarget

if TYPE_CHECKING:
    from evaluators.sparse_mla_cuda import LaunchContract


def key_values(mapping: Mapping[str, Value]) -> str:
    """"a=1, b=x": a problem's arguments, the genes that pick it, a slice's fixed genes, as text."""
    return ", ".join(f"{k}={v}" for k, v in mapping.items())


_FRONT = re.compile(r"\A\{#-?\s*kernel-genome\s*\n(.*?)\n\s*-?#\}", re.S)
_REQUIRED = ("problem", "language", "entry", "space")
_OPTIONAL = ("problem_args", "interpreter", "build_variables")
_BLOCK_TAG = re.compile(r"\{%(-?)\s*(block|endblock)\b\s*(\w*)[^%]*?(-?)%\}")
LANGUAGES = ("triton", "cuda")


class RenderError(Exception):
    """The template could not be rendered for a genome (undefined hole, template bug)."""


@dataclass(frozen=True)
class Template:
    path: Path
    text: str
    problem: str
    language: str
    entry: str
    space_path: Path
    problem_args: tuple[tuple[str, str], ...] = ()   # (argument of the problem, gene that sets it)
    interpreter: bool = True    # False: GPU only (Gluon kernels do not run under TRITON_INTERPRET)
    build_variables: tuple[str, ...] = ()  # variables the run may set, not genes (see the module's doc)

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def load_space(self) -> Space:
        if not self.space_path.is_file():  # said against the template: a path relative to the shell's folder is the usual slip
            raise UserError(f"{self.path}: front matter space: {self.space_path} not found (a space path is "
                            "relative to the template's folder)")
        return load_space(self.space_path)

    def check_holes(self, space: Space) -> None:
        """Every variable the template reads must be a gene of its space or a build variable its
        front matter declares (and no build variable a gene)."""
        genes = [name for name in self.build_variables if name in space.gene_names]
        if genes:
            raise UserError(f"{self.path}: front matter build_variables names genes of {self.space_path.name}: "
                            f"{genes} (a build variable is set by the run, a gene by the search)")
        unfilled = sorted(_holes(self.text) - set(space.gene_names) - set(self.build_variables))
        if unfilled:
            raise UserError(f"{self.path}: template reads undefined variables {unfilled} "
                            f"(not genes of {self.space_path.name})")
        unknown = sorted(gene for _, gene in self.problem_args if gene not in space.gene_names)
        if unknown:
            raise UserError(f"{self.path}: front matter problem_args names {unknown}, "
                            f"not genes of {self.space_path.name}")

    def unread_genes(self, space: Space) -> list[str]:
        """Genes neither the template's text nor its problem_args read: each of their values
        builds the same kernel, so a search spends evaluations on copies."""
        return sorted(set(space.gene_names) - _holes(self.text) - set(self.problem_genes))

    def check_problem(self, space: Space) -> None:
        """The front matter's problem is one the evaluators know and makes with the default
        genome's arguments, and a Triton template's default genome defines the entry: faults of
        the template, said once before a run rather than recorded as a failed row a genome.
        Without torch (evaluators.problem_specs) for a Triton template: the driver needs it for
        nothing else, and its import cost every command 1.4 s before the worker's start."""
        import ast

        from evaluators.host_code import top_level_functions
        from evaluators.problem_specs import check_problem

        defaults = space.default_params()
        try:
            entry_args = check_problem(self.problem, self.problem_kwargs(defaults))
        except ValueError as exc:
            raise UserError(f"{self.path}: front matter {exc}") from None
        try:  # a default that does not render or parse is a genome's fault: its row says so
            source = self.render(defaults)
            tree = ast.parse(source) if self.language == "triton" else None
        except (RenderError, UserError, InvalidGenome, SyntaxError):
            return
        if tree is None:  # CUDA: the launch line names the kernels, not entry
            self._check_launch_line(source)
            return
        entry = top_level_functions(tree).get(self.entry)
        if entry is None:
            raise UserError(f"{self.path}: front matter entry {self.entry!r} is not a top-level function of "
                            f"the default genome's source")
        if not _takes_positional(entry.args, len(entry_args)):  # else every genome failed at its first call
            raise UserError(f"{self.path}: entry {self.entry}({ast.unparse(entry.args)}) cannot be called as "
                            f"{self.entry}({', '.join(entry_args)}), as problem {self.problem!r} calls it")

    def _check_launch_line(self, source: str) -> None:
        """The default genome's launch line reads, and names kernels its source defines with C
        linkage (else every genome failed on the GPU: compile_error, or an unloadable kernel)."""
        from evaluators.sparse_mla_cuda import ContractError, parse_contract, split_kernel_names
        from evaluators.static_cuda import c_kernels

        try:
            contract = parse_contract(source)
        except ContractError as exc:
            raise UserError(f"{self.path}: the default genome's source: {exc}") from None
        defined = c_kernels(source)
        missing = sorted({*split_kernel_names(contract), contract.combine_kernel} - defined)
        if missing:
            raise UserError(f"{self.path}: the default genome's kernel-genome-launch line names {missing}, not "
                            f'extern "C" __global__ functions of its source (those are {sorted(defined)})')
        self._check_kernel_parameters(source, contract)

    def _check_kernel_parameters(self, source: str, contract: LaunchContract) -> None:
        """Each kernel the default genome's launch line launches declares the parameters the
        launcher passes it, in number and, where the source says, kind (else its launches read
        garbage: an illegal address that poisons the context, or a wrong answer, found only on
        the GPU). A list behind a macro is left to the build, which checks every genome's cubin."""
        from evaluators.sparse_mla_cuda import PARAM_KINDS, launched_parameters
        from evaluators.static_cuda import kernel_parameters, parameter_fault

        declared = kernel_parameters(source)
        for kernel, params in launched_parameters(contract):
            for listed in declared.get(kernel, []):
                fault = None if listed is None else parameter_fault(listed, [(p, PARAM_KINDS[p]) for p in params])
                if fault:
                    raise UserError(f"{self.path}: the default genome's kernel {kernel} {fault}")

    @property
    def problem_genes(self) -> list[str]:
        """The genes that change the problem, once each (a gene may set two arguments)."""
        return list(dict.fromkeys(gene for _, gene in self.problem_args))

    def problem_params(self, params: Mapping[str, Value]) -> dict[str, Value]:
        """Of a genome's parameters, those of the genes that change the problem: what a reference
        row records of the problem it solved (``problem_key`` reads it as a genome's)."""
        return {gene: params[gene] for gene in self.problem_genes}

    @property
    def has_decode_layer(self) -> bool:
        """Whether the template's problem has a model's decode layer to run a kernel in (the e2e
        stage); imports the problem, and torch with it."""
        from evaluators.problems import PROBLEMS

        return hasattr(PROBLEMS.get(self.problem), "decode_layer")

    def problem_kwargs(self, params: Mapping[str, Value]) -> dict[str, Value]:
        """The problem's arguments for one genome (the cache format a CUDA genome reads, ...)."""
        return {arg: params[gene] for arg, gene in self.problem_args}

    def problem_key(self, params: Mapping[str, Value]) -> str:
        """The problem a genome solves, as one string (JSON of its problem arguments; "{}" for a
        template without genes that change the problem): genomes of one key are compared."""
        return json.dumps(self.problem_kwargs(params), sort_keys=True)

    def problem_defaults(self, space: Space) -> list[dict[str, Value]]:
        """One default genome for every problem the space's genes can pose: the space's defaults
        first, then, for each other combination of the problem genes' values (in their declared
        order), the defaults with those values, or the slice's first valid genome where a
        constraint excludes that (``Space.restrict``). Combinations no genome has are left out."""
        defaults = [space.default_params()]
        genes = self.problem_genes
        for values in itertools.product(*(space.gene(gene).values for gene in genes)):
            if dict(zip(genes, values)) == {gene: defaults[0][gene] for gene in genes}:
                continue  # the space's defaults' own problem
            try:
                defaults.append(space.restrict(dict(zip(genes, values))).default_params())
            except InvalidGenome:
                continue
        return defaults

    def request(self, source: str | None, params: Mapping[str, Value] | None = None, **fields) -> dict:
        """One evaluation request for a worker: this template's problem, language and entry, the
        rendered source, the problem arguments ``params`` set, and a fresh secret input seed;
        ``fields`` add or override the rest (builtin, bench, guards, a fixed seed in tests)."""
        return {"problem": self.problem, "language": self.language, "entry": self.entry, "source": source,
                "problem_args": self.problem_kwargs(params) if params else {},
                "seed": secrets.randbits(62), **fields}

    @property
    def regions(self) -> dict[str, str]:
        """The code regions (Jinja blocks) by name, each with its own text."""
        return code_regions(self.text, self.path)

    def render(self, params: Mapping[str, Value], code: Mapping[str, str] | None = None,
               target: BuildTarget | None = None) -> str:
        """The genome's source; for ``target``'s GPUs, with the build variables its problem sets
        there (a template that declares none renders the same either way)."""
        source = self._render(params, code, {})
        if target is None or not self.build_variables:
            return source
        given = target.variables(self.problem, self.problem_kwargs(params), self.language, source)
        extra = {name: value for name, value in given.items() if name in self.build_variables}
        return self._render(params, code, extra) if extra else source

    def _render(self, params: Mapping[str, Value], code: Mapping[str, str] | None, extra: dict) -> str:
        values = {**params, **extra}  # check_holes keeps build variables and genes apart
        if code:  # an LLM's Jinja: rendered where a runaway loop or allocation cannot take the run down
            from engine.isolated_render import render_in_child
            return render_in_child(self.text, code, values, str(self.path))
        return render_text(self.text, values, str(self.path))


def _takes_positional(args, n: int) -> bool:
    """Whether a function of these ``ast.arguments`` can be called with n positional arguments."""
    given = len(args.posonlyargs) + len(args.args)
    required = given - len(args.defaults)
    keyword_required = any(default is None for default in args.kw_defaults)
    return required <= n and (n <= given or args.vararg is not None) and not keyword_required


def load_template(path: Path) -> Template:
    if not path.is_file():
        raise UserError(f"{path}: template not found")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: unreadable template: {exc}") from None
    return template_from_text(path, text)


def template_from_text(path: Path, text: str, space_path: Path | None = None) -> Template:
    """A template from its text; ``path`` names it in messages. ``space_path`` overrides the
    front matter's space (a run folder's copy of both is read this way)."""
    m = _FRONT.match(text)
    if not m:
        raise UserError(f"{path}: no front matter; a template opens with '{{#- kernel-genome' TOML '-#}}'")
    try:
        meta = tomllib.loads(m.group(1))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: malformed front matter: {exc}") from None
    unknown = sorted(set(meta) - {*_REQUIRED, *_OPTIONAL})
    if unknown:  # a misspelt optional key (`interpeter = false`) would otherwise be dropped in silence
        raise UserError(f"{path}: front matter has unknown keys {unknown} (it takes {[*_REQUIRED, *_OPTIONAL]})")
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise UserError(f"{path}: front matter lacks {missing}")
    not_text = [f"{k} = {meta[k]!r}" for k in _REQUIRED if not isinstance(meta[k], str)]
    if not_text:
        raise UserError(f"{path}: front matter {', '.join(not_text)}: must be a string")
    if meta["language"] not in LANGUAGES:
        raise UserError(f"{path}: language {meta['language']!r} is not one of {LANGUAGES}")
    # Compiled here (and kept for the renders) so a syntax error is reported before any genome is tried.
    try:
        _compiled(text)
    except jinja2.TemplateSyntaxError as exc:
        raise UserError(f"{path}:{exc.lineno}: template syntax error: {exc.message}") from None
    code_regions(text, path)  # nested regions are refused here, once
    _refuse_other_files(text, path)
    args = meta.get("problem_args", {})
    if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
        raise UserError(f"{path}: front matter problem_args must map problem arguments to gene names")
    interpreter = meta.get("interpreter", True)
    if not isinstance(interpreter, bool):
        raise UserError(f"{path}: front matter interpreter must be true or false, not {interpreter!r}")
    build_variables = meta.get("build_variables", [])
    if not (isinstance(build_variables, list) and all(isinstance(v, str) and v.isidentifier() for v in build_variables)):
        raise UserError(f"{path}: front matter build_variables must be a list of variable names, "
                        f"not {build_variables!r}")
    return Template(path, text, meta["problem"], meta["language"], meta["entry"],
                    space_path or (path.parent / meta["space"]).resolve(), tuple(sorted(args.items())),
                    interpreter, tuple(build_variables))


def _refuse_other_files(text: str, path: Path) -> None:
    """A template is one file: renders have no loader (an extends, include or import was a
    render_error of every genome, "no loader for this environment specified"), and a genome's
    rewritten regions are rendered by extending the template itself."""
    nodes = jinja2.nodes
    tags = {nodes.Extends: "extends", nodes.Include: "include", nodes.Import: "import", nodes.FromImport: "from"}
    for node in _parsed(text).find_all(tuple(tags)):
        raise UserError(f"{path}:{node.lineno}: {{% {tags[type(node)]} %}} reads another file; a template is one "
                        "file (write the shared parts as macros in it)")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              autoescape=False)


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> jinja2.nodes.Template:
    """The template's syntax tree, parsed once for the checks that read it (not for renders:
    ``_compiled`` parses its own, which Jinja's code generator may change)."""
    return _environment().parse(text)


@functools.lru_cache(maxsize=32)
def _holes(text: str) -> frozenset[str]:
    """The variables a template's text reads and does not set (its genes and build variables)."""
    return frozenset(jinja2.meta.find_undeclared_variables(_parsed(text)))


@functools.lru_cache(maxsize=32)
def _compiled(text: str) -> jinja2.Template:
    """The template's text lexed, parsed and compiled once: that is about 95% of a render of the
    CUDA template (0.11 s of 0.12), which an evolve run or a test renders for every genome."""
    return _environment().from_string(text)


def render_text(text: str, params: Mapping[str, Value], where: str) -> str:
    with _render_errors(where, rewritten=False):
        return _compiled(text).render(**params)


@contextlib.contextmanager
def _render_errors(where: str, rewritten: bool) -> Iterator[None]:
    """Jinja's and Python's faults while rendering, as one RenderError naming the template; a
    syntax fault is named as the rewritten regions' where a genome rewrote any (the sandbox's
    refusals can only come from them)."""
    try:
        yield
    except jinja2.TemplateSyntaxError as exc:
        if not rewritten:
            raise RenderError(f"{where}: {type(exc).__name__}: {exc}") from None
        raise RenderError(f"{where}: the rewritten code regions: syntax error at line {exc.lineno}: "
                          f"{exc.message}") from None
    except jinja2.sandbox.SecurityError as exc:
        raise RenderError(f"{where}: the rewritten code regions: refused by the sandbox: {exc}") from None
    except jinja2.UndefinedError as exc:
        raise RenderError(f"{where}: {exc.message}") from None
    except jinja2.TemplateError as exc:
        raise RenderError(f"{where}: {type(exc).__name__}: {exc}") from None
    except MemoryError:  # not the genome's fault alone: engine.isolated_render's child names its limit
        raise
    except Exception as exc:  # Python errors inside expressions for some genome (64 // 0, ...)
        raise RenderError(f"{where}: {type(exc).__name__} while rendering: {exc}") from None


@functools.lru_cache(maxsize=32)
def code_regions(text: str, path: Path | str = "") -> dict[str, str]:
    regions, open_at = {}, None
    for m in _BLOCK_TAG.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group(2) == "block":
            if open_at is not None:
                raise UserError(f"{path}:{line}: code region {m.group(3)!r} lies inside {open_at[0]!r}; "
                                "regions do not nest")
            open_at = (m.group(3), m.end())
        elif open_at is not None:
            regions[open_at[0]] = text[open_at[1]:m.start()]
            open_at = None
    return regions


def _sandbox(text: str) -> jinja2.Environment:
    return jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                               autoescape=False, loader=jinja2.DictLoader({"template": text}))


@functools.lru_cache(maxsize=64)
def _compiled_with_code(text: str, code_json: str) -> jinja2.Template:
    """The template extended by a child that overrides the rewritten blocks."""
    code, own = json.loads(code_json), code_regions(text)
    child = '{% extends "template" %}' + "".join(
        f"{{% block {name} %}}{_on_its_line(body, own.get(name, ''))}{{% endblock %}}"
        for name, body in sorted(code.items()))
    return _sandbox(text).from_string(child)


def _on_its_line(body: str, own: str) -> str:
    """A rewrite of a region whose own text opens on a new line opens there too. Its tag may strip
    the whitespace before it (``{%- block``, as the CUDA template's do), and the region's own text
    then supplies the line break: a rewrite without one would join its first line to the line
    before the tag (a comment there), and that line would vanish from the code unsaid."""
    return "\n" + body if own.startswith("\n") and not body.startswith("\n") else body


def render_with_code(text: str, code: Mapping[str, str], params: Mapping[str, Value], where: str) -> str:
    problems = code_violations(code, code_regions(text, where))
    if problems:
        raise RenderError(f"{where}: " + "; ".join(problems))
    with _render_errors(where, rewritten=True):
        return _compiled_with_code(text, canonical_code(code)).render(**params)
