"""The stages of one evaluation inside the worker: load -> compile -> verify -> bench -> e2e.

Each stage may end the evaluation with a typed status. Inputs are drawn fresh from the
request's seed for every check and every timed workload; outputs are poisoned with NaN before
every call; the largest workload is always among the verified shapes; the reference is
computed after the candidate's calls return (no expected answer is in memory while a call runs;
a late write after its return, while the reference is computed, is rejected as such), on inputs
a copy (small shapes) or a fingerprint of secret weights (large ones) shows unchanged; a timed
graph is captured on one set of inputs and replayed on new values in the same memory, and the
outputs the replays produced are checked against the reference of those. The e2e stage (asked for
with ``e2e``) runs the kernel inside the model's decode layer (evaluators/decode_layer.py) on the
query the layer makes, checks its outputs there, and times the layer with it and without it.
"""

from __future__ import annotations

import dataclasses
import math
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from evaluators.bench import GraphTimer, WallTimer
from evaluators.confinement import isolation_wanted
from evaluators.environment import fingerprint as environment
from evaluators.guards import Rejection, Witness, below_roofline, hidden_work, outputs_agree, static_check_triton
from evaluators.hardware import find_hardware, roofline_floor_s
from evaluators.harness_state import HarnessState, untampered
from evaluators.isolated_launcher import IsolatedEntry, LauncherTimeout
from evaluators.problems import make_problem
from evaluators.static_cuda import static_check_cubin, static_check_cuda
from evaluators.status import Status
from evaluators.torch_ops_guard import kernel_language_only
from evaluators.triton_backend import CompileError, is_compile_failure, load_entry


class StageFailure(Exception):
    def __init__(self, status: Status, stage: str, message: str):
        super().__init__(message)
        self.status, self.stage = status, stage


