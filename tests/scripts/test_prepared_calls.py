"""The device calls prepared for the next session with a device (docs/diagnostics/PREPARED) still
apply to main: a template change since they were written must not cost a call's device time. Each
listed script exists, every repository path it names exists, every diff it applies (`patch -p1 <
X.diff`, an unmerged change a call measures) applies to main's files, every variants file it names
parses against today's template (with those diffs applied, in a copy), and each variant renders
with its edits (each old text found once)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from engine.template import load_template
from tests.scripts._device_script import load_device_script

REPO = Path(__file__).resolve().parents[2]
PREPARED = REPO / "docs" / "diagnostics" / "PREPARED"
PATH = re.compile(r"(?<![\w/.$])((?:docs|scripts|tests|templates)/[\w./-]*\w)")


def prepared_calls() -> list[str]:
    lines = PREPARED.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def named_paths(script: Path) -> list[str]:
    text = "\n".join(line.split("#", 1)[0] for line in script.read_text().splitlines())
    return sorted(set(PATH.findall(text)))


def test_the_path_pattern_finds_what_a_call_names(tmp_path):
    script = tmp_path / "call.sh"
    script.write_text("# docs/not/read.json in a comment\n"
                      "bash scripts/device/in_graph_call.sh 3 docs/d/v.json 1,8\n"
                      "python3 -m pytest tests/gpu/test_x.py -k x > \"$OUT/tests/log\"\n")
    assert named_paths(script) == ["docs/d/v.json", "scripts/device/in_graph_call.sh", "tests/gpu/test_x.py"]


def patched_copy(script: Path, tmp_path: Path) -> Path:
    """A copy of the repository's templates and spaces with the script's diffs applied (patch -p1, as
    the call does), or the repository itself when it applies none."""
    diffs = [REPO / p for p in named_paths(script) if p.endswith(".diff")]
    if not diffs:
        return REPO
    root = tmp_path / "patched"
    for folder in ("templates", "genomes"):
        shutil.copytree(REPO / folder, root / folder)
    for diff in diffs:
        touched = re.findall(r"^\+\+\+ b/(\S+)", diff.read_text(), re.M)
        for rel in touched:  # the diff's other files (tests, ...) as they are on main
            if not (root / rel).exists():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / rel, root / rel)
        done = subprocess.run(["patch", "-p1", "--forward", "-i", str(diff)], cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, f"{diff.relative_to(REPO)} no longer applies to main: {done.stdout}{done.stderr}"
    return root


def variant_language(script: Path) -> str | None:
    """The one language the script's variants may have: time_cuda_genomes.py (and the same-call
    table that runs it) times a Gluon variant, a "template" of its own, beside CUDA ones; the
    other device scripts run CUDA genomes only."""
    uses = named_paths(script)
    return None if {"scripts/device/time_cuda_genomes.py", "scripts/device/same_call_table.sh"} & set(uses) else "cuda"


@pytest.mark.parametrize("call", prepared_calls())
def test_a_prepared_call_applies_to_main(call, tmp_path):
    script = REPO / call
    assert script.is_file(), f"{PREPARED}: {call} does not exist"
    missing = [p for p in named_paths(script) if not (REPO / p).exists()]
    assert not missing, f"{call} names paths that do not exist: {missing}"
    load_variants = load_device_script("variants.py").load_variants
    template = load_template(patched_copy(script, tmp_path) / "templates" / "sparse_mla.cu.j2")
    for path in named_paths(script):
        if path.endswith(".json"):
            variants = load_variants(REPO / path, template, language=variant_language(script))
            assert variants, f"{path}: no variant"
            for variant in variants.values():
                kernel = "__global__" if variant.template.language == "cuda" else "jit"
                assert kernel in variant.render(), f"{path}: {variant.name!r} rendered no kernel"


def run_prepared(tmp_path: Path, calls: dict[str, str], budget: int, listing_head: str = "") -> tuple[Path, list[Path]]:
    """scripts/device/run_prepared.sh over real scripts (name -> body), listed in that order after
    `listing_head`, with `budget` seconds: ($OUT, the scripts' paths), the run checked to exit 0."""
    out = tmp_path / "out"
    out.mkdir()
    scripts = []
    for name, body in calls.items():
        scripts.append(tmp_path / f"{name}.sh")
        scripts[-1].write_text(body)
    listing = tmp_path / "PREPARED"
    listing.write_text(listing_head + "".join(f"{script}\n" for script in scripts))
    staging = tmp_path / "staging"  # where mktemp puts the script's staging folder (TMPDIR)
    staging.mkdir()
    done = subprocess.run(["bash", str(REPO / "scripts" / "device" / "run_prepared.sh"), str(budget)], cwd=REPO,
                          env={"PATH": "/usr/bin:/bin", "OUT": str(out), "PREPARED": str(listing),
                               "TMPDIR": str(staging)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not any(staging.iterdir()), "the staging folder was left behind"
    # the device tool brings back at most 8 files: everything comes back packed in one archive,
    # beside the log
    assert sorted(p.name for p in out.iterdir()) == ["prepared.log", "prepared.tar.gz"]
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    with tarfile.open(out / "prepared.tar.gz") as archive:
        archive.extractall(unpacked, filter="data")
    assert (unpacked / "prepared.log").read_text() == (out / "prepared.log").read_text()
    return unpacked, scripts


def test_run_prepared_runs_each_call_in_order_past_a_failing_one(tmp_path):
    """scripts/device/run_prepared.sh on a list of real scripts: each runs, a failing one does not
    stop the next, each call's output and exit status are logged, comment and blank lines skipped."""
    out, (first, second) = run_prepared(tmp_path, {"first": 'echo one >> "$OUT/order"; exit 3\n',
                                                   "second": 'echo two >> "$OUT/order"; echo printed\n'},
                                        120, listing_head="# a comment\n\n")
    assert (out / "order").read_text().split() == ["one", "two"]
    log = (out / "prepared.log").read_text().splitlines()
    assert [line.split(": ")[0] for line in log] == [str(first), str(second)]
    assert "rc 3 " in log[0] and "rc 0 " in log[1]
    assert (out / "second.log").read_text().strip() == "printed"


def test_a_call_that_reads_its_input_does_not_swallow_the_calls_after_it(tmp_path):
    """A call that reads its standard input (pip, a tool asking a question) gets nothing, neither
    the rest of the list (which it once swallowed, so that later calls silently did not run) nor a
    terminal to wait on."""
    out, _ = run_prepared(tmp_path, {"reader": 'cat > "$OUT/read"\n', "after": 'echo ran > "$OUT/after"\n'}, 120)
    assert (out / "read").read_text() == ""
    assert (out / "after").read_text().strip() == "ran"


def test_run_prepared_skips_what_its_budget_no_longer_covers(tmp_path):
    out, _ = run_prepared(tmp_path, {"call": 'echo ran >> "$OUT/ran"\n'}, 30)
    assert not (out / "ran").exists()
    assert "not run" in (out / "prepared.log").read_text()


def test_each_call_is_told_the_seconds_it_has(tmp_path):
    """A call that divides its time among steps reads CALL_SECONDS: what is left of the budget when
    it starts (the sixty-ninth session's call 5 assumed 470 s under a 290 s budget and was stopped
    whole, its tests' summary lost)."""
    out, _ = run_prepared(tmp_path, {"first": 'echo "$CALL_SECONDS" > "$OUT/first"\n',
                                     "second": 'echo "$CALL_SECONDS" > "$OUT/second"\n'}, 120)
    first, second = (int((out / name).read_text()) for name in ("first", "second"))
    assert 110 <= first <= 120 and first - 10 <= second <= first


def test_what_calls_write_comes_back_in_one_archive_however_many_files(tmp_path):
    """Four prepared calls write about 15 files, and the device tool returns at most 8 from $OUT:
    the forty-eighth session lost its fourth call's logs and timings that way."""
    writes = "".join(f'echo {i} > "$OUT/file{i}.txt"\n' for i in range(12))
    out, _ = run_prepared(tmp_path, {"many": writes, "folder": 'mkdir -p "$OUT/sub" && echo deep > "$OUT/sub/f"\n'}, 120)
    assert [(out / f"file{i}.txt").read_text().strip() for i in range(12)] == [str(i) for i in range(12)]
    assert (out / "sub" / "f").read_text().strip() == "deep"


def test_a_run_stopped_by_the_device_limit_still_packs_what_ran(tmp_path):
    """The device tool stops a command at its limit with SIGTERM to its process group: the files of
    the calls that ran so far still come back, and no later call starts."""
    out, staging = tmp_path / "out", tmp_path / "staging"  # the staging folder from mktemp, under TMPDIR
    out.mkdir()
    staging.mkdir()
    first, second = tmp_path / "first.sh", tmp_path / "second.sh"
    first.write_text('echo $$ > "$OUT/first"; exec sleep 60\n')  # stands for a call still running
    second.write_text('echo ran > "$OUT/second"\n')
    listing = tmp_path / "PREPARED"
    listing.write_text(f"{first}\n{second}\n")
    run = subprocess.Popen(["bash", str(REPO / "scripts" / "device" / "run_prepared.sh"), "120"], cwd=REPO,
                           env={"PATH": "/usr/bin:/bin", "OUT": str(out), "PREPARED": str(listing),
                                "TMPDIR": str(staging)},
                           start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not list(staging.glob("*/first")):  # the first call is running
            assert time.monotonic() < deadline and run.poll() is None, "the first call never wrote its file"
            time.sleep(0.05)
        os.killpg(run.pid, signal.SIGTERM)
        assert run.wait(timeout=30) == 143
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    with tarfile.open(out / "prepared.tar.gz") as archive:
        names = {Path(name).name for name in archive.getnames()}
        pid = int(archive.extractfile("./first").read())
    assert "first" in names and "second" not in names
    assert not any(staging.iterdir()), "the staging folder was left behind"
    with pytest.raises(ProcessLookupError):  # the running call was stopped too, not left behind
        os.kill(pid, 0)
