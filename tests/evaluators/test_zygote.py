"""Workers forked by the zygote (evaluators/zygote.py), as the runner starts them where
KG_WORKER_ZYGOTE names one: they evaluate and crash as a new interpreter's worker does, import the
repository's code from the runner's folder, and the runner starts a new interpreter wherever the
zygote cannot serve (gone, or torch imported under other settings)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators import zygote
from evaluators.runner import WorkerRunner

REPO = Path(__file__).resolve().parents[2]


def started_as(tmp_path: Path, device: str) -> type:
    """How a runner's worker is started now: the type of its process (started, then stopped)."""
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device=device, timeout_s=120)
    try:
        r.start()
        return type(r.proc)
    finally:
        r.stop()


@pytest.fixture
def session_zygote():
    if not os.environ.get(zygote.ENV):
        pytest.skip("the session's worker zygote did not start")
    return os.environ[zygote.ENV]


@pytest.mark.parametrize("forked", [True, False], ids=["zygote", "new interpreter"])
def test_a_worker_evaluates_and_its_crash_is_told_by_its_signal_either_way(tmp_path, faulty_request, monkeypatch,
                                                                            session_zygote, forked):
    if not forked:
        monkeypatch.delenv(zygote.ENV)
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        r.start()
        assert isinstance(r.proc, zygote.ZygoteWorker) == forked, open(tmp_path / "w.log").read()
        assert r.evaluate(faulty_request("none"))["status"] == "ok"
        crashed = r.evaluate(faulty_request("crash"))
        assert crashed["status"] == "worker_crash" and "killed by signal SIGSEGV" in crashed["error"], crashed
        assert r.evaluate(faulty_request("none"))["status"] == "ok"  # restarted, the same way
        assert r.restarts == 1 and isinstance(r.proc, zygote.ZygoteWorker) == forked
    finally:
        r.stop()
    assert not zygote.ZygoteWorker.live  # stopped and reaped: nothing left running


def test_a_worker_whose_settings_the_zygote_imported_torch_without_gets_a_new_interpreter(tmp_path, session_zygote):
    # a worker on a GPU runs Triton compiled, not interpreted: the zygote imported Triton for the CPU
    assert started_as(tmp_path, "auto") is subprocess.Popen
    log = (tmp_path / "w.log").read_text()
    assert "no worker from the zygote" in log and "TRITON_INTERPRET" in log, log


def test_a_zygote_that_is_gone_costs_a_new_interpreter_not_the_worker(tmp_path, monkeypatch):
    monkeypatch.setenv(zygote.ENV, str(tmp_path / "no-such.sock"))
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        assert r.start()["device_kind"] == "cpu" and isinstance(r.proc, subprocess.Popen)
    finally:
        r.stop()
    assert "no worker from the zygote" in (tmp_path / "w.log").read_text()


