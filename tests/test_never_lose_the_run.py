"""A run folder under real trouble: the folder taken away mid-run, a lock that cannot be made, a
second run on a folder being made, a run.json whose rewrite fails, a damaged part, a run.json from
a newer engine. Real processes (`python -m engine` on the small fixture template under the Triton
interpreter); each ends in one line naming the file, exit 2."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.run_folder import open_run, read_config
from engine.template import load_template
from evaluators.zygote import ENV as ZYGOTE_ENV

REPO = Path(__file__).resolve().parent.parent
SMALL = "tests/fixtures/templates/sparse_mla_small.triton.j2"


def evolve(out: Path, budget: int, *extra: str, template: str = SMALL) -> list[str]:
    return [sys.executable, "-m", "engine", "evolve", template, "--budget", str(budget), "--device", "cpu",
            "--strategy", "random", "--seed", "1", "--out", str(out), *extra]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("engine: error: ")]
    assert len(errors) == 1 and errors[0] == stderr.splitlines()[-1], stderr
    return errors[0]


def test_a_run_folder_deleted_mid_run_stops_the_run_with_one_line_naming_what_it_lacks(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(evolve(out, 8), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "part-000001.parquet").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        for _ in range(100):  # the run may write a file between rmtree's listing and its rmdir
            shutil.rmtree(out, ignore_errors=True)
            if not out.exists():
                break
        assert not out.exists()
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2, stderr
    line = one_error_line(stderr)
    # which of the run's files it misses first is the deletion's timing: the next part it writes,
    # or run.json when the loop reads its config between batches
    assert str(out) in line, line
    assert ("part-00000" in line and "cannot write the run's next row" in line) or "not a run folder (no run.json)" in line, line


def test_a_relative_out_folder_keeps_the_workers_kernels_under_the_users_directory(tmp_path):
    # the worker runs in the repository: a relative --out once put RUN/kernels there, not in the run
    done = subprocess.run(evolve(Path("rel-run"), 1, template=str(REPO / SMALL)), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    try:
        assert done.returncode == 0, done.stderr
        assert list((tmp_path / "rel-run" / "kernels").glob("kernel_*.py"))
        assert not (REPO / "rel-run").exists()
    finally:
        shutil.rmtree(REPO / "rel-run", ignore_errors=True)


def test_a_run_whose_lock_cannot_be_made_is_refused_in_one_line_by_resume_and_compact(tmp_path):
    # a read-only folder needs a mount or a user other than root; a folder where the lock file
    # should be fails the same os.open
    out = tmp_path / "run"
    assert run(*evolve(out, 1)).returncode == 0
    (out / ".lock").unlink()
    (out / ".lock").mkdir()
    for proc in (run(*evolve(out, 2, "--resume")), run(sys.executable, "-m", "engine", "compact", str(out))):
        assert proc.returncode == 2, proc.stderr
        assert str(out / ".lock") in one_error_line(proc.stderr)
    assert run(sys.executable, "-m", "engine", "show", str(out)).returncode == 0


def test_a_new_run_on_a_folder_another_evolve_is_making_is_refused_before_it_writes_run_json(tmp_path):
    # the first evolve takes the lock before it looks in the folder: a second one started with it
    # once found the folder empty too and wrote its run.json (its seed) over the first's
    out = tmp_path / "run"
    out.mkdir()
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as the first evolve holds it, before its run.json
        proc = run(*evolve(out, 1))
    finally:
        os.close(fd)
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert str(out) in line and "another engine process is writing this run" in line, line
    assert [p.name for p in out.iterdir()] == [".lock"]  # no run.json, no snapshot: the folder is the first's
    # a lock file alone (of a run stopped before its run.json) leaves the folder free for a new run
    assert run(*evolve(out, 1)).returncode == 0
    assert read_config(out).seed == 1 and list(out.glob("part-*.parquet"))


REWRITE_WITH_A_FULL_DISK = """
import resource, signal, sys
from dataclasses import replace
from pathlib import Path
from engine.errors import UserError
from engine.run_folder import read_config, write_config
run = Path(sys.argv[1])
config = read_config(run)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # a disk that fills 64 bytes into any file
try:
    write_config(run, replace(config, seed=config.seed + 1, e2e=True))
except UserError as exc:
    print(f"engine: error: {exc}", file=sys.stderr)
    sys.exit(2)