class Evaluator:
    DEFERRED_WRITE_WAIT_S = 0.05  # outputs must not change for this long after a call returns
    # inside the layer a kernel may cost more than alone (other kernels' lines in the L2, no flush
    # of its own); past this factor and margin, twice, it is not the kernel that was timed alone
    E2E_SLOWDOWN = 2.0
    E2E_MARGIN_US = 10.0

    def __init__(self, device: torch.device, workdir: Path,
                 progress: Callable[[str], None] = lambda stage: None):
        self.device = device
        self.workdir = workdir
        self.progress = progress
        self.env = environment(device)
        self.hw = find_hardware(self.env["gpu"]) if device.type == "cuda" else None
        self._pools: dict[str, torch.Tensor] = {}
        self._rest_us: dict[tuple, Any] = {}  # the decode layer without attention, by shape: timed once
        self._layers: dict[tuple, Any] = {}   # the decode layer itself, by shape: made once
        self._guards: dict[str, Any] = {"static": True}  # the request's, set by evaluate
        self._isolated: IsolatedEntry | None = None  # the evaluation's isolated launcher, ended with it
        # before any candidate runs, with the module the e2e stage imports when first asked for
        import evaluators.decode_layer  # noqa: F401
        self._state = HarnessState()
        self._timer = (GraphTimer(device, self.hw["l2_bytes"] if self.hw else 64 << 20)
                       if device.type == "cuda" else WallTimer())

    # -- entry -------------------------------------------------------------------------------
    def evaluate(self, req: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = {"status": Status.OK.value, "stage": None, "error": None,
                                  "compile_s": None, "verify_s": None, "bench_s": None, "e2e_s": None,
                                  "verify": [], "workloads": [], "e2e": [], "env": self.env,
                                  "hardware": self.hw["file"] if self.hw else None}
        guards = self._guards = {"static": True, **(req.get("guards") or {})}
        try:
            problem = self._problem(req)
            if guards["static"] and not req.get("builtin"):
                self.progress("static")
                if req["language"] == "triton":
                    static_check_triton(req["source"], req["entry"])
                elif req["language"] == "cuda":
                    static_check_cuda(req["source"])
            # Loading is compiling for CUDA (nvcc) and importing for Triton: one stage either way.
            fn = self._stage(result, "compile", lambda: self._load(req, result))
            if (req.get("language") == "triton" and not req.get("builtin") and guards.get("torch_compute", True)
                    and self._isolated is None):  # an isolated launcher's PyTorch calls are watched where they run
                fn = kernel_language_only(fn)  # the launcher's own PyTorch calls may not compute
            if req.get("language") == "triton" and not req.get("builtin"):
                self._state.hold({"the problem": problem, "the evaluator": self})
                fn = untampered(fn, self._state)  # nor may it rebind the harness's names
            if req.get("compile_only"):
                if self.device.type == "cuda" and req.get("language") == "triton":  # the interpreter
                    # compiles nothing, and nvcc has already built the cubin: loading was all
                    self._stage(result, "compile", lambda: self._compile_every_shape(problem, fn))
                return result
            # Triton compiles at its first call. A CUDA kernel was built by nvcc above: a hang in its
            # first launch is the kernel's (a timeout), not the compiler's (its time still counts
            # as compile_s, the first call's, as for Triton)
            first = "compile" if req.get("language") == "triton" else "first_call"
            self._stage(result, first, lambda: self._compile(problem, fn, req["seed"]), clock="compile")
            self._stage(result, "verify", lambda: self._verify(problem, fn, req["seed"], result))
            if req.get("bench", True):
                self._stage(result, "bench", lambda: self._bench(problem, fn, req["seed"], result))
            if req.get("e2e"):
                self._stage(result, "e2e", lambda: self._e2e(problem, fn, req["seed"], result))
        except StageFailure as failure:
            result.update(status=failure.status.value, stage=failure.stage, error=str(failure)[:4000])
        except Rejection as rejection:
            result.update(status=rejection.status.value, stage=rejection.guard, error=str(rejection)[:4000])
        finally:
            if self._isolated is not None:
                self._isolated.close()
                self._isolated = None
        return result

    def _stage(self, result: dict, name: str, body: Callable[[], Any], clock: str | None = None) -> Any:
        """Runs ``body`` as stage ``name`` (what a failure or a hang is typed by), its seconds added
        to the record's ``<clock>_s`` (default: ``<name>_s``)."""
        self.progress(name)
        t0 = time.perf_counter()
        try:
            return body()
        except (StageFailure, Rejection):
            raise
        except Exception as exc:  # the candidate raised: classify, keep the traceback's tail
            raise StageFailure(self._classify(exc), name, _describe(exc)) from exc
        finally:
            key = f"{clock or name}_s"
            result[key] = (result.get(key) or 0.0) + time.perf_counter() - t0

    def _classify(self, exc: BaseException) -> Status:
        text = str(exc).lower()
        if is_compile_failure(exc):
            return Status.COMPILE_ERROR
        if isinstance(exc, LauncherTimeout):
            return Status.TIMEOUT
        if (isinstance(exc, torch.OutOfMemoryError) or "out of memory" in text
                or "not enough memory" in text or "can't allocate memory" in text):
            return Status.OUT_OF_MEMORY
        if "illegal memory access" in text or "misaligned address" in text or "illegal address" in text:
            return Status.ILLEGAL_ADDRESS
        if _is_launch_refusal(text):
            return Status.LAUNCH_FAILURE
        return Status.RUNTIME_ERROR

    # -- stages ------------------------------------------------------------------------------
    @staticmethod
    def _problem(req: dict[str, Any]):
        try:
            return make_problem(req.get("problem"), req.get("problem_args") or {})
        except ValueError as exc:
            raise StageFailure(Status.INVALID_GENOME, "problem",
                               f"problem {req.get('problem')!r} with {req.get('problem_args')}: {exc}") from None

    def _load(self, req: dict[str, Any], result: dict[str, Any]) -> Callable | None:
        if req.get("builtin") == "torch_reference":
            from evaluators.sparse_mla import torch_reference_path
            return torch_reference_path
        if req["language"] == "cuda":
            return self._load_cuda(req, result)
        if req["language"] != "triton":
            raise StageFailure(Status.COMPILE_ERROR, "compile", f"language {req['language']!r} has no runner")
        try:
            if isolation_wanted(self._guards):
                self._isolated = IsolatedEntry(req["source"], req["entry"], self.device)
                return self._isolated
            return load_entry(req["source"], req["entry"], self.workdir)
        except CompileError as exc:
            raise StageFailure(Status.COMPILE_ERROR, "compile", str(exc)) from exc

    def _load_cuda(self, req: dict[str, Any], result: dict[str, Any]) -> Callable | None:
        """nvcc -> cubin (cached beside the run's kernels, shared with the compile-ahead
        workers), resource figures into the record, then the trusted host launcher."""
        from evaluators.cuda_compile import compile_cuda
        from evaluators.sparse_mla_cuda import ContractError, make_entry, parse_contract

        try:
            contract = parse_contract(req["source"])
        except ContractError as exc:
            raise StageFailure(Status.COMPILE_ERROR, "compile", str(exc)) from None
        build = compile_cuda(req["source"], self.workdir.parent / "cubins")
        result["resources"] = build.totals()
        result["compiler_notes"] = list(build.notes())
        if not build.ok:
            status = Status.COMPILE_TIMEOUT if "timed out" in build.log else Status.COMPILE_ERROR
            raise StageFailure(status, "compile", build.excerpt())
        _check_parameters(contract, Path(build.cubin))
        if self._guards["static"]:
            static_check_cubin(Path(build.cubin), req["source"])
        if req.get("compile_only"):
            return None
        if self.device.type != "cuda":
            raise StageFailure(Status.RUNTIME_ERROR, "compile",
                               "a CUDA kernel runs only on a GPU; on this machine `engine compile` builds it")
        from evaluators.cuda_launch import CubinModule

        return make_entry(contract, CubinModule(Path(build.cubin), self.device))

    def _compile(self, problem, fn: Callable, seed: int) -> None:
        """First call on the smallest verification shape: JIT compilation happens here."""
        w = min(problem.verify_shapes(self.device.type), key=lambda s: s.batch * s.context)
        inp = problem.make_inputs(w, self._gen(seed, -1), self._pool(problem))
        problem.call(fn, inp, problem.poisoned_outputs(w, self.device))
        self._sync()

    def _compile_every_shape(self, problem, fn: Callable) -> None:
        """Compile-ahead workers only (their Triton launches are no-ops): one call per shape the
        real evaluation will make, on tensors that are allocated but never written, so every
        specialization lands in the shared cache and no work reaches the GPU."""
        shapes = {w.name: w for w in problem.verify_shapes(self.device.type) + problem.workloads(self.device.type)}
        for w in shapes.values():
            problem.call(fn, problem.placeholder_inputs(w, self.device), problem.placeholder_outputs(w, self.device))

    def _verify(self, problem, fn: Callable, seed: int, result: dict) -> None:
        shapes = problem.verify_shapes(self.device.type)
        for i, w in enumerate(shapes):
            inp = problem.make_inputs(w, self._gen(seed, i), self._pool(problem))
            outputs, failure, errors = self._guarded_check(problem, fn, inp, w)
            result["verify"].append({"shape": w.name, **_finite(errors)})
            if failure:
                raise StageFailure(Status.INCORRECT, "verify", f"{w.name}: {failure}")
            again = problem.poisoned_outputs(w, self.device)
            problem.call(fn, inp, again)
            self._sync()
            disagreement = outputs_agree(outputs, again)
            if disagreement:
                raise Rejection(Status.REJECTED_NONDETERMINISTIC, "determinism", f"{w.name}: {disagreement}")

    def _guarded_check(self, problem, fn: Callable, inp, w) -> tuple:
        """One call and its check against the reference, with the input-mutation and deferred-write
        guards around them: (outputs, the check's failure or None, its errors). The reference is
        computed while the outputs are watched for a late write, so the wait costs only the part of
        it the check does not already take (on the CPU, a tenth of every interpreted evaluation); a
        late write or a mutated input is the verdict before a wrong answer."""
        inputs_before = Witness(problem.inputs_of(inp))
        outputs = problem.poisoned_outputs(w, self.device)
        problem.call(fn, inp, outputs)
        self._sync()
        at_return, returned = Witness(outputs), time.perf_counter()
        failure, errors = problem.check(inp, outputs)
        self._sync()
        time.sleep(max(0.0, self.DEFERRED_WRITE_WAIT_S - (time.perf_counter() - returned)))
        self._sync()
        if not at_return.unchanged(outputs):
            raise Rejection(Status.REJECTED_DEFERRED_WRITE, "deferred_write",
                            f"{w.name}: outputs changed after the call had returned")
        self._inputs_unchanged(problem, inp, w, inputs_before, "the call")
        return outputs, failure, errors

    def _inputs_unchanged(self, problem, inp, w, before: Witness, what: str) -> None:
        if not before.unchanged(problem.inputs_of(inp)):
            raise Rejection(Status.REJECTED_INPUT_MUTATION, "input_mutation", f"{w.name}: {what} wrote to its inputs")

    def _bench(self, problem, fn: Callable, seed: int, result: dict) -> None:
        for i, w in enumerate(problem.workloads(self.device.type)):
            pool = self._pool(problem)
            inp = problem.make_inputs(w, self._gen(seed, 1000 + i), pool)
            outputs = problem.poisoned_outputs(w, self.device)
            call = lambda: problem.call(fn, inp, outputs)  # noqa: E731
            floor_us = self._floor_us(problem, w)
            # the timed calls run on new values in the same memory: a graph that replays an answer
            # kept from the call it was captured after (or a call that keeps one by the inputs'
            # addresses) gives the old inputs' answer, and the check below fails it. (The CPU's one
            # timed call has no call before it on these inputs to keep an answer from: an extra
            # interpreted call would cost a third of every CPU evaluation.)
            graph = self._capture(call, w) if self.device.type == "cuda" else None
            problem.refill(inp, w, self._gen(seed, 1500 + i), pool)
            inputs_before = Witness(problem.inputs_of(inp))
            problem.poison(outputs)  # what is checked below must come from the timed calls
            timing = self._time_graph(graph, w, floor_us) if graph is not None else self._timer.time(call)
            self._sync()
            self._inputs_unchanged(problem, inp, w, inputs_before, "the timed calls")
            failure, _ = problem.check(inp, outputs)  # what the timed calls produced
            if failure:
                raise StageFailure(Status.INCORRECT, "bench",
                                   f"{w.name}: output of the timed calls: {failure}")
            result["workloads"].append(self._metrics(problem, w, timing, floor_us))

    def _e2e(self, problem, fn: Callable, seed: int, result: dict) -> None:
        if not hasattr(problem, "decode_layer"):  # asked for, so never skipped in silence
            raise StageFailure(Status.RUNTIME_ERROR, "e2e", f"problem {problem.name} has no decode layer to run in")
        alone = {w["name"]: w["median_us"] for w in result["workloads"]}
        for i, w in enumerate(problem.e2e_workloads(self.device.type)):
            gen, pool = self._gen(seed, 2000 + i), self._pool(problem)
            inp = problem.make_inputs(w, gen, pool)  # the cache and indices; the layer makes q
            layer = self._decode_layer(problem, w, i)
            x = torch.randn(w.batch, layer.dims.hidden, generator=gen, device=self.device).to(torch.bfloat16)
            outputs = (layer.out, layer.lse)

            def attend(q: torch.Tensor) -> None:
                problem.call(fn, dataclasses.replace(inp, q=q), outputs)

            step = lambda: layer.step(x, attend)  # noqa: E731
            problem.poison(outputs)
            graph = self._capture(step, w) if self.device.type == "cuda" else None
            # new values in the same memory before the timed steps, as in the bench stage
            refill = self._gen(seed, 2500 + i)
            problem.refill(inp, w, refill, pool)
            x.copy_(torch.randn(x.shape, generator=refill, device=self.device).to(x.dtype))
            inputs_before = Witness(problem.inputs_of(inp))
            problem.poison(outputs)  # what is checked below must come from the timed steps
            if graph is not None:
                timing, rest = self._timer.time(graph), self._rest(problem, w, layer, x)
            else:
                timing, rest = self._timer.time(step), None
            self._sync()
            self._inputs_unchanged(problem, inp, w, inputs_before, "the decode layer's timed steps")
            failure, errors = problem.check(dataclasses.replace(inp, q=layer.q), outputs)
            if failure:
                raise StageFailure(Status.INCORRECT, "e2e", f"{w.name} inside the decode layer: {failure}")
            entry = {**w.to_dict(), "step_us": timing.median_us, "step_iqr_us": timing.iqr_us,
                     "rest_us": rest.median_us if rest else None,
                     "attention_us": timing.median_us - rest.median_us if rest else None,
                     "alone_us": alone.get(w.name), **_finite(errors)}
            if self._slower_in_layer(entry):
                timing, rest = self._timer.time(graph), self._rest(problem, w, layer, x, again=True)
                entry.update(step_us=timing.median_us, step_iqr_us=timing.iqr_us, rest_us=rest.median_us,
                             attention_us=timing.median_us - rest.median_us)
                if self._slower_in_layer(entry):
                    raise Rejection(Status.REJECTED_E2E_SLOWDOWN, "e2e",
                                    f"{w.name}: {entry['attention_us']:.1f} us inside the decode layer "
                                    f"({entry['step_us']:.1f} us with it, {entry['rest_us']:.1f} without) against "
                                    f"{entry['alone_us']:.1f} us alone, twice")
            result["e2e"].append(entry)

    def _slower_in_layer(self, entry: dict) -> bool:
        return (entry["attention_us"] is not None and entry["alone_us"] is not None
                and entry["attention_us"] > self.E2E_SLOWDOWN * entry["alone_us"] + self.E2E_MARGIN_US)

    def _decode_layer(self, problem, w, i: int) -> Any:
        """Workload w's decode layer, made once a worker: its weights' values change nothing a step
        costs or checks (each genome's step input x is its own), and making them (366 MB on a GPU)
        for every genome cost more than the step. The attention's outputs it holds are poisoned
        before each genome's capture and again before its replays, so nothing a genome reads there
        was left by another."""
        key = (problem.name, w.name, w.heads, w.batch)
        if key not in self._layers:
            self._layers[key] = problem.decode_layer(w, self.device, self._gen(0, 3000 + i))
        return self._layers[key]

    def _rest(self, problem, w, layer, x: torch.Tensor, again: bool = False) -> Any:
        """The decode layer's time without its attention (the same for every candidate)."""
        key = (problem.name, w.name, layer.dims)
        if again or key not in self._rest_us:
            self._rest_us[key] = self._timer.time(self._timer.capture(lambda: layer.step(x, None)))
        return self._rest_us[key]

    def _time_graph(self, graph, w, floor_us: float | None) -> Any:
        """Replay timing with the physical-floor and device-wide-window guards; a suspect
        figure is measured again before the candidate is rejected."""
        timing = self._timer.time(graph)
        if not (below_roofline(timing.median_us, floor_us) or hidden_work(timing.median_us, timing.window_us)):
            return timing
        timing = self._timer.time(graph)
        if below_roofline(timing.median_us, floor_us):
            raise Rejection(Status.REJECTED_BELOW_ROOFLINE, "roofline_floor",
                            f"{w.name}: {timing.median_us:.2f} us is below the {floor_us:.2f} us floor, twice")
        if hidden_work(timing.median_us, timing.window_us):
            raise Rejection(Status.REJECTED_HIDDEN_WORK, "device_sync",
                            f"{w.name}: {timing.window_us:.1f} us per call with a device-wide sync against "
                            f"{timing.median_us:.1f} us between events, twice")
        return timing

    def _floor_us(self, problem, w) -> float | None:
        if not self.hw:
            return None
        # floor_scale: the GPU tests' way to hold an honest kernel under the floor guard (what could
        # be faster than the floor, a cached answer, is caught as wrong before the floor is reached)
        scale = float(self._guards.get("floor_scale", 1.0))
        return roofline_floor_s(problem.flops(w), problem.bytes_moved(w), self.hw) * 1e6 * scale

    def _capture(self, call: Callable[[], None], w) -> Any:
        try:
            return self._timer.capture(call)
        except Exception as exc:
            if "captur" in str(exc).lower() or "graph" in str(exc).lower():
                raise Rejection(Status.REJECTED_NOT_CAPTURABLE, "graph_capture",
                                f"{w.name}: {type(exc).__name__}: {exc}") from exc
            raise

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _metrics(problem, w, timing, floor_us: float | None) -> dict[str, Any]:
        seconds = timing.median_us * 1e-6
        flops, nbytes = problem.flops(w), problem.bytes_moved(w)
        return {**w.to_dict(), "median_us": timing.median_us, "iqr_us": timing.iqr_us,
                "min_us": timing.min_us, "n_samples": timing.n,
                "tflops": flops / seconds / 1e12, "gbps": nbytes / seconds / 1e9,
                "roofline_floor_us": floor_us, "roofline_frac": floor_us / timing.median_us if floor_us else None}

    def _pool(self, problem) -> torch.Tensor:
        key = getattr(problem, "pool_key", problem.name)
        if key not in self._pools:
            self._pools[key] = problem.new_pool(self.device)
        return self._pools[key]

    def _gen(self, seed: int, salt: int) -> torch.Generator:
        return torch.Generator(self.device).manual_seed((seed * 1_000_003 + salt) % (1 << 63))

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def _is_launch_refusal(text: str) -> bool:
    """The driver aborted or refused a launch (bad grid or block, too many resources): Triton's
    launcher says "Triton Error [CUDA]: invalid argument", cuda-python names the CUresult."""
    return ("launch failure" in text or "too many resources requested for launch" in text
            or "cuda_error_launch" in text or "triton error [cuda]: invalid argument" in text
            or ("cuda_error_invalid_value" in text and "launch" in text))


def _check_parameters(contract, cubin: Path) -> None:
    """The built kernels take what the launcher will pass them (the cubin's own record of each
    parameter's size): else a launch reads garbage arguments, an illegal address that poisons
    the context or a wrong answer; here it is the genome's compile_error, before any launch."""
    from evaluators.cubin_elf import kernel_parameter_sizes
    from evaluators.sparse_mla_cuda import parameter_size_faults

    faults = parameter_size_faults(contract, kernel_parameter_sizes(cubin))
    if faults:
        raise StageFailure(Status.COMPILE_ERROR, "compile", "; ".join(faults))


def _describe(exc: BaseException) -> str:
    tail = "".join(traceback.format_exception(exc)[-3:]).strip().replace("\n", " | ")
    return f"{type(exc).__name__}: {exc} [{tail[-600:]}]"


def _finite(d: dict[str, float]) -> dict[str, float | None]:
    return {k: (v if v is not None and math.isfinite(v) else None) for k, v in d.items()}
