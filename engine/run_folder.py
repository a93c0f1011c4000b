"""A run's folder: its config (run.json) and the checks that guard --resume."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from engine.errors import UserError
from engine.genome import InvalidGenome, Space
from engine.run_lock import LOCK_FILE
from engine.store.schema import SCHEMA_VERSION
from engine.template import Template, load_template, template_from_text
from evaluators.build_target import BuildTarget

SNAPSHOT = "snapshot"  # the run's copy of its template and space, so old runs stay readable


@dataclass(frozen=True)
class RunConfig:
    run_id: str
    template: str
    template_hash: str
    space: str
    space_hash: str
    problem: str
    language: str
    strategy: str
    seed: int
    created_at: str
    schema_version: int = SCHEMA_VERSION
    fixed: dict = field(default_factory=dict)  # genes held at one value: the run searched a slice
    e2e: bool = False  # every genome also timed inside the decode layer (evolve --e2e)
    # the SM counts of the GPUs the run's builds were for (evaluators/build_target.py): a template
    # with build variables was built with only what its calls launch there; empty: built whole
    build_sm_counts: list = field(default_factory=list)
    # what a resume takes from the run when the command does not say (empty, 0: a run made before
    # they were noted): its objectives, the budget its last session ran to, its Optuna storage
    objectives: list = field(default_factory=list)
    budget: int = 0
    storage: str = ""
    # the search its last session ran: strategy, seed and the --llm-* options (engine/llm/options.py)
    search: dict = field(default_factory=dict)


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def new_config(run_dir: Path, template: Template, strategy: str, seed: int, fixed: dict,
               e2e: bool = False) -> RunConfig:
    return RunConfig(fixed=dict(fixed), e2e=e2e, run_id=run_dir.name, template=str(template.path), template_hash=template.content_hash,
                     space=str(template.space_path), space_hash=file_hash(template.space_path),
                     problem=template.problem, language=template.language, strategy=strategy, seed=seed,
                     created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def default_run_dir(template: Template, results_root: Path = Path("results")) -> Path:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return results_root / f"{template.path.name.split('.')[0]}-{stamp}"


def is_unused(run_dir: Path) -> bool:
    """No folder, or one with nothing in it but a run's lock file (of a run taking the folder now,
    whose held lock refuses this one, or of one stopped before it wrote run.json)."""
    return not run_dir.exists() or (run_dir.is_dir() and all(p.name == LOCK_FILE for p in run_dir.iterdir()))


def make_run_dir(run_dir: Path) -> None:
    """The folder of a new run, made (with its parents) unless it is a file or holds anything."""
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir}: exists and is not a folder; name a run folder with --out")
    if not is_unused(run_dir):
        raise UserError(f"{run_dir}: folder exists and is not empty; pass --resume to continue it")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{run_dir}: cannot make the run folder: {exc.strerror or exc}") from None


def open_run(run_dir: Path, template: Template, strategy: str, seed: int, resume: bool,
             fixed: dict | None = None, e2e: bool | None = None) -> RunConfig:
    """Create the folder of a new run, or check that an existing one may be resumed (``e2e``
    None there: as the run was made). A process that goes on to write the run calls this under
    the run's lock (engine/run_lock.py; ``make_run_dir`` first, for the lock's file): two new runs
    on one folder would otherwise both find it empty and both write run.json."""
    if not resume:
        make_run_dir(run_dir)
        config = new_config(run_dir, template, strategy, seed, fixed or {}, bool(e2e))
        write_config(run_dir, config)
        write_snapshot(run_dir, template)
        return config
    config = check_resume(run_dir, template, fixed, e2e)
    if not (run_dir / SNAPSHOT).is_dir():
        write_snapshot(run_dir, template)  # a run begun before runs kept one; written once all checks pass
    return config


def check_resume(run_dir: Path, template: Template, fixed: dict | None = None,
                 e2e: bool | None = None, objectives: tuple[str, ...] | None = None) -> RunConfig:
    """The config of a run that may be resumed with this template, slice, decode-layer setting and
    objectives (``fixed``, ``e2e``, ``objectives`` None: as the run was made); writes nothing."""
    config = read_config(run_dir)
    if config.template_hash != template.content_hash:
        raise UserError(f"{run_dir}: --resume with template {template.path} (hash {template.content_hash}), "
                        f"but the run was made with {config.template} (hash {config.template_hash})")
    space_hash = file_hash(template.space_path)
    if config.space_hash != space_hash:
        raise UserError(f"{run_dir}: --resume, but the space file {template.space_path} changed since the run began")
    if fixed is not None and dict(fixed) != config.fixed:
        raise UserError(f"{run_dir}: --resume with --fix {_fix_text(fixed)}, but the run searched "
                        f"{_fix_text(config.fixed) if config.fixed else 'the whole space'}")
    if e2e is not None and e2e != config.e2e:
        raise UserError(f"{run_dir}: --resume {'with' if e2e else 'without'} --e2e, but the run was made "
                        f"{'with' if config.e2e else 'without'} it (its rows would not compare)")
    if objectives is not None and config.objectives and list(objectives) != config.objectives:
        raise UserError(f"{run_dir}: --resume with --objectives {','.join(objectives)}, but the run minimises "
                        f"{','.join(config.objectives)} (its strategy's model and its Pareto front are of those); "
                        "leave --objectives out, or begin a new run")
    return config


def note_session(run_dir: Path, objectives: tuple[str, ...], budget: int, storage: str | None,
                 search: dict | None = None) -> RunConfig:
    """What this session of the run minimises, the budget it runs to, its Optuna storage and its
    search (strategy, seed, LLM options), noted in run.json for the next ``--resume`` to take
    where the command leaves them out (a journal's path whole: the resume may start in another
    working directory). ``strategy`` and ``seed`` themselves stay the run's first."""
    if storage and "://" not in storage:
        storage = str(Path(storage).resolve())
    config = read_config(run_dir)
    noted = replace(config, objectives=list(objectives), budget=budget, storage=storage or "",
                    search=dict(search or {}))
    if noted != config:
        write_config(run_dir, noted)
    return noted


