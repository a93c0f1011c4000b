"""Does a change of a CUDA template change any genome's machine code? For each genome (the space's
default, N seeded samples of its space, and any named in a JSON file) this renders the template as
it is and as it was at a git revision, builds both for sm_90a with the local nvcc, and compares
their SASS instruction for instruction (cuobjdump -sass); it also prints the compiler's notes of
the current builds (warnings, ptxas's performance advisories). No GPU needed: a change whose SASS
is the same for every genome keeps every figure measured on the old text.

Usage: python scripts/sass_diff.py TEMPLATE.cu.j2 [--base REV | --base-file OLD.cu.j2] [--samples N]
                                   [--seed S] [--genomes FILE.json] [--workers N] [--cache DIR]
FILE.json: {"name": {"GENE": value, ...}, ...}, each over the space's defaults.
Exit status: 0 when every genome's SASS is the same, 1 when some differ or fail to build, 2 for a
bad argument.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.errors import UserError  # noqa: E402
from engine.template import RenderError, load_template, render_text  # noqa: E402
from evaluators.cuda_compile import CompileAhead, cuobjdump_path  # noqa: E402
from evaluators.static_cuda import disassemble  # noqa: E402


def base_text(template: Path, rev: str) -> str:
    rel = template.resolve().relative_to(REPO)
    done = subprocess.run(["git", "show", f"{rev}:{rel.as_posix()}"], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise UserError(f"--base {rev}: {rel} not there ({done.stderr.strip()})")
    return done.stdout


def genomes(space, samples: int, seed: int, named: Path | None) -> dict[str, dict]:
    chosen = {"default": space.default_params()}
    if named is not None:
        try:
            entries = json.loads(named.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"--genomes {named}: {exc}") from None
        if not isinstance(entries, dict):
            raise UserError(f"--genomes {named}: a JSON object of name -> genes")
        for name, genes in entries.items():
            params = {**space.default_params(), **genes}
            if not space.is_valid(params):
                raise UserError(f"--genomes {named}: {name}: {'; '.join(space.violations(params))}")
            chosen[name] = params
    rng = random.Random(seed)
    for i in range(samples):
        chosen[f"sample{i}"] = space.sample(rng)
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template", type=Path)
    ap.add_argument("--base", default="HEAD", help="git revision of the old text (default HEAD)")
    ap.add_argument("--base-file", type=Path, help="the old text from this file instead")
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--genomes", type=Path)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=REPO / "build" / "sass-diff")
    args = ap.parse_args(argv)
    try:
        template = load_template(args.template)
        if template.language != "cuda":
            raise UserError(f"{args.template}: language {template.language!r}; this compares CUDA builds")
        if args.base_file is not None:
            args.base = str(args.base_file)
            try:
                old = args.base_file.read_text()
            except OSError as exc:
                raise UserError(f"--base-file {args.base_file}: {exc}") from None
        else:
            old = base_text(args.template, args.base)
        if cuobjdump_path() is None:
            raise UserError("cuobjdump not found (PATH, beside nvcc, or in the triton package)")
        chosen = genomes(template.load_space(), args.samples, args.seed, args.genomes)
    except UserError as exc:
        print(f"sass_diff: error: {exc}", file=sys.stderr)
        return 2
    pairs = {}
    for name, params in chosen.items():
        new_source = template.render(params)
        try:
            old_source = render_text(old, params, f"{args.template}@{args.base}")
        except RenderError as exc:
            old_source = exc
        pairs[name] = (new_source, old_source)
    ahead = CompileAhead(args.cache, workers=args.workers)
    try:
        for new_source, old_source in pairs.values():
            ahead.submit(new_source)
            if isinstance(old_source, str):
                ahead.submit(old_source)
        verdicts, notes = Counter(), Counter()
        for name, (new_source, old_source) in pairs.items():
            new = ahead.result(new_source)
            notes.update(new.notes())
            if not new.ok:
                verdict = "does not build now: " + new.excerpt(300).replace("\n", " ")
            elif not isinstance(old_source, str):
                verdict = f"did not render at {args.base}: {old_source}"
            elif new_source == old_source:
                verdict = "same"
            else:
                old_build = ahead.result(old_source)
                if not old_build.ok:
                    verdict = f"did not build at {args.base}"
                elif disassemble(Path(new.cubin)) == disassemble(Path(old_build.cubin)):
                    verdict = "same"
                else:  # what moved with it: the figures a record keeps
                    was, now = old_build.totals(), new.totals()
                    moved = ", ".join(f"{k} {was[k]} -> {now[k]}" for k in now if was[k] != now[k])
                    verdict = "SASS differs" + (f" ({moved})" if moved else "")
            verdicts[verdict.split(":")[0].split(" (")[0]] += 1
            if verdict != "same":
                print(f"{name}: {verdict}  {json.dumps(chosen[name], sort_keys=True)}")
    finally:
        ahead.close()
    print(f"{len(pairs)} genomes against {args.base}: " + ", ".join(f"{v} {n}" for v, n in verdicts.most_common()))
    for note, n in notes.most_common():
        print(f"  note on {n}: {note}")
    return 0 if set(verdicts) == {"same"} else 1


if __name__ == "__main__":
    sys.exit(main())
