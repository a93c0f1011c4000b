"""What a problem definition provides to the harness.

A problem owns the reference implementation, the input generator, the workloads that are timed,
the shapes that are verified, the tolerances, and the FLOP and byte counts of each workload.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Workload:
    """One shape the kernel is timed (or verified) on."""

    name: str
    batch: int
    heads: int
    topk: int
    context: int
    invalid_fraction: float = 0.0   # share of indices set to -1 at random
    empty_rows: int = 0             # query tokens whose indices are all -1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Tolerance:
    """An element passes if abs_err <= abs_tol or rel_err <= rel_tol; the tensor also needs a
    relative L2 error ‖x-ref‖/‖ref‖ under rel_l2."""

    abs_tol: float
    rel_tol: float
    rel_l2: float


class Problem(Protocol):
    """What ``evaluators.harness`` calls, in this order for each workload: ``make_inputs`` (fresh,
    from a seeded generator, drawn into a reusable ``new_pool``), ``poisoned_outputs``,
    ``call`` (the candidate), then ``check`` against a reference computed after the call (the
    inputs shown unchanged first). ``inputs_of`` names the tensors the candidate must not write; ``poison`` refills outputs."""

    name: str

    def workloads(self, device_kind: str) -> list[Workload]: ...

    def verify_shapes(self, device_kind: str) -> list[Workload]: ...  # includes the largest workload

    def flops(self, w: Workload) -> float: ...

    def bytes_moved(self, w: Workload) -> float: ...

    def new_pool(self, device: Any) -> Any: ...

    def make_inputs(self, w: Workload, gen: Any, pool: Any) -> Any: ...

    def inputs_of(self, inputs: Any) -> tuple: ...

    def poisoned_outputs(self, w: Workload, device: Any) -> tuple: ...

    # compile-ahead: tensors of a real call's shapes whose contents are never set or read
    def placeholder_inputs(self, w: Workload, device: Any) -> Any: ...

    def placeholder_outputs(self, w: Workload, device: Any) -> tuple: ...

    def poison(self, outputs: tuple) -> None: ...

    def call(self, fn: Any, inputs: Any, outputs: tuple) -> None: ...

    # new values in the same memory, so that a captured graph must compute from what it reads
    def refill(self, inputs: Any, w: Workload, gen: Any, pool: Any) -> None: ...

    def check(self, inputs: Any, outputs: tuple) -> tuple[str | None, dict]: ...