"""


def test_a_rewrite_of_run_json_that_fails_midway_leaves_the_old_one_whole(tmp_path):
    # a resumed run rewrites run.json (its GPUs, its decode layer); written in place, a disk that
    # fills in the middle would leave a truncated run.json and a run nothing can read
    out = tmp_path / "run"
    config = open_run(out, load_template(REPO / SMALL), "random", 1, resume=False)
    before = (out / "run.json").read_bytes()
    assert len(before) > 64  # the limit falls inside the write
    proc = run(sys.executable, "-c", REWRITE_WITH_A_FULL_DISK, str(out))
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert str(out / "run.json") in line and "File too large" in line, line
    assert (out / "run.json").read_bytes() == before
    assert read_config(out) == config
    assert sorted(p.name for p in out.iterdir()) == ["run.json", "snapshot"]  # no half-written copy left


def test_a_run_json_of_a_newer_schema_is_named_and_nothing_appends_to_it(tmp_path):
    out = tmp_path / "run"
    assert run(*evolve(out, 1)).returncode == 0
    config = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**config, "schema_version": 99}))
    parts = sorted(out.glob("part-*.parquet"))
    for proc in (run(*evolve(out, 2, "--resume")), run(sys.executable, "-m", "engine", "show", str(out))):
        assert proc.returncode == 2, proc.stderr
        line = one_error_line(proc.stderr)
        assert "run.json" in line and "schema_version 99" in line and "newer engine" in line, line
    assert sorted(out.glob("part-*.parquet")) == parts
    (out / "run.json").write_text(json.dumps({**config, "schema_version": 99, "field_of_v99": 1}))
    assert "newer engine" in one_error_line(run(sys.executable, "-m", "engine", "show", str(out)).stderr)


def test_a_part_with_damaged_bytes_is_named_in_one_line_by_every_reader_and_the_others_stay(tmp_path):
    out = tmp_path / "run"
    assert run(*evolve(out, 2)).returncode == 0
    part = out / "part-000001.parquet"
    damaged = part.read_bytes().replace(b"genome_id", b"genome\xffid")  # a column name no longer UTF-8
    assert damaged != part.read_bytes()
    part.write_bytes(damaged)
    engine = (sys.executable, "-m", "engine")
    for proc in (run(*engine, "show", str(out)), run(*engine, "compact", str(out)), run(*evolve(out, 3, "--resume"))):
        assert proc.returncode == 2, proc.stderr
        assert f"{part}: unreadable Parquet part" in one_error_line(proc.stderr)
    assert len(list(out.glob("part-*.parquet"))) == 3


def workers_of(run_dir: Path, log: str = "worker.log") -> list[int]:
    """The processes writing the run's worker log: its workers, whether started as a new
    interpreter (their command line names evaluators.worker) or forked by the zygote (it names the
    zygote's); with LOG zygote.log, the run's own zygote and the reapers it forked."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/fd/2") == str(run_dir / log):
                found.append(int(pid))
        except OSError:  # ended since the listing, or not this user's
            pass
    return found


@pytest.mark.parametrize("zygote", ["off", "the session's", "the run's"])
def test_a_driver_killed_while_its_worker_hangs_leaves_no_worker_behind(tmp_path, zygote):
    # seed 1's first injected fault is a hang: the worker spins in it, and only the driver's
    # timeout (here 300 s) would end it; kill -9 stops the driver before it can
    out = tmp_path / "run"
    env = dict(os.environ)
    if zygote == "off":
        env[ZYGOTE_ENV] = "off"
    elif zygote == "the run's":
        env.pop(ZYGOTE_ENV, None)  # evolve starts one of its own, writing to the run's zygote.log
        env["TMPDIR"] = str(tmp_path)  # where it keeps its socket
    elif ZYGOTE_ENV not in env:
        pytest.skip("the session's worker zygote did not start")
    proc = subprocess.Popen(evolve(out, 3, "--inject-faults", "1", "--timeout-s", "300"), cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (out / "part-000000.parquet").exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # the reference row: the hanging copy of the first genome goes next
        time.sleep(2)
        assert workers_of(out), "no worker running"
        started = Path(f"/proc/{workers_of(out)[0]}/cmdline").read_bytes()
        # started the way this case asks (the run's first worker starts beside its zygote, not from it)
        assert (b"evaluators.zygote" in started) == (zygote == "the session's"), started
        assert bool(workers_of(out, "zygote.log")) == (zygote == "the run's")
        assert (out / "zygote.log").exists() == (zygote == "the run's")  # off: none started
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while (workers_of(out) or workers_of(out, "zygote.log")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not workers_of(out)
        assert not workers_of(out, "zygote.log")  # the run's zygote ends with its driver too
        deadline = time.monotonic() + 10  # and removes its socket's folder, which no stop() will
        while list(tmp_path.glob("kg-zygote-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not list(tmp_path.glob("kg-zygote-*"))
    finally:
        proc.kill()
        for pid in workers_of(out) + workers_of(out, "zygote.log"):
            os.kill(pid, signal.SIGKILL)


def test_ctrl_c_while_the_worker_hangs_ends_the_run_at_once_and_starts_no_worker(tmp_path, ctrl_c_delivered):
    # before, the pool's thread sent the next request on: a new worker started, the canary and a
    # genome ran, and the command ended a genome later (25-27 s under the interpreter)
    out = tmp_path / "run"
    with (tmp_path / "stderr.txt").open("w+") as stderr:
        proc = subprocess.Popen(evolve(out, 3, "--inject-faults", "1", "--timeout-s", "300"), cwd=REPO,
                                stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            deadline = time.monotonic() + 60
            while not (out / "part-000000.parquet").exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # the reference row: seed 1's hanging genome goes next
            time.sleep(2)
            assert workers_of(out), "no worker running"
            proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=20)  # not the hang's 300 s, nor another genome's time
        finally:
            proc.kill()
            proc.wait()
        stderr.seek(0)
        said = stderr.read()
    assert code == 130 and "engine: interrupted" in said and "Traceback" not in said, said
    starts = [line for line in (out / "worker.log").read_text().splitlines() if line.startswith("runner: worker")]
    assert len(starts) == 1, starts
    deadline = time.monotonic() + 10
    while workers_of(out) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not workers_of(out)
