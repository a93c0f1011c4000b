"""python -m engine: evolve, eval and show."""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from engine.audit import audit
from engine.compare import compare, load_sweep, plot, report
from engine.errors import UserError
from engine.export import DEFAULT_MIN_GAIN, export
from engine.faults import FaultInjector
from engine.objectives import parse_objectives
from engine.genome import Genome, InvalidGenome, code_violations, complete, parse_params
from engine.llm.brief import build_brief
from engine.llm import options as llm_options
from engine.llm.transcript import Transcript
from engine.loop import EvolveLoop
from engine.run_folder import (check_resume, default_run_dir, is_unused, make_run_dir, note_session,
                               open_run, searched_space, set_build_target, set_e2e, write_whole)
from engine.run_lock import run_lock
from engine.show import show
from engine.store.compact import compact
from engine.store.reader import read_records
from engine.store.writer import ResultsWriter
from engine.strategies import OPTUNA_STRATEGIES, STRATEGIES, make_strategy
from engine.strategies.base import Proposal, StorageError
from engine.strategies.llm import LlmStrategy
from engine.template import RenderError, Template, load_template
from evaluators.build_target import BuildTarget
from evaluators.confinement import isolation_wanted, not_dumpable
from evaluators.cuda_compile import BUILD_CACHE, compile_cuda, nvcc_version, unsupported_gpu
from evaluators.rejection import Rejection
from evaluators.static_cuda import static_check_cubin, static_check_cuda
from evaluators.integrity import HarnessChanged, HarnessIntegrity
from evaluators.pool import CompileAhead, RunnerPool
from evaluators.runner import GpuUnhealthy, WorkerRunner
from evaluators.zygote import Zygote


