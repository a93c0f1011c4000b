"""The fixed part of what the LLM is shown: the hardware it tunes for, the model the kernel
serves, the template and its space, and any file the user adds. It is the same text at every
call of a run, so an endpoint's prompt cache can keep it.

The hardware sheet is the one of context/hardware/ whose ``match`` strings occur in the worker's
GPU name; the model sheets are those of context/models/ whose ``problems`` name the template's
problem. Without them an LLM invents hardware limits and attention variants.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UserError
from engine.template import Template
from evaluators.hardware import CONTEXT_DIR as HARDWARE_DIR
from evaluators.hardware import find_hardware, front_matter

MODELS_DIR = HARDWARE_DIR.parent / "models"


@dataclass(frozen=True)
class Source:
    title: str
    path: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass(frozen=True)
class Brief:
    sources: tuple[Source, ...]
    notes: tuple[str, ...] = ()       # what the LLM is told it lacks (no sheet for this GPU, ...)

    def text(self) -> str:
        parts = [f"## {s.title} ({s.path})\n\n{s.text.rstrip()}\n" for s in self.sources]
        parts += [f"Note: {note}\n" for note in self.notes]
        return "\n".join(parts)

    def describe(self) -> list[dict[str, str]]:
        """Each source by path and content hash, for the transcript's header."""
        return [{"title": s.title, "path": s.path, "sha256": s.sha256} for s in self.sources]


def build_brief(template: Template, device_name: str, extra: list[Path] = (),
                hardware_dir: Path = HARDWARE_DIR, models_dir: Path = MODELS_DIR) -> Brief:
    sources, notes = [], []
    hardware = find_hardware(device_name, hardware_dir) if device_name else None
    if hardware is not None:
        sources.append(_source("Hardware", hardware_dir / hardware["file"]))
    else:
        notes.append(f"no hardware sheet in {_shown(hardware_dir)} matches the device {device_name!r}; "
                     "judge its limits from the results alone")
    models = [p for p in sorted(models_dir.glob("*.md")) if template.problem in _problems(p)]
    sources += [_source("Model", p) for p in models]
    if not models:
        notes.append(f"no model sheet in {_shown(models_dir)} names the problem {template.problem!r}")
    sources += [_source("Extra context", p) for p in extra]
    sources.append(Source(f"Kernel template ({template.language}, Jinja)", _shown(template.path), template.text))
    sources.append(_source("Search space (TOML: genes, their values and docs, constraints)", template.space_path))
    return Brief(tuple(sources), tuple(notes))


def _problems(path: Path) -> list[str]:
    try:
        return list(front_matter(path).get("problems", []))
    except (ValueError, OSError) as exc:
        raise UserError(f"{path}: unreadable model sheet: {exc}") from None


def _shown(path: Path) -> str:
    """The path as the model sees it: from the working folder where it lies below it (no host's
    folder layout in the prompt)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _source(title: str, path: Path) -> Source:
    try:
        return Source(title, _shown(path), path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read this context file: {exc}") from None
