"""The zygote a command starts for its own workers (evaluators/zygote.py, engine/cli.py): `evolve`
forks the worker it restarts after a crash, `audit` the worker of each row after the first, and
the zygote, its socket and its folder go with the command. Real processes (`python -m engine` on
the small fixture template under the Triton interpreter) with no zygote named in their
environment, as a user's shell has it: the test session's own is taken out."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from evaluators.zygote import ENV as ZYGOTE_ENV

REPO = Path(__file__).resolve().parent.parent
SMALL = "tests/fixtures/templates/sparse_mla_small.triton.j2"


def engine(tmp_path: Path, *args: str, zygote: str | None = None) -> subprocess.CompletedProcess:
    """`python -m engine ARGS` with KG_WORKER_ZYGOTE as given (None: unset), and a temporary
    directory of its own, where a zygote it starts keeps its socket."""
    env = {k: v for k, v in os.environ.items() if k != ZYGOTE_ENV}
    if zygote is not None:
        env[ZYGOTE_ENV] = zygote
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp_path / "tmp")
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


def starts(log: Path) -> list[str]:
    """How each worker of a log started: 'a new interpreter' or 'forked by the zygote'."""
    return re.findall(r"^runner: worker \d+ ready in [\d.]+ s \((.*)\)$", log.read_text(), re.M)


def test_a_search_forks_the_worker_it_restarts_after_a_crash_from_its_own_zygote(tmp_path):
    # seed 2's third injected fault is a crash: the worker dies, and the next genome needs another
    out = tmp_path / "run"
    done = engine(tmp_path, "evolve", SMALL, "--budget", "4", "--device", "cpu", "--strategy", "random",
                  "--seed", "2", "--inject-faults", "1", "--timeout-s", "60", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "injected faults: 4, 4 with the expected status" in done.stdout
    how = starts(out / "worker.log")
    # the first worker starts while the zygote imports torch beside it; the one after the crash forks
    assert how[0] == "a new interpreter" and how[1:] and set(how[1:]) == {"forked by the zygote"}, how
    assert (out / "zygote.log").is_file()
    assert not list((tmp_path / "tmp").glob("kg-zygote-*"))  # its folder and socket went with the command


def test_an_audit_forks_each_rows_worker_after_the_first(tmp_path):
    out = tmp_path / "run"
    made = engine(tmp_path, "evolve", SMALL, "--budget", "2", "--device", "cpu", "--strategy", "random",
                  "--out", str(out), zygote=os.environ.get(ZYGOTE_ENV))  # the session's, if any: quicker
    assert made.returncode == 0, made.stderr
    done = engine(tmp_path, "audit", str(out), "--top", "2", "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 of 2 did not reproduce" in done.stdout
    rows = sorted((out / "audit").glob("[0-9]*/worker.log"))
    assert [starts(log) for log in rows] == [["a new interpreter"], ["forked by the zygote"]]
    assert (out / "audit" / "zygote.log").is_file()
    assert not list((tmp_path / "tmp").glob("kg-zygote-*"))
