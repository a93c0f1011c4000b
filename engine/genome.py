"""Typed genes, search spaces with declared constraints, and immutable genomes.

A ``Space`` is data loaded from ``genomes/*.toml`` (see ``engine.space_file``). A ``Genome`` is
one filling of a template's holes (and of its code regions, where an LLM rewrote any); it is
validated against its space before anything is rendered or compiled, and named by a stable
``genome_id``: a hash of its canonical parameters, its rewritten regions and the template it fills.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from engine.expr import Expression

Value = int | str | bool


@dataclass(frozen=True)
class Gene:
    """One hole of a template: a name, the values it may take, and its default."""

    name: str
    kind: str  # "int", "pow2", "choice", "categorical", "bool"
    values: tuple[Value, ...]
    default: Value
    doc: str = ""

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"gene {self.name} has no values")
        if len(set(map(_canon, self.values))) != len(self.values):
            raise ValueError(f"gene {self.name} lists a value twice")
        if not self.admits(self.default):
            raise ValueError(f"gene {self.name}: default {self.default!r} is not one of {list(self.values)}")

    def admits(self, value: Any) -> bool:
        # bool is an int in Python: keep True from passing as 1 and 1 as True.
        return any(type(value) is type(v) and value == v for v in self.values)

    def index(self, value: Value) -> int:
        for i, v in enumerate(self.values):
            if type(value) is type(v) and value == v:
                return i
        raise ValueError(f"{value!r} is not a value of gene {self.name}")


@dataclass(frozen=True)
class Constraint:
    expr: Expression
    why: str

    @property
    def text(self) -> str:
        return self.expr.text


class _TooBig(Exception):
    """A space whose listing was abandoned (too many steps)."""


_UNLISTED = object()


class InvalidGenome(ValueError):
    """Parameters that lie outside their space; the message names the gene or constraint."""


# steps of the pruned walk after which a space counts as too big to list (sample() then draws by
# rejection); the CUDA template's space takes about 0.8M (docs/BENCHMARKS.md, twenty-fifth session)
LIST_NODE_LIMIT = 2_000_000


@dataclass(frozen=True)
class Space:
    name: str
    genes: tuple[Gene, ...]
    constraints: tuple[Constraint, ...] = ()
    source: str = ""  # the file it came from, for messages

    def __post_init__(self) -> None:
        names = [g.name for g in self.genes]
        if len(set(names)) != len(names):
            raise ValueError(f"space {self.name} declares a gene twice")
        for c in self.constraints:
            unknown = c.expr.names - set(names)
            if unknown:
                raise ValueError(f"constraint {c.text!r} reads unknown genes {sorted(unknown)}")

    @property
    def gene_names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.genes)

    def gene(self, name: str) -> Gene:
        for g in self.genes:
            if g.name == name:
                return g
        raise KeyError(name)

    def violations(self, params: Mapping[str, Value]) -> list[str]:
        """Every reason ``params`` is not a member of this space (empty when it is)."""
        problems = []
        extra = set(params) - set(self.gene_names)
        if extra:
            problems.append(f"unknown genes {sorted(extra)}")
        for g in self.genes:
            if g.name not in params:
                problems.append(f"gene {g.name} is missing")
            elif not g.admits(params[g.name]):
                problems.append(f"gene {g.name}={params[g.name]!r} is not one of {list(g.values)}")
        if problems:
            return problems
        for c in self.constraints:
            try:
                ok = c.expr.evaluate(params)
            except Exception as exc:  # a constraint that cannot be evaluated excludes the point
                problems.append(f"constraint {c.text!r} failed to evaluate: {exc}")
                continue
            if not ok:
                problems.append(f"violates {c.text!r} ({c.why})" if c.why else f"violates {c.text!r}")
        return problems

    def is_valid(self, params: Mapping[str, Value]) -> bool:
        return not self.violations(params)

    def default_params(self) -> dict[str, Value]:
        return {g.name: g.default for g in self.genes}

    def sample(self, rng: random.Random, max_tries: int = 10_000) -> dict[str, Value]:
        """A uniformly drawn member of the space: a draw from the list of valid genomes when the
        space is small enough to list, else by rejection against the constraints. (Rejection
        slows as constraints bite: at 0.5% valid, 200 draws of the CUDA space took 2 s, which
        made every constrained TPE proposal cost seconds.)"""
        listed = self.listed()
        if listed is not None:
            if not listed:
                raise RuntimeError(f"space {self.name}: no valid genome; constraints too tight?")
            return dict(rng.choice(listed))
        for _ in range(max_tries):
            params = {g.name: rng.choice(g.values) for g in self.genes}
            if self.is_valid(params):
                return params
        raise RuntimeError(f"space {self.name}: no valid genome in {max_tries} draws; constraints too tight?")

    def valid_points(self) -> Iterator[dict[str, Value]]:
        """Every valid genome's params, in the order of the genes' values (the order of
        ``itertools.product`` over the genes): copies of listed() when the space lists (the CUDA
        template's space in about 3 s on a 2-core CI machine, where the walk in the declared gene
        order took 17 s), else that walk, lazily. A constraint is tested as soon as every gene it
        reads has a value, so a violated one prunes all the genomes below it at once."""
        listed = self.listed()
        if listed is not None:
            yield from (dict(p) for p in listed)
        else:
            yield from self._walk(self.gene_names, node_limit=None)

    def _pruning_order(self) -> tuple[str, ...]:
        """The genes in an order that lets the walk test constraints early: next, always the gene
        that completes the most constraints with those already taken (then the one read by the most,
        then the one of fewest values, then the declared order). A space whose constraints read
        genes declared last prunes only at the walk's bottom in the declared order: the CUDA
        template's space (about 70,000 valid genomes) took 2.7M steps so, 0.8M in this order."""
        reads = [set(c.expr.names) for c in self.constraints]
        order: list[str] = []
        for _ in self.genes:
            def rank(name: str) -> tuple[int, int, int, int]:
                taken = set(order) | {name}
                completes = sum(1 for r in reads if name in r and r <= taken)
                return (-completes, -sum(1 for r in reads if name in r), len(self.gene(name).values),
                        self.gene_names.index(name))
            order.append(min((n for n in self.gene_names if n not in order), key=rank))
        return tuple(order)

    def _walk(self, names: tuple[str, ...], node_limit: int | None) -> Iterator[dict[str, Value]]:
        """The valid genomes in the product order of the genes taken in the order `names` (each
        yielded with its genes in the declared order)."""
        genes = [self.gene(n) for n in names]
        due: list[list[Constraint]] = [[] for _ in names]  # constraints tested at each depth
        for c in self.constraints:
            due[max((names.index(n) for n in c.expr.names), default=0)].append(c)
        params: dict[str, Value] = {}
        visited = 0

        def holds(c: Constraint) -> bool:
            try:
                return bool(c.expr.evaluate(params))
            except Exception:  # as in violations(): a constraint that cannot be evaluated excludes
                return False

        def walk(depth: int) -> Iterator[dict[str, Value]]:
            nonlocal visited
            if depth == len(names):
                yield {n: params[n] for n in self.gene_names}
                return
            for value in genes[depth].values:
                visited += 1
                if node_limit is not None and visited > node_limit:
                    raise _TooBig
                params[names[depth]] = value
                if all(holds(c) for c in due[depth]):
                    yield from walk(depth + 1)
            del params[names[depth]]

        yield from walk(0)

    def listed(self) -> list[dict[str, Value]] | None:
        """Every valid genome (listed once, then kept) in the order of valid_points(), or None for
        a space too big to list (over 2M steps of the pruned walk in _pruning_order()); sample()
        and the strategies draw from it."""
        cached = self.__dict__.get("_listed_cache", _UNLISTED)
        if cached is _UNLISTED:
            try:
                cached = list(self._walk(self._pruning_order(), node_limit=LIST_NODE_LIMIT))
                cached.sort(key=lambda p: tuple(g.index(p[g.name]) for g in self.genes))
            except _TooBig:
                cached = None
            object.__setattr__(self, "_listed_cache", cached)  # a cache on a frozen dataclass
        return cached

    def restrict(self, fixed: Mapping[str, Value]) -> "Space":
        """The slice of this space with some genes held at one value (their default becomes
        that value); a sweep of a slice stands in for the whole when the whole is too big."""
        for name, value in fixed.items():
            if name not in self.gene_names:
                raise InvalidGenome(f"unknown gene {name!r}; genes: {', '.join(self.gene_names)}")
            if not self.gene(name).admits(value):
                raise InvalidGenome(f"gene {name}: {value!r} is not one of {list(self.gene(name).values)}")
        genes = tuple(Gene(g.name, g.kind, (fixed[g.name],), fixed[g.name], g.doc) if g.name in fixed else g
                      for g in self.genes)
        sliced = Space(self.name, genes, self.constraints, self.source)
        if sliced.is_valid(sliced.default_params()):
            return sliced
        # The defaults with these genes changed break a constraint: the slice's default (the
        # run's baseline) is then its first valid genome.
        first = next(sliced.valid_points(), None)
        if first is None:
            raise InvalidGenome(f"no valid genome has {dict(fixed)}")
        genes = tuple(Gene(g.name, g.kind, g.values, first[g.name], g.doc) for g in genes)
        return Space(self.name, genes, self.constraints, self.source)

    def size(self) -> int:
        n = 1
        for g in self.genes:
            n *= len(g.values)
        return n