DEFAULT_STRATEGY = "tpe"  # evolve's: fewest evaluations to near the best in the recorded H200 sweep


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        print(f"engine: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m engine", description="Search GPU kernel templates for fast, correct genomes.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    ev = sub.add_parser("evolve", help="search a template's space; every attempt becomes a Parquet row")
    ev.add_argument("template", type=Path)
    ev.add_argument("--budget", type=_positive,
                    help="genome evaluations in all, a resumed run's earlier ones included (default 150; "
                         "a resumed run: the budget it last ran to)")
    ev.add_argument("--time-limit", type=_duration, metavar="DURATION",
                    help="ask for no more genomes once this long has passed since the command started, "
                         "e.g. 90m, 2h, 3600s (a bare number is seconds); genomes already asked for (the batch "
                         "being timed, and with --ask-ahead the next, being built) finish and are recorded, and "
                         "--resume continues the run (the PyTorch path and the default genomes, every run's "
                         "baselines, always run)")
    ev.add_argument("--strategy", choices=sorted([*STRATEGIES, "llm"]),
                    help="default tpe: fewest evaluations to near the best in the recorded H200 sweep; "
                         "llm: an OpenAI-compatible endpoint proposes (see the --llm-* options); a resumed "
                         "run: the strategy, seed and --llm-* options its last session ran with")
    ev.add_argument("--out", type=Path, help="run folder (default results/<template>-<time>)")
    ev.add_argument("--seed", type=_seed, help="seed of the search (default 0; inputs are always fresh)")
    ev.add_argument("--resume", action="store_true", help="continue the run in --out")
    ev.add_argument("--objectives",
                    help="comma-separated objectives to minimise: score (default), small_batch, "
                         "large_batch, long_context, e2e (a run with the decode layer), error; several give a Pareto front "
                         "in pareto.json (a resumed run keeps its own)")
    ev.add_argument("--storage", help="Optuna strategies: journal file or database URL "
                    "(default: optuna.journal in the run folder; a resumed run: its own)")
    ev.add_argument("--fix", action="append", metavar="GENE=VALUE", default=[],
                    help="hold a gene at one value (repeatable): search, or sweep, a slice of the space")
    ev.add_argument("--e2e", action=argparse.BooleanOptionalAction, default=None,
                    help="also run each genome inside the model's decode layer (evaluators/decode_layer.py): "
                         "its outputs checked there, the layer timed with and without it (default: on where "
                         "genomes run on a GPU and the problem has a decode layer, off under the interpreter; "
                         "a resumed run keeps its own setting)")
    ev.add_argument("--inject-faults", type=float, default=0.0, metavar="RATE",
                    help="fire drill: before this share of genomes, also evaluate a deliberately broken copy")
    _llm_args(ev)
    _device_args(ev)
    ev.add_argument("--gpus", type=_gpu_list, metavar="LIST",
                    help="comma-separated CUDA ordinals, one worker process each, e.g. 0,1 "
                         "(default: one worker on the default GPU)")
    ev.add_argument("--compile-workers", type=int, metavar="N",
                    help="processes that compile upcoming genomes while others are timed (GPU only; "
                         "default: up to 8, leaving 2 cores per GPU worker; 0 turns it off)")
    ev.add_argument("--ask-ahead", action=argparse.BooleanOptionalAction, default=True,
                    help="with compile-ahead workers, ask a strategy that allows it (random, exhaustive, "
                         "Optuna's) for the next batch before this one is told, and build it while this one "
                         "is timed (default: on; --no-ask-ahead tells every batch before asking the next)")

    one = sub.add_parser("eval", help="evaluate one genome (the space's default if none) and print its record")
    one.add_argument("template", type=Path)
    one.add_argument("--genome", help="JSON object of gene values, or a .json file; unnamed genes keep defaults")
    _code_arg(one)
    one.add_argument("--reference", action="store_true",
                     help="evaluate the PyTorch reference path instead, on the genome's problem (cache format)")
    one.add_argument("--e2e", action="store_true", help="also inside the model's decode layer")
    _device_args(one)

    cs = sub.add_parser("compare-strategies",
                        help="replay strategies against a recorded sweep: evaluations to near its best, and a PNG")
    cs.add_argument("sweep", type=Path, help="a run folder holding the sweep")
    cs.add_argument("--strategies", default="random,ga,tpe,gp,nsga2", help="comma-separated names")
    cs.add_argument("--budget", type=_positive, default=100)
    cs.add_argument("--seeds", type=_positive, default=20)
    cs.add_argument("--threshold", type=float, default=0.03, help="target: within this fraction of the best")
    cs.add_argument("--template", type=Path, help="refuse a sweep of any other template")
    cs.add_argument("--objective", default="score",
                    help="what the strategies minimise: score (default), small_batch, large_batch, long_context, error, "
                         "e2e (a sweep made with --e2e)")
    cs.add_argument("--png", type=Path, help="best-so-far plot (default results/compare-<sweep>.png)")

    co = sub.add_parser("compile", help="render and compile one genome of a CUDA template; print its resources")
    co.add_argument("template", type=Path)
    co.add_argument("--genome", help="JSON object of gene values, or a .json file; unnamed genes keep defaults")
    _code_arg(co)
    co.add_argument("--cache", type=Path, default=BUILD_CACHE, help="build cache folder (default %(default)s)")
    co.add_argument("--sm-counts", type=_sm_counts, metavar="LIST",
                    help="build it as a run on GPUs of these SM counts does, e.g. 132 (H200, H100 SXM): only the "
                         "code its problem's calls launch there (default: every launch's code, as export ships)")

    au = sub.add_parser("audit", help="re-run a run's top genomes (of each cache format) in fresh processes; "
                        "report what does not reproduce")
    au.add_argument("run_dir", type=Path)
    au.add_argument("--top", type=_positive, default=5, help="genomes of each problem (cache format) to re-run")
    _device_args(au)

    sh = sub.add_parser("show", help="best genome per workload and failure counts of a run folder")
    sh.add_argument("run_dir", type=Path)
    sh.add_argument("--top", type=_positive, default=5)

    cp = sub.add_parser("compact", help="merge a run folder's Parquet parts into one (to copy or archive it)")
    cp.add_argument("run_dir", type=Path)

    ex = sub.add_parser("export", help="write a run's winners as kernel sources with a dispatch table (each "
                                       "only where it measurably beats the default kernel)")
    ex.add_argument("run_dir", type=Path)
    ex.add_argument("--out", type=Path, help="an absent or empty folder (default: RUN_DIR/export)")
    ex.add_argument("--default", action="append", default=[], metavar="GENOME_ID",
                    help="the default kernel of its problem (repeat for each cache format), or 'reference' for "
                         "the run's PyTorch path of each problem not named; else the run's default genome")
    ex.add_argument("--min-gain", type=_fraction_at_least_zero, default=DEFAULT_MIN_GAIN,
                    help="the least speedup over the default that counts, as a fraction (default %(default)s)")
    return p


def _llm_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("the llm strategy (every call is kept in RUN/llm/calls.jsonl; a resumed run takes "
                             "from its last session each option the command leaves out)")
    g.add_argument("--llm-model", help="the model's name at the endpoint (required with --strategy llm)")
    g.add_argument("--llm-base-url", help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
                                          "(default: OPENAI_BASE_URL, else OpenAI's)")
    g.add_argument("--llm-api-key-env", metavar="VAR",
                   help="the environment variable that holds the key (default OPENAI_API_KEY; run.json notes "
                        "its name, never the key)")
    g.add_argument("--llm-batch", type=_positive, metavar="N",
                   help=f"genomes asked of each call (default {llm_options.DEFAULTS['llm_batch']})")
    g.add_argument("--llm-calls", type=_positive, metavar="N",
                   help="calls in the run, after which --llm-partner alone proposes (default: no limit)")
    g.add_argument("--llm-patience", type=_positive, metavar="N",
                   help="calls in a row without a new best from the LLM, after which the partner alone "
                        "proposes (default: no limit)")
    g.add_argument("--llm-partner", choices=sorted(STRATEGIES),
                   help="proposes when the LLM does not: after --llm-calls, or after a failed call "
                        "(default random; tpe makes LLM-seeded Bayesian search)")
    g.add_argument("--llm-context", action="append", type=Path, metavar="FILE",
                   help="another file the LLM is shown (repeatable), beside the hardware and model sheets "
                        "of context/, the template and its space")
    g.add_argument("--llm-temperature", type=float, help="sampling temperature (default: the server's)")
    g.add_argument("--llm-max-tokens", type=_positive, metavar="N", help="answer length limit (default: the server's)")
    g.add_argument("--llm-extra", metavar="JSON", help='more request fields as a JSON object, e.g. '
                                                       '\'{"reasoning_effort": "high"}\'')
    g.add_argument("--llm-timeout-s", type=_seconds, help="limit per call (default 300)")
    g.add_argument("--llm-forget", action="append",
                   choices=[llm_options.flag(name)[2:] for name in llm_options.FORGETTABLE],
                   metavar="OPTION", help="with --resume: an option the run noted that this session goes without "
                                          "(its default), e.g. llm-context for a context file since removed "
                                          "(repeatable)")


def _device_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto",
                   help="auto: the GPU if there is one, else the Triton interpreter on the CPU")
    p.add_argument("--timeout-s", type=_seconds, default=600.0, help="limit per evaluation before the worker is killed")


