"""Load a search space from TOML, naming the file and field at fault on any error.

Format (see ``genomes/sparse_mla_triton.toml``)::

    [space]
    name = "sparse_mla_triton"

    [genes.TOPK_TILE]
    type = "pow2"          # int | pow2 | choice | categorical | bool
    min = 16
    max = 128
    default = 64
    doc = "gathered KV rows per inner iteration"

    [[constraints]]
    expr = "HEADS_PER_PROGRAM * 1152 + NUM_STAGES * TOPK_TILE * 1152 <= 232448"
    why = "shared memory per block"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from engine.errors import UserError
from engine.expr import Expression
from engine.genome import Constraint, Gene, Space

_GENE_KEYS = {"type", "min", "max", "step", "choices", "default", "doc"}
_CONSTRAINT_KEYS = {"expr", "why"}


def load_space(path: Path) -> Space:
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: space file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: unreadable space file: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: malformed TOML: {exc}") from None
    return space_from_dict(data, str(path))


def space_from_dict(data: dict[str, Any], where: str) -> Space:
    unknown = set(data) - {"space", "genes", "constraints"}
    if unknown:
        raise UserError(f"{where}: unknown top-level keys {sorted(unknown)}")
    name = data.get("space", {}).get("name")
    if not isinstance(name, str) or not name:
        raise UserError(f"{where}: [space] name is missing or not a string")
    genes_table = data.get("genes")
    if not isinstance(genes_table, dict) or not genes_table:
        raise UserError(f"{where}: no [genes.*] tables")
    genes = tuple(_gene(gname, spec, where) for gname, spec in genes_table.items())
    constraints = []
    for i, c in enumerate(data.get("constraints", [])):
        field = f"{where}: constraints[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("expr"), str):
            raise UserError(f"{field}: needs an expr string")
        unknown = set(c) - _CONSTRAINT_KEYS
        if unknown:  # a misspelt `why` would silently drop the reason every refusal gives
            raise UserError(f"{field}: unknown keys {sorted(unknown)} (a constraint has {sorted(_CONSTRAINT_KEYS)})")
        if not isinstance(c.get("why", ""), str):
            raise UserError(f"{field}: why must be a string, not {c['why']!r}")
        try:
            constraints.append(Constraint(Expression(c["expr"]), c.get("why", "")))
        except ValueError as exc:
            raise UserError(f"{field}: {exc}") from None
    try:
        space = Space(name, genes, tuple(constraints), where)
    except ValueError as exc:
        raise UserError(f"{where}: {exc}") from None
    boolean_genes = {g.name for g in genes if all(isinstance(v, bool) for v in g.values)}
    defaults = space.default_params()
    for i, c in enumerate(constraints):
        if c.expr.always_boolean(boolean_genes):
            continue
        try:  # the default genome's value, to show what the expression gives instead
            gives = f" (it gives {c.expr.evaluate(defaults)!r} for the default genome)"
        except Exception:  # noqa: BLE001 - the form alone is the refusal's reason
            gives = ""
        # `THREADS` for `THREADS > 0` is truthy for every value but 0; `A > 1 and A * 2` gives a
        # number wherever A > 1. Either would pass or exclude genomes by accident.
        raise UserError(f"{where}: constraints[{i}]: expr {c.text!r} is not true or false for every genome{gives}: "
                        "write it as comparisons joined by and, or, not")
    return space


def _gene(name: str, spec: Any, where: str) -> Gene:
    field = f"{where}: genes.{name}"
    if not name.isidentifier():
        raise UserError(f"{field}: a gene name must be an identifier (it is a template variable)")
    if not isinstance(spec, dict):
        raise UserError(f"{field}: must be a table")
    unknown = set(spec) - _GENE_KEYS
    if unknown:
        raise UserError(f"{field}: unknown keys {sorted(unknown)}")
    kind = spec.get("type")
    try:
        values = _values(kind, spec)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{field}: {exc}") from None
    default = spec.get("default", values[0] if values else None)
    try:
        return Gene(name, kind, values, default, str(spec.get("doc", "")))
    except ValueError as exc:
        raise UserError(f"{field}: {exc}") from None


def _values(kind: Any, spec: dict[str, Any]) -> tuple:
    if kind == "bool":
        return (False, True)
    if kind in ("choice", "categorical"):
        choices = spec.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ValueError("'choices' must be a non-empty list")
        if kind == "choice" and not all(type(c) is int for c in choices):
            raise ValueError("type 'choice' takes integers; use 'categorical' for other values")
        if not all(type(c) in (int, str, bool) for c in choices):
            raise ValueError("choices must be integers, strings or booleans")
        return tuple(choices)
    if kind in ("int", "pow2"):
        lo, hi = spec.get("min"), spec.get("max")
        if type(lo) is not int or type(hi) is not int or lo > hi:
            raise ValueError("'min' and 'max' must be integers with min <= max")
        if kind == "int":
            step = spec.get("step", 1)
            if type(step) is not int or step < 1:
                raise ValueError("'step' must be a positive integer")
            return tuple(range(lo, hi + 1, step))
        if lo < 1 or lo & (lo - 1) or hi & (hi - 1):
            raise ValueError("pow2 'min' and 'max' must be powers of two")
        out, v = [], lo
        while v <= hi:
            out.append(v)
            v *= 2
        return tuple(out)
    raise ValueError(f"type {kind!r} is not one of int, pow2, choice, categorical, bool")
