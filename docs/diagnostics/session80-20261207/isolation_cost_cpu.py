"""Launcher isolation's cost on this machine (2 cores, no GPU, Triton's interpreter): the fixture's
honest kernel and the Triton template's default genome, three rounds alternating in the worker /
isolated, in one Evaluator (as a worker holds it)."""
import os, sys, time, statistics
from pathlib import Path
os.environ["TRITON_INTERPRET"] = "1"
REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))
import torch
from evaluators.triton_backend import patch_interpreter_bf16_dot
patch_interpreter_bf16_dot()
from engine.template import load_template
from evaluators.harness import Evaluator
ev = Evaluator(torch.device("cpu"), Path(os.environ.get("TMPDIR", "/tmp")) / "isocost")
fixture = load_template(REPO / "tests/fixtures/templates/sparse_mla_faulty.triton.j2")
triton_t = load_template(REPO / "templates/sparse_mla.triton.j2")
params = triton_t.load_space().default_params()
cases = {
    "fixture": fixture.request(fixture.render({"FAULT": "none", "CHECKED_CALLS": 7, "BENCH_CAPTURES": 1}), seed=11),
    "triton-default": triton_t.request(triton_t.render(params), params, seed=11),
}
times = {}
for rnd in range(3):
    for name, req in cases.items():
        for iso in (False, True):
            r = ev.evaluate({**req, "guards": {"isolate_launcher": iso}})
            t0 = time.perf_counter(); r = ev.evaluate({**req, "guards": {"isolate_launcher": iso}}); dt = time.perf_counter() - t0
            times.setdefault((name, iso), []).append(dt)
            print(f"round {rnd} {name} isolated={iso} {r['status']} {dt:.2f} s", flush=True)
for (name, iso), v in sorted(times.items()):
    print(f"{name} isolated={iso}: median {statistics.median(v):.2f} s, range {min(v):.2f}-{max(v):.2f} s ({len(v)} runs)")