def write_config(run_dir: Path, config: RunConfig) -> None:
    """``run.json``: the run's config, whole (read back by ``read_config``). Written beside and
    renamed over the old one: a resumed run rewrites it (its GPUs, its decode-layer setting), and
    a kill in the middle of an in-place write would leave the run without a readable config."""
    write_whole(run_dir / "run.json", json.dumps(asdict(config), indent=2) + "\n", "the run's config")


def write_whole(path: Path, text: str, what: str) -> None:
    """``text`` as ``path``, written beside it and renamed over it: a reader, or the next command
    after a kill, finds the old file or the new one, never half of one."""
    partial = path.with_name(path.name + ".tmp")
    try:
        partial.write_text(text)
        os.replace(partial, path)
    except OSError as exc:  # a full disk, something in the way: the old file stays as it was
        with contextlib.suppress(OSError):
            partial.unlink()  # half written: of no use, and a new run's folder with it would not count as empty
        raise UserError(f"{path}: cannot write {what} ({exc.filename or partial}: "
                        f"{exc.strerror or exc})") from None


def set_e2e(run_dir: Path, e2e: bool) -> RunConfig:
    """A new run's config with the decode layer on or off, written before its first row: `evolve`
    settles the default only once its workers say where genomes run."""
    config = replace(read_config(run_dir), e2e=e2e)
    write_config(run_dir, config)
    return config


def set_build_target(run_dir: Path, target: BuildTarget | None) -> RunConfig:
    """Note the GPUs this session of the run builds for (a resumed run on other GPUs adds theirs):
    ``show`` names them, and ``export`` builds a winner whose row predates the rows' own note
    (schema 8: ``build_sm_counts``) for all of them."""
    config = read_config(run_dir)
    if target is None:
        return config
    counts = sorted(set(config.build_sm_counts) | set(target.sm_counts))
    if counts != config.build_sm_counts:
        config = replace(config, build_sm_counts=counts)
        write_config(run_dir, config)
    return config