def _visible_gpus() -> int:
    """GPUs this host shows, counted without importing torch in the driver process (0 when a
    CUDA_VISIBLE_DEVICES setting renumbers them: then nothing is pinned)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") is not None:
        return 0
    return len(glob.glob("/dev/nvidia[0-9]*"))


def _int_list(text: str, what: str, example: str) -> tuple[int, ...]:
    """A comma-separated list of integers, or an argparse error naming what it should hold."""
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {what} separated by commas, e.g. {example}") from None


def _gpu_list(text: str) -> tuple[int, ...]:
    gpus = _int_list(text, "CUDA ordinals", "0,1")
    if any(g < 0 for g in gpus) or len(set(gpus)) != len(gpus):
        raise argparse.ArgumentTypeError(f"{text!r}: distinct non-negative CUDA ordinals")
    return gpus


def _sm_counts(text: str) -> tuple[int, ...]:
    counts = _int_list(text, "SM counts", "132")
    if any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: SM counts are positive")
    return tuple(sorted(set(counts)))


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([smh]?)")


def _duration(text: str) -> float:
    m = _DURATION.fullmatch(text.strip())
    seconds = float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)] if m else 0.0
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a positive duration such as 90m, 2h or 3600s "
                                         "(a bare number is seconds)")
    return seconds


def _number(text: str, kind: type, ok: Callable[[Any], bool], what: str):
    """``text`` read as ``kind`` and checked by ``ok``, or an argparse error saying what it should be."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r}: {what}")
    return value


def _positive(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "a whole number, at least 1")


def _seed(text: str) -> int:
    # numpy's generators (Optuna's samplers) take seeds of 0 .. 2**32 - 1: checked here, before a
    # run folder is made, not inside the strategy after it
    return _number(text, int, _seed_in_range, f"a whole number from 0 to {2**32 - 1}")


def _seed_in_range(seed: int) -> bool:
    return 0 <= seed < 2**32


def _seconds(text: str) -> float:
    return _number(text, float, lambda v: math.isfinite(v) and v > 0, "a positive number of seconds")