def test_the_forked_worker_imports_the_harness_from_the_runners_folder(tmp_path, session_zygote):
    # the zygote imported torch only: a runner in another checkout (or after an edit) gets that
    # checkout's worker and harness, as a new interpreter would give it
    copy = tmp_path / "checkout"
    for package in ("engine", "evaluators"):
        shutil.copytree(REPO / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    worker = copy / "evaluators" / "worker.py"
    marked = "def main() -> None:\n    print('the copy of worker.py', file=sys.stderr)\n"
    worker.write_text(worker.read_text().replace("def main() -> None:\n", marked))
    script = ("import sys\nfrom pathlib import Path\nfrom evaluators.runner import WorkerRunner\n"
              "r = WorkerRunner(Path(sys.argv[1]) / 'k', Path(sys.argv[1]) / 'w.log', device='cpu')\n"
              "r.start()\nprint(type(r.proc).__name__)\nr.stop()\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=copy, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(copy)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ZygoteWorker"
    assert "the copy of worker.py" in (tmp_path / "w.log").read_text()


def test_the_variables_read_at_import_are_compared_and_the_others_are_not():
    mine = {"TRITON_INTERPRET": "1", "PYTHONHASHSEED": "0", "HOME": "/root", "PYTHONPATH": "/a"}
    assert zygote.import_env_differences(dict(mine, HOME="/x", PYTHONPATH="/b", CUDA_VISIBLE_DEVICES="1"), mine) == []
    assert zygote.import_env_differences({"HOME": "/root", "PYTHONHASHSEED": "1"}, mine) == ["PYTHONHASHSEED",
                                                                                             "TRITON_INTERPRET"]
    # what torch sets in its own environment when imported (the caller's torch set the same) is no
    # setting of the caller's; another value of it is
    after = dict(mine, TORCHINDUCTOR_CACHE_DIR="/tmp/torchinductor_root")
    assert zygote.import_env_differences(after, mine, after) == []
    assert zygote.import_env_differences(dict(mine, TORCHINDUCTOR_CACHE_DIR="/mine"), mine, after) == [
        "TORCHINDUCTOR_CACHE_DIR"]


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (an ended one not yet reaped is a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_worker_whose_reaper_is_killed_goes_too_and_is_taken_for_killed(tmp_path, session_zygote):
    # the reaper alone knows how the worker ends: without it the worker, in a session of its own,
    # would run on unseen, holding its GPU
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        r.start()
        assert isinstance(r.proc, zygote.ZygoteWorker)  # its parent is the reaper, not this process
        worker = r.proc.pid
        os.kill(_parent_of(worker), 9)
        assert r.proc.wait(timeout=30) == -9
        deadline = time.monotonic() + 10  # SIGKILL is sent; the worker ends as the kernel gets to it
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(worker)
    finally:
        r.stop()
    assert not zygote.ZygoteWorker.live


def test_a_request_the_zygote_cannot_read_is_refused_and_the_next_is_served(tmp_path, session_zygote):
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(session_zygote)
        conn.sendall(b"{not json")  # and no descriptors
        conn.shutdown(socket.SHUT_WR)
        assert conn.recv(4096).startswith(b"bad request: ")
    assert started_as(tmp_path, "cpu") is zygote.ZygoteWorker


def test_a_zygote_that_loaded_the_cuda_driver_forks_cpu_workers_only():
    # no import loads it today (the GPU check, docs/diagnostics/session79-20261207/fork_check.py);
    # a torch that does must leave GPU workers to new interpreters, which have a GPU
    env = {"HOME": "/root"}
    asked = {"python": sys.executable, "env": env}
    assert zygote.refusal(asked, env, env, driver_loaded=False) is None
    assert "CUDA driver" in zygote.refusal(asked, env, env, driver_loaded=True)
    cpu = {"python": sys.executable, "env": dict(env, CUDA_VISIBLE_DEVICES="")}  # a CPU worker's (runner.py)
    assert zygote.refusal(cpu, env, env, driver_loaded=True) is None
    assert "this zygote runs" in zygote.refusal(dict(asked, python="/other/python"), env, env, False)


def test_the_driver_is_told_loaded_by_the_library_mapped_and_by_nothing_else(tmp_path):
    maps = tmp_path / "maps"
    lines = ["7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libcudart.so.13",
             "7f10-7f20 r--p 00000000 08:01 43 /srv/libcuda.so.backup/notes.txt",
             "7f20-7f30 rw-p 00000000 00:00 0 "]
    maps.write_text("\n".join(lines) + "\n")
    assert not zygote._cuda_driver_loaded(str(maps))  # the runtime, or the name inside a folder's, is not it
    maps.write_text("\n".join([*lines, "7f30-7f40 r-xp 00000000 08:01 44 /usr/lib/x86_64-linux-gnu/libcuda.so.580.1"]))
    assert zygote._cuda_driver_loaded(str(maps))
    # replaced on disk since (a driver upgraded under a running zygote): still mapped, still loaded
    maps.write_text("\n".join([*lines, "7f30-7f40 r-xp 00000000 08:01 44 /usr/lib/libcuda.so.1 (deleted)"]))
    assert zygote._cuda_driver_loaded(str(maps))
    assert not zygote._cuda_driver_loaded()  # this process has imported torch on a machine without a GPU


def test_a_worker_forked_from_a_zygote_with_a_broken_import_is_replaced_by_a_new_interpreter(tmp_path, monkeypatch):
    # a zygote whose torch is not the one a worker needs (here a stand-in package first on its
    # path): its forks die before they are ready, as one stuck on state it inherited would fail,
    # and each costs the run a new interpreter, not the run
    fake = tmp_path / "fake"
    (fake / "torch" / "_dynamo").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("")  # no torch.cuda, no torch.utils: the worker fails
    (fake / "torch" / "_dynamo" / "__init__.py").write_text("")
    broken = zygote.Zygote(tmp_path / "z", env=dict(os.environ, PYTHONPATH=str(fake), TRITON_INTERPRET="1"))
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    # as after a new interpreter on this device (a command's zygote forks only then); the fork
    # dies before it could be compared with it
    from evaluators import runner as runner_module

    monkeypatch.setitem(runner_module._MACHINES, runner_module._machine_key(r.worker_env()), {})
    try:
        assert broken.ready(120)
        r.zygote = broken
        assert r.start()["device_kind"] == "cpu"
        assert isinstance(r.proc, subprocess.Popen) and r.zygote_refused
        log = (tmp_path / "w.log").read_text()
        assert "Traceback" in log, log
        assert "a worker forked by the zygote ended before it was ready (exit status 1" in log, log
        assert log.rstrip().endswith("(a new interpreter)"), log
        # and no other runner asks it again (an audit's next row, a compile-ahead worker)
        other = WorkerRunner(tmp_path / "k", tmp_path / "w2.log", device="cpu", timeout_s=120)
        other.zygote = broken
        try:
            other.start()
            assert isinstance(other.proc, subprocess.Popen) and not other.zygote_refused
        finally:
            other.stop()
        assert "forked" not in (tmp_path / "w2.log").read_text()
    finally:
        r.stop()
        broken.stop()
    assert not zygote.ZygoteWorker.live


def test_a_first_fork_is_held_to_what_a_new_interpreter_on_its_device_saw(tmp_path, session_zygote, monkeypatch):
    # a runner with no worker before it (an audited row, a compile-ahead worker) compares its fork
    # with the machine a new interpreter on the same device described in this process
    from evaluators import runner as runner_module

    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    key = runner_module._machine_key(r.worker_env())
    seen = dict(runner_module._MACHINES.get(key) or {"device_kind": "cpu"}, gpu="another GPU")
    monkeypatch.setitem(runner_module._MACHINES, key, seen)
    try:
        assert r.start()["gpu"] != "another GPU"
        assert isinstance(r.proc, subprocess.Popen) and r.zygote_refused
        assert "'gpu': ('another GPU'," in (tmp_path / "w.log").read_text()
    finally:
        r.stop()


def test_a_forked_worker_that_finds_another_machine_is_replaced_by_a_new_interpreter(tmp_path, session_zygote):
    # the worker before it found another device: the fork disagrees, so it is no worker of this
    # run (as one forked without a GPU beside workers that had one would be); a field that may
    # differ between two starts on one machine (the driver's version, from a busy nvidia-smi) is
    # no disagreement
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        r.start()
        assert isinstance(r.proc, zygote.ZygoteWorker)
        r.env = dict(r.env, driver="580.1", host="renamed")
        r.stop()
        r.start()
        assert isinstance(r.proc, zygote.ZygoteWorker) and not r.zygote_refused
        r.env = dict(r.env, device_kind="cuda")
        r.stop()
        assert r.start()["device_kind"] == "cpu"
        assert isinstance(r.proc, subprocess.Popen) and r.zygote_refused
        log = (tmp_path / "w.log").read_text()
        assert "a worker forked by the zygote found {'device_kind': ('cuda', 'cpu')} (before -> forked)" in log, log
        r.stop()
        r.start()  # and every restart after it
        assert isinstance(r.proc, subprocess.Popen)
    finally:
        r.stop()
    assert not zygote.ZygoteWorker.live