def _canon(value: Value) -> str:
    return json.dumps(value)


def canonical_json(params: Mapping[str, Value]) -> str:
    return json.dumps(dict(sorted(params.items())), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Genome:
    """One filling of a template's holes, and optionally new text for some of its code regions
    (``code``: region name -> Jinja text, written by the LLM operator). Build with ``Genome.make``
    so it is validated. A genome without code keeps the id it had before regions existed."""

    params_json: str
    template_hash: str
    code_json: str = ""   # canonical JSON of the rewritten regions; "" when the template's own code
    genome_id: str = field(init=False)

    def __post_init__(self) -> None:
        text = f"{self.template_hash}\n{self.params_json}" + (f"\n{self.code_json}" if self.code_json else "")
        object.__setattr__(self, "genome_id", hashlib.sha256(text.encode()).hexdigest()[:16])

    @classmethod
    def make(cls, space: Space, params: Mapping[str, Value], template_hash: str,
             code: Mapping[str, str] | None = None, regions: Mapping[str, str] | None = None) -> "Genome":
        """``regions``: the template's code regions (name -> its own text); ``code`` may rewrite
        only those."""
        problems = space.violations(params)
        if code:
            problems += code_violations(code, regions or {})
        if problems:
            raise InvalidGenome(f"genome outside space {space.name}: " + "; ".join(problems))
        return cls(canonical_json(params), template_hash, canonical_code(code))

    @property
    def params(self) -> dict[str, Value]:
        return json.loads(self.params_json)

    @property
    def code(self) -> dict[str, str]:
        return json.loads(self.code_json) if self.code_json else {}


def code_violations(code: Mapping[str, Any], regions: Mapping[str, str]) -> list[str]:
    problems = []
    unknown = sorted(set(code) - set(regions))
    if unknown:
        problems.append(f"unknown code regions {unknown} (the template's: {sorted(regions) or 'none'})")
    for name, text in code.items():
        if not isinstance(text, str):
            problems.append(f"code region {name}: text must be a string, not {type(text).__name__}")
        elif (bad := _unwritable(text)) is not None:
            problems.append(f"code region {name}: {bad}")
    return problems


def _unwritable(text: str) -> str | None:
    """What in the text no source file can hold: a lone surrogate (JSON's "\\ud800" decodes to one)
    has no UTF-8 bytes, and a NUL ends the text for nvcc and Python's compiler alike. Caught
    here, the genome is invalid with the reason; else its render fails with a traceback."""
    try:
        text.encode("utf-8")
        if "\0" not in text:
            return None
    except UnicodeEncodeError:
        pass
    for at, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return f"text has a lone surrogate (U+{ord(char):04X}) at character {at}, which no UTF-8 file can hold"
        if char == "\0":
            return f"text has a NUL character at character {at}"
    return None


def canonical_code(code: Mapping[str, str] | None) -> str:
    """Rewritten regions as canonical JSON; "" when none is rewritten."""
    return canonical_json(code) if code else ""


def identity(params: Mapping[str, Value], code: Mapping[str, str] | None = None) -> str:
    """What tells two genomes of one template apart, as their genome_id does: the strategies'
    memory of what was proposed or evaluated."""
    return canonical_json(params) + "\n" + canonical_code(code)


def parse_params(text: str, where: str) -> dict[str, Value]:
    """Parameters from a JSON object (the ``--genome`` argument), with the fault named."""
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(params, dict):
        raise ValueError(f"{where}: a genome is a JSON object of gene names to values")
    return params


def complete(space: Space, partial: Mapping[str, Value]) -> dict[str, Value]:
    """The space's defaults overlaid with ``partial`` (so users name only the genes they change)."""
    unknown = set(partial) - set(space.gene_names)
    if unknown:
        raise InvalidGenome(f"genome outside space {space.name}: unknown genes {sorted(unknown)}")
    merged = space.default_params()
    merged.update(partial)
    return merged