def _fraction_at_least_zero(text: str) -> float:
    return _number(text, float, lambda v: math.isfinite(v) and v >= 0, "a fraction, 0 or more (0.05 is 5%)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)  # a killed driver still stops its worker
    args.worker_zygote = None  # started by the first _start_runner that asks for one, ended here
    if isolation_wanted({}):
        not_dumpable()  # a candidate's confined launcher may not trace the run's own process
    try:
        return {"evolve": cmd_evolve, "eval": cmd_eval, "show": cmd_show, "compact": cmd_compact,
                "audit": cmd_audit, "compile": cmd_compile,
                "compare-strategies": cmd_compare, "export": cmd_export}[args.command](args)
    except UserError as exc:
        print(f"engine: error: {exc}", file=sys.stderr)
        return 2
    except (HarnessChanged, GpuUnhealthy) as exc:  # the run stops; what it recorded stays
        print(f"engine: stopped: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        # only evolve has results on disk to go on from; the other commands just stop
        said = "stopped"
        if args.command == "evolve":
            said = "results so far are on disk (continue with --resume)"
        print(f"engine: interrupted; {said}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; nothing is wrong with the run
        sys.stdout = None  # type: ignore[assignment]
        return 0
    finally:
        if args.worker_zygote is not None:
            args.worker_zygote.stop()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _load(path: Path) -> tuple[Template, object]:
    template = load_template(path)
    space = template.load_space()
    template.check_holes(space)
    template.check_problem(space)
    unread = template.unread_genes(space)
    if unread:  # allowed (a gene declared before the template reads it), said
        print(f"engine: note: {template.path} reads no gene {unread} of {template.space_path.name}: each of "
              "its values builds the same kernel", file=sys.stderr)
    return template, space


def _start_runner(args, template: Template, workdir: Path, log: Path,
                  gpus: tuple[int, ...] | None = None, zygote_log: Path | None = None) -> tuple[RunnerPool, bool]:
    """The command's workers, started, with its compile-ahead workers where it builds ahead.
    ZYGOTE_LOG: where the command starts workers again and again (evolve restarts one after each
    crash, audit one a row), the log of a zygote they are then forked from (evaluators/zygote.py),
    started with the first runner and ended with the command (main)."""
    # After a fault the fresh worker must first pass the PyTorch path (verification only), so
    # a sick GPU stops the run instead of failing every candidate after it.
    canary = template.request(None, builtin="torch_reference", bench=False)
    gpus = gpus or getattr(args, "gpus", None)
    if gpus:  # one worker per GPU, each with its own log
        runners = [WorkerRunner(workdir, log.with_name(f"{log.stem}-gpu{g}{log.suffix}"), device="cuda",
                                timeout_s=args.timeout_s, gpu_index=g, canary=canary) for g in gpus]
    else:
        runners = [WorkerRunner(workdir, log, device=args.device, timeout_s=args.timeout_s, canary=canary)]
    runner = RunnerPool(runners)
    zygote = getattr(args, "worker_zygote", None)
    if zygote_log is not None and zygote is None:
        # its imports run beside the first workers' own: they start as new interpreters (and show
        # what a fork on their device must see), every later one is forked from it
        zygote = args.worker_zygote = Zygote.for_workers(runners[0].worker_env(), zygote_log)
    if zygote is not None:
        runner.use_zygote(zygote)
    try:  # whatever stops the start (a refusal below, Ctrl-C) leaves no worker running
        return runner, _start_checked(args, template, runner, gpus, workdir, log)
    except BaseException:
        runner.stop()
        raise


def _start_checked(args, template: Template, runner: RunnerPool, gpus: tuple[int, ...] | None, workdir: Path,
                   log: Path) -> bool:
    """Start the pool's workers (and compile-ahead workers) and refuse a machine the template
    cannot run on; whether the rows are CPU rows (Triton's interpreter)."""
    try:
        env = runner.start()
    except RuntimeError as exc:
        raise UserError(str(exc)) from None
    workers = getattr(args, "compile_workers", 0)  # evolve only; eval and audit time one genome
    if env["device_kind"] == "cuda" and workers != 0:
        if workers is None:
            workers = max(0, min(8, (os.cpu_count() or 1) - 2 * len(runner.runners) - 2))
        if workers:
            _attach_compile_ahead(runner, workers, gpus, workdir, log, args.timeout_s)
    if (args.device == "cuda" or gpus) and env["device_kind"] != "cuda":
        asked = f"--gpus {','.join(map(str, gpus))}" if gpus else "--device cuda"
        raise UserError(f"{asked}, but the worker found no CUDA GPU")
    if template.language == "cuda" and env["device_kind"] != "cuda":
        raise UserError(f"{template.path}: a CUDA template runs only on a CUDA GPU and this machine has none; "
                        f"`python -m engine compile {template.path} [--genome JSON]` builds a genome here")
    if template.language == "cuda":  # refused before any attempt, not failed once a genome
        for i, worker_env in enumerate(runner.envs):
            why = unsupported_gpu(worker_env)
            if why:
                where = f"GPU {gpus[i]}" if gpus else "the worker's GPU"
                raise UserError(f"{template.path}: {why} ({where})")
    if not template.interpreter and env["device_kind"] != "cuda":
        raise UserError(f"{template.path}: this template's kernels do not run under the Triton interpreter "
                        f"(front matter interpreter = false) and this machine has no CUDA GPU")
    return env["device_kind"] == "cpu"


def _fixed_genes(space, items: list[str]) -> dict:
    """--fix GENE=VALUE items as gene values, each checked against the space."""
    fixed, fixed_text = {}, {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UserError(f"--fix {item!r}: expected GENE=VALUE")
        if name in fixed:
            raise UserError(f"--fix {name}: given twice ({fixed_text[name]!r} and {item!r}); a gene holds one value")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text  # a bare word: a categorical value such as heads_by_rows
        if text in ("True", "False") and name in space.gene_names and space.gene(name).kind == "bool":
            value = text == "True"  # Python's spelling of a boolean (JSON's is true / false)
        fixed[name], fixed_text[name] = value, item
    try:
        space.restrict(fixed)
    except InvalidGenome as exc:
        raise UserError(f"--fix: {exc}") from None
    return fixed


def _attach_compile_ahead(runner: RunnerPool, workers: int, gpus, workdir: Path, log: Path,
                          timeout_s: float) -> None:
    ahead = CompileAhead([
        WorkerRunner(workdir.with_name(f"{workdir.name}-compile"), log.with_name(f"compile-{i}.log"),
                     device="cuda", timeout_s=timeout_s, compile_only=True,
                     gpu_index=gpus[i % len(gpus)] if gpus else None)
        for i in range(workers)])
    try:
        runner.attach(ahead)  # which stops them all when one fails to start
    except RuntimeError as exc:  # an optimisation: the run goes on without it
        print(f"engine: compile-ahead off: {exc}", file=sys.stderr)


def cmd_evolve(args) -> int:
    # the limit counts from the command's start: the workers' start and the baselines count too
    deadline = time.monotonic() + args.time_limit if args.time_limit else None
    template, space = _load(args.template)
    if args.resume and args.out is None:
        raise UserError("--resume needs --out naming the run folder to continue")
    if args.gpus and args.device == "cpu":
        raise UserError("--gpus names GPUs; it does not apply with --device cpu")
    if args.compile_workers is not None and args.compile_workers < 0:
        raise UserError(f"--compile-workers {args.compile_workers}: a count, 0 or more")
    if not 0.0 <= args.inject_faults <= 1.0:
        raise UserError(f"--inject-faults {args.inject_faults}: a rate between 0 and 1")
    given = parse_objectives(args.objectives) if args.objectives is not None else None
    args.storage_named = bool(args.storage)  # on the command line, rather than the run's own
    run_dir = args.out or default_run_dir(template)
    fixed = _fixed_genes(space, args.fix) if args.fix else None
    fresh = not args.resume and is_unused(run_dir)
    # checked before the lock too: a refused run leaves the folder as it found it, without a lock file
    if args.resume:
        recorded = check_resume(run_dir, template, fixed, args.e2e, given)
        # what the command leaves out, the run's own: a resume after --time-limit or Ctrl-C goes on
        # to the same budget, over the same objectives, in the same Optuna study, with the search
        # (and the LLM endpoint) its last session had
        given = given or tuple(recorded.objectives) or None
        args.budget = args.budget or recorded.budget or None
        args.storage = args.storage or recorded.storage or None
        search = recorded.search or {"strategy": recorded.strategy, "seed": recorded.seed}
        where = str(run_dir / "run.json")
        if args.strategy is None:
            args.strategy = search.get("strategy")
            if args.strategy not in (*STRATEGIES, "llm"):
                raise UserError(f"{where}: search.strategy {args.strategy!r} is no strategy of this engine; "
                                "name one with --strategy")
        if args.seed is None:
            args.seed = search.get("seed")
            if not isinstance(args.seed, int) or isinstance(args.seed, bool) or not _seed_in_range(args.seed):
                raise UserError(f"{where}: search.seed {args.seed!r} is not a seed; name one with --seed")
        if args.strategy == "llm":
            llm_options.take_recorded(args, search.get("llm", {}), where)
    elif args.llm_forget:
        raise UserError("--llm-forget applies to --resume: a new run takes no options from a run before it")
    args.strategy = args.strategy or DEFAULT_STRATEGY
    args.seed = 0 if args.seed is None else args.seed
    llm_options.check(args)
    numeric = _numeric_strategy(args)
    # a storage the run noted stays noted (a later Optuna session goes on in its study) and is
    # unused by this one; only one the command names is refused
    if args.storage_named and numeric not in OPTUNA_STRATEGIES:
        raise UserError(f"--storage applies to the Optuna strategies, not to {numeric}")
    objectives = given or ("score",)
    args.budget = args.budget or 150
    if numeric == "cmaes" and len(objectives) > 1:
        raise UserError("--strategy cmaes optimises one objective; use nsga2, nsga3, tpe, gp or ga")
    if not args.resume:
        make_run_dir(run_dir)
    # held from the checks on: of two new runs on one folder, the second is refused before it writes
    # run.json, and a resume reads the config no other process is writing
    with run_lock(run_dir):
        config = open_run(run_dir, template, args.strategy, args.seed, args.resume, fixed, args.e2e)
        before, parts = config, set(run_dir.glob("part-*.parquet"))
        search = {"strategy": args.strategy, "seed": args.seed, "llm": llm_options.noted(args)}
        config = note_session(run_dir, objectives, args.budget, args.storage, search)
        try:
            return _evolve(args, template, space, run_dir, config, objectives, deadline)
        except UserError:
            # refused before its first attempt (a storage or a worker that cannot start): a new run
            # leaves no folder behind; a resumed one keeps the notes of the session that last ran,
            # not of this one, so that the next plain --resume does not follow a search that never
            # ran (a run with new rows keeps this session's)
            if fresh and not any(run_dir.glob("part-*.parquet")):
                shutil.rmtree(run_dir, ignore_errors=True)
            elif args.resume and set(run_dir.glob("part-*.parquet")) == parts:
                note_session(run_dir, tuple(before.objectives), before.budget, before.storage, before.search)
            raise


def _require_layer(objectives: list[str], config) -> None:
    if "e2e" in objectives and not config.e2e:
        raise UserError("--objectives e2e: the run times no decode layer; pass --e2e")


def _evolve(args, template: Template, space, run_dir: Path, config, objectives: list[str],
            deadline: float | None) -> int:
    # settled now, unless the default may still turn the layer on once the workers say where genomes
    # run (below): a new run, no --no-e2e, and maybe a GPU
    settled = args.e2e is False or args.resume or args.device == "cpu"
    if settled:
        _require_layer(objectives, config)
    space = searched_space(run_dir, space, config.fixed)
    records = read_records(run_dir) if args.resume else []
    numeric = _numeric_strategy(args)
    options: dict = {}
    if numeric in OPTUNA_STRATEGIES:
        options = {"storage": args.storage or str(run_dir / "optuna.journal"), "study_name": config.run_id,
                   "directions": len(objectives)}
    elif numeric == "ga":
        options = {"objectives": len(objectives)}
    try:
        strategy = make_strategy(numeric, space, args.seed, options)
    except StorageError as exc:
        where = "--storage" if args.storage_named else "the run's Optuna storage"
        raise UserError(f"{where}: {exc}") from None
    chat = llm_options.client(args) if args.strategy == "llm" else None  # a missing openai package: before any worker
    integrity = HarnessIntegrity()
    runner, cpu_rows = _start_runner(args, template, run_dir / "kernels", run_dir / "worker.log",
                                     zygote_log=run_dir / "zygote.log")
    config = set_build_target(run_dir, runner.build_target)  # before the first row: export builds as timed
    if chat is not None:
        brief = build_brief(template, runner.envs[0].get("gpu", ""), args.llm_context)
        strategy = LlmStrategy(space, args.seed, chat=chat, brief=brief, transcript=Transcript(run_dir / "llm"),
                               partner=strategy, batch=args.llm_batch, calls=args.llm_calls,
                               patience=args.llm_patience,
                               regions=template.regions)
    try:
        if args.e2e is None and not args.resume and not cpu_rows and template.has_decode_layer:
            config = set_e2e(run_dir, True)  # what a model gets, on the card the rows are timed on
            print("engine: each genome also runs inside the decode layer (on a GPU by default; --no-e2e leaves "
                  "it out)", file=sys.stderr)
        _require_layer(objectives, config)
        print(f"run folder {run_dir}  ({'Triton interpreter on CPU' if cpu_rows else 'GPU'}; "
              f"{len(records)} earlier rows)", file=sys.stderr)
        if args.resume and (args.strategy, args.seed) != (config.strategy, config.seed):
            # allowed (a run may go on with another search), said: run.json and `show` keep the first
            print(f"engine: resumed with --strategy {args.strategy} --seed {args.seed}; the run began with "
                  f"{config.strategy}, seed {config.seed} (each row records its own strategy)", file=sys.stderr)
        injector = (FaultInjector(args.inject_faults, args.seed, "cpu" if cpu_rows else "cuda", template.language)
                    if args.inject_faults else None)
        loop = EvolveLoop(template, space, strategy, runner, ResultsWriter(run_dir, config.run_id),
                          args.budget, cpu_rows, integrity=integrity, injector=injector, objectives=objectives,
                          e2e=config.e2e, ask_ahead=args.ask_ahead, deadline=deadline)
        loop.restore(records)
        loop.run()
        if len(objectives) > 1:  # derived from the Parquet rows; rewritten whole each time
            write_whole(run_dir / "pareto.json",
                        json.dumps({"objectives": objectives, "front": loop.pareto()}, indent=1) + "\n", "the Pareto front")
    finally:
        runner.stop()
    show(run_dir, sys.stdout)
    return 0


def _numeric_strategy(args) -> str:
    """The strategy made by name: --strategy, or with the llm strategy its partner."""
    return args.llm_partner if args.strategy == "llm" else args.strategy


def _genome_arg(space, template: Template, genome_arg: str | None, code_arg: Path | None = None) -> Genome:
    """The --genome argument (the space's default when absent) and the --code file, validated
    against the space and the template's regions; a fault is named by where it came from:
    `--genome`, `--genome FILE` or `--code FILE`."""
    code = _code_file(code_arg) if code_arg else None
    problems = code_violations(code or {}, template.regions)
    if problems:
        raise UserError(f"--code {code_arg}: " + "; ".join(problems))
    # with no --genome, a fault is the space file's own: its defaults break its constraints
    params, where = space.default_params(), f"{template.space_path}: the space's default genome"
    try:
        if genome_arg is not None:
            text, where = _genome_text(genome_arg)
            params = complete(space, parse_params(text, where))
        return Genome.make(space, params, template.content_hash, code, template.regions)
    except InvalidGenome as exc:
        raise UserError(f"{where}: {exc}") from None
    except ValueError as exc:  # parse_params names `where` itself
        raise UserError(str(exc)) from None


def _code_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--code", type=Path, metavar="FILE",
                        help="JSON object of new text for the template's code regions, by region (an LLM "
                             "genome's code_json, as its row keeps it); regions not named keep the template's")


def _code_file(path: Path) -> dict[str, str]:
    try:
        code = json.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"--code {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"--code {path}: not JSON: {exc}") from None
    if not isinstance(code, dict):
        raise UserError(f"--code {path}: a JSON object of region name -> text, not {type(code).__name__}")
    return code


def cmd_compile(args) -> int:
    template, space = _load(args.template)
    if template.language != "cuda":
        raise UserError(f"{template.path}: language {template.language!r}; compile builds CUDA templates "
                        f"(Triton compiles at its first call: use eval)")
    genome = _genome_arg(space, template, args.genome, args.code)
    params = genome.params
    try:
        source = template.render(params, genome.code or None,
                                 target=BuildTarget(args.sm_counts) if args.sm_counts else None)
    except RenderError as exc:
        raise UserError(str(exc)) from None
    try:
        static_check_cuda(source)
    except Rejection as rejection:  # a cheat is not worth compiling
        print(json.dumps({"genome_id": genome.genome_id, "params": params, "status": rejection.status.value,
                          "error": str(rejection)}, indent=1))
        return 1
    try:
        args.cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--cache {args.cache}: cannot make this folder: {exc.strerror or exc}") from None
    try:
        build = compile_cuda(source, args.cache)
    except FileNotFoundError as exc:
        raise UserError(f"compile needs nvcc: {exc}") from None
    faults = _launch_faults(source, Path(build.cubin)) if build.ok else []
    status = "ok" if build.ok and not faults else "compile_error"
    if status == "ok":
        try:
            static_check_cubin(Path(build.cubin), source)
        except Rejection as rejection:  # as the worker's compile stage would refuse it
            status, faults = rejection.status.value, [str(rejection)]
    ok = status == "ok"
    print(json.dumps({"genome_id": genome.genome_id, "params": params, "code_regions": sorted(genome.code),
                      "status": status, "nvcc": nvcc_version(),
                      "arch": "sm_90a", "build_key": build.key, "cubin": build.cubin,
                      # the rendered source nvcc read: what the error's line numbers and the SASS refer to
                      "source": str(args.cache / build.key / "kernel.cu"),
                      "compile_s": round(build.seconds, 3), "cache_hit": build.cache_hit,
                      **build.totals(), "kernels": [k.__dict__ for k in build.kernels],
                      "compiler_notes": list(build.notes()),
                      "error": None if ok else "; ".join(faults) or build.excerpt(2000)}, indent=1))
    return 0 if ok else 1


def _launch_faults(source: str, cubin: Path) -> list[str]:
    """What the worker's compile stage types as this genome's compile_error although nvcc built
    it: a launch line the launcher cannot read, or kernels whose parameters (the cubin's record of
    their sizes) are not what the launcher passes (evaluators/harness.py, _check_parameters)."""
    from evaluators.cubin_elf import kernel_parameter_sizes
    from evaluators.sparse_mla_cuda import ContractError, parameter_size_faults, parse_contract

    try:
        contract = parse_contract(source)
    except ContractError as exc:
        return [str(exc)]
    return parameter_size_faults(contract, kernel_parameter_sizes(cubin))


def cmd_eval(args) -> int:
    template, space = _load(args.template)
    genome = _genome_arg(space, template, args.genome, args.code)
    with tempfile.TemporaryDirectory(prefix="kg-eval-") as tmp:
        writer = ResultsWriter(Path(tmp) / "run", "eval")
        runner, cpu_rows = _start_runner(args, template, Path(tmp) / "kernels", Path(tmp) / "worker.log")
        try:
            loop = EvolveLoop(template, space, make_strategy("random", space, 0), runner, writer, 1, cpu_rows,
                              e2e=args.e2e)
            record = (loop.evaluate_reference(genome.params) if args.reference
                      else loop.attempt(Proposal(genome.params, "eval", code=genome.code or None)))
        finally:
            runner.stop()
    print(json.dumps(record, default=str, indent=1))
    return 0 if record["status"] == "ok" else 1


def _genome_text(arg: str) -> tuple[str, str]:
    """The genome's JSON text and the name of its source for errors."""
    if arg.lstrip().startswith("{"):
        return arg, "--genome"
    path = Path(arg)
    if not path.is_file():
        raise UserError(f"--genome {arg}: neither a JSON object nor an existing file")
    try:
        return path.read_text(), f"--genome {path}"
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--genome {path}: unreadable as text: {exc}") from None


def cmd_audit(args) -> int:
    def fresh_runner(template: Template, folder: Path, device_index: int | None) -> RunnerPool:
        pin = device_index is not None and args.device != "cpu" and device_index < _visible_gpus()
        return _start_runner(args, template, folder / "kernels", folder / "worker.log",
                             gpus=(device_index,) if pin else None,  # the card that timed the row
                             zygote_log=folder.parent / "zygote.log")[0]

    return 1 if audit(args.run_dir, args.top, fresh_runner, sys.stdout) else 0


def cmd_compare(args) -> int:
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown or not names:
        raise UserError(f"--strategies: unknown {unknown or names}; choose from {sorted(STRATEGIES)}")
    if not 0 < args.threshold < 1:
        raise UserError(f"--threshold {args.threshold}: a fraction between 0 and 1")
    png = args.png or Path("results") / f"compare-{args.sweep.name}.png"
    if png.suffix.lower() != ".png":  # matplotlib would pick the format by it, or add .png unsaid
        raise UserError(f"--png {png}: a .png file name")
    sweep = load_sweep(args.sweep, args.template, args.objective)
    results, base_median, base_curve = compare(
        sweep, names, args.budget, args.seeds, args.threshold,
        progress=lambda line: print(line, file=sys.stderr, flush=True))
    report(results, base_median, sweep, args.budget, args.seeds, args.threshold, sys.stdout)
    try:
        png.parent.mkdir(parents=True, exist_ok=True)
        plot(results, base_curve, sweep, png)
    except OSError as exc:  # the table above is printed: only the plot is lost
        raise UserError(f"--png {png}: cannot write the plot: {exc.strerror or exc}") from None
    print(f"plot: {png}")
    return 0


def cmd_show(args) -> int:
    show(args.run_dir, sys.stdout, args.top)
    return 0


def cmd_export(args) -> int:
    export(args.run_dir, args.out or args.run_dir / "export", sys.stdout, args.default, args.min_gain)
    return 0


def cmd_compact(args) -> int:
    if not (args.run_dir / "run.json").is_file():
        raise UserError(f"{args.run_dir}: not a run folder (no run.json)")
    with run_lock(args.run_dir):
        merged, rows, part = compact(args.run_dir)
    if merged <= 1:
        print(f"{args.run_dir}: {'one part' if merged else 'no parts'} ({rows} rows); nothing to merge")
    else:
        print(f"{args.run_dir}: {merged} parts merged into {part.name} ({rows} rows)")
    return 0
