"""Test tiers: cpu by default; ``gpu`` tests run only where torch sees a CUDA device."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def _has_cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def pytest_collection_modifyitems(config, items):
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def faulty_request():
    """Requests for the fixture kernel with one deliberate fault (tests/fixtures/templates/
    sparse_mla_faulty.triton.j2); keyword arguments override request fields."""
    from engine.template import load_template
    from evaluators.sparse_mla import SparseMlaDecode

    template = load_template(FIXTURES / "templates" / "sparse_mla_faulty.triton.j2")

    def make(fault: str, device_kind: str = "cpu", **fields) -> dict:
        # stop_after_verify must know how many calls the harness checks on this kind of device:
        # its first call, then each verification shape twice (the check and the determinism repeat)
        problem = SparseMlaDecode()
        checked = 1 + 2 * len(problem.verify_shapes(device_kind))
        # slow_in_layer must know how many graphs the benchmark captures: one a workload
        captures = len(problem.workloads(device_kind))
        source = template.render({"FAULT": fault, "CHECKED_CALLS": checked, "BENCH_CAPTURES": captures})
        return template.request(source, **{"seed": 11, "bench": False, **fields})

    return make


@pytest.fixture(scope="module")
def module_worker(tmp_path_factory):
    """Makes real worker processes that live for the test module and are stopped after it:
    ``module_worker(device, timeout_s)``."""
    from evaluators.runner import WorkerRunner

    made = []

    def make(device: str = "cpu", timeout_s: float = 60.0):
        folder = tmp_path_factory.mktemp("worker")
        made.append(WorkerRunner(folder / "kernels", folder / "worker.log", device=device, timeout_s=timeout_s))
        return made[-1]

    yield make
    for runner in made:
        runner.stop()


@pytest.fixture
def ctrl_c_delivered():
    """SIGINT raises KeyboardInterrupt in this process and in the engines it starts, as at a
    terminal. A test run started in the background by a shell (CI's runner, `cmd &`) inherits
    SIGINT ignored, and so would every engine it starts: a test of Ctrl-C would then wait on a
    signal that never lands."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # a child starts with SIG_DFL
    yield
    signal.signal(signal.SIGINT, before)


def pytest_configure(config):
    """The session's worker zygote (evaluators/zygote.py), started while the tests are collected:
    every worker the tests start on the CPU, in this process or in an engine it starts, is forked
    from it with torch imported (2.3 s a worker, over a hundred workers)."""
    import os
    import tempfile

    from evaluators.zygote import Zygote

    folder = Path(tempfile.mkdtemp(prefix="kg-zygote-"))
    # as a CPU worker's environment has it (evaluators/runner.py): Triton imported to interpret
    # its folder goes with it, also when the session is killed (it then ends on its own)
    config.stash[_ZYGOTE] = Zygote(folder, env=dict(os.environ, TRITON_INTERPRET="1"), remove_folder=True)


def pytest_collection_finish(session):
    import os
    import tempfile

    from evaluators.zygote import ENV as ZYGOTE_ENV
    from tests.cli_in_process import SESSION_HELPERS
    from tests.nvcc_prebuild import Prebuild, wanted_sources

    cache = Path(tempfile.mkdtemp(prefix="kg-nvcc-cache-"))
    session.config.stash[_NVCC_CACHE] = cache
    prebuild = session.config.stash[_PREBUILD] = Prebuild(cache, wanted_sources(session.items))
    zygote = session.config.stash[_ZYGOTE]
    if zygote.ready():
        os.environ[ZYGOTE_ENV] = zygote.socket_path
    SESSION_HELPERS.update(p.pid for p in (prebuild.proc, zygote.proc) if p is not None)


def pytest_sessionfinish(session):
    import shutil

    prebuild = session.config.stash.get(_PREBUILD, None)
    if prebuild is not None:
        prebuild.stop()
        shutil.rmtree(prebuild.cache, ignore_errors=True)
    zygote = session.config.stash.get(_ZYGOTE, None)
    if zygote is not None:
        zygote.stop()  # and its folder with it


_NVCC_CACHE = pytest.StashKey[Path]()
_PREBUILD = pytest.StashKey[object]()
_ZYGOTE = pytest.StashKey[object]()


@pytest.fixture(scope="session")
def nvcc_cache(pytestconfig) -> Path:
    """One nvcc cache for the session, which tests/nvcc_prebuild.py fills ahead with the sources the
    collected modules declare (NVCC_SOURCES)."""
    return pytestconfig.stash[_NVCC_CACHE]