def build_target_of(config: RunConfig) -> BuildTarget | None:
    """The target a run's builds were for, as ``set_build_target`` noted it (None: built whole)."""
    return BuildTarget.of_counts(config.build_sm_counts)


def searched_space(run_dir: Path, space: Space, fixed: dict) -> Space:
    """The slice of ``space`` the run searched (run.json's ``fixed`` genes held), or the whole space."""
    if not fixed:
        return space
    try:
        return space.restrict(fixed)
    except InvalidGenome as exc:  # run.json edited by hand, or a space that lost the gene or value
        raise UserError(f"{run_dir / 'run.json'}: fixed {_fix_text(fixed)}: {exc}") from None


def _fix_text(fixed: dict) -> str:
    return " ".join(f"{k}={json.dumps(v)}" for k, v in fixed.items()) or "(none)"


def read_config(run_dir: Path) -> RunConfig:
    path = run_dir / "run.json"
    if not path.is_file():
        raise UserError(f"{run_dir}: not a run folder (no run.json)")
    try:
        data = json.loads(path.read_text())
        version = data.get("schema_version") if isinstance(data, dict) else None
        # a newer engine's run: its fields and rows may mean what this one cannot tell, and a resume
        # here would append rows of an older schema to it
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise UserError(f"{path}: schema_version {version}: the run was made by a newer engine (this one "
                            f"reads up to {SCHEMA_VERSION}); use that engine")
        config = RunConfig(**data)
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as exc:
        raise UserError(f"{path}: malformed run config: {exc}") from None
    wrong = [f"{f.name} {getattr(config, f.name)!r} (not {_TYPES[f.type][1]})" for f in fields(RunConfig)
             if not _of_type(getattr(config, f.name), _TYPES[f.type][0])]
    if wrong:
        raise UserError(f"{path}: malformed run config: {', '.join(wrong)}")
    return config


# run.json's field types by their annotations (strings: this module has postponed annotations)
_TYPES = {"str": (str, "a string"), "int": (int, "an integer"), "bool": (bool, "true or false"),
          "dict": (dict, "an object"), "list": (list, "a list")}


def _of_type(value: object, kind: type) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))  # True is no int


def write_snapshot(run_dir: Path, template: Template) -> None:
    snap = run_dir / SNAPSHOT
    snap.mkdir(parents=True, exist_ok=True)
    (snap / "space.toml").write_bytes(template.space_path.read_bytes())
    (snap / "template.j2").write_text(template.text)


def template_of_run(run_dir: Path, config: RunConfig) -> Template:
    """The template a run was made with: the file it names if that is unchanged (template and
    space), else the copy kept in the run folder. A working-tree file that no longer loads (a
    half-made edit) is just a changed one: the copy is read instead."""
    path = Path(config.template)
    if path.is_file():
        try:
            current = load_template(path)
            if current.content_hash == config.template_hash and file_hash(current.space_path) == config.space_hash:
                return current
        except (UserError, OSError):
            pass
    snap = run_dir / SNAPSHOT
    if not ((snap / "template.j2").is_file() and (snap / "space.toml").is_file()):
        raise UserError(f"{config.template}: changed since run {config.run_id} was recorded "
                        f"(run has template {config.template_hash}), and the run folder keeps no copy of it")
    try:
        kept = template_from_text(path, (snap / "template.j2").read_text(), (snap / "space.toml").resolve())
    except UserError as exc:  # named by the copy's path, not the template's it stands for
        raise UserError(str(exc).replace(str(path), str(snap / "template.j2"), 1)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{snap / 'template.j2'}: unreadable: {exc}") from None
    if kept.content_hash != config.template_hash:
        raise UserError(f"{snap / 'template.j2'}: the run's copy of {config.template} does not match the hash "
                        f"run.json records ({kept.content_hash} against {config.template_hash}); "
                        f"the working-tree file {'changed too' if path.is_file() else 'is gone'}")
    kept_space_hash = file_hash(kept.space_path)
    if kept_space_hash != config.space_hash:
        raise UserError(f"{snap / 'space.toml'}: the run's copy of {config.space} does not match the hash "
                        f"run.json records ({kept_space_hash} against {config.space_hash})")
    return kept
