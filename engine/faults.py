"""Fault injection: the harness's own fire drill.

``evolve --inject-faults RATE`` evaluates, before a fraction of the genomes, an extra candidate
made from that genome's rendered source with one deliberate fault (Triton: appended, the entry
point replaced by a faulty one; CUDA: engine/faults_cuda.py). Each such row has kind "injected"
and its expected status in
``operator`` ("inject:crash->worker_crash|illegal_address"), so a run can be checked row by
row; the honest genome is then evaluated as usual, so the search sees the same results as a run
without faults.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


class FaultError(ValueError):
    """A fault cannot be put into this genome's source (a CUDA source without the kernels or the
    launch line the fault goes into): the drill skips it for this genome."""


@dataclass(frozen=True)
class Fault:
    name: str
    expected: tuple[str, ...]   # acceptable statuses
    body: str                   # Python appended to the rendered module
    devices: tuple[str, ...] = ("cpu", "cuda")  # where the fault can happen at all

    def apply(self, source: str, entry: str) -> str:
        return source + _wrap(entry, self.body)


def _wrap(entry: str, body: str) -> str:
    return (f"\n\nimport torch\nimport triton\nimport triton.language as tl\n\n_kg_honest_entry = {entry}\n\n\n"
            f"def {entry}(q, kv_cache, indices, sm_scale, out, lse):\n{body}")


FAULTS = (
    Fault("crash", ("worker_crash", "illegal_address"),
          "    _kg_wild[(1,)](out)\n\n\n@triton.jit\ndef _kg_wild(p):\n"
          "    tl.store(p + (1 << 40), tl.load(p))\n"),
    Fault("hang", ("timeout", "compile_timeout"), "    while True:\n        pass\n"),
    Fault("wrong", ("incorrect",),  # the kernel's own answer, with scores 5% too sharp
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale * 1.05, out, lse)\n"),
    Fault("partial", ("incorrect",),
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"
          "    out[:, : out.shape[1] // 2].fill_(float('nan'))\n"),
    Fault("input_mutation", ("rejected_input_mutation",),
          "    q.zero_()\n    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"),
    Fault("static_cheat", ("rejected_static",),
          "    import ctypes\n    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"),
    Fault("torch_compute", ("rejected_torch_compute",),  # PyTorch finishing the answer, under names no
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"  # static check reads
          "    out.copy_(out.float().add(0.0).to(out.dtype))\n"),
    Fault("result_cache", ("incorrect",),  # replays the first answer for a shape it has seen
          "    hit = _kg_cache.get((tuple(q.shape), tuple(indices.shape)))\n"
          "    if hit is None:\n"
          "        _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"
          "        _kg_cache[(tuple(q.shape), tuple(indices.shape))] = (out.clone(), lse.clone())\n"
          "    else:\n"
          "        out.copy_(hit[0])\n        lse.copy_(hit[1])\n\n\n_kg_cache = {}\n"),
    Fault("small_shapes_only", ("incorrect",),  # honest where small shapes are checked, half the work above
          "    if q.shape[0] >= 4:\n"
          "        indices = indices[:, : indices.shape[1] // 2].contiguous()\n"
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"),
    # The driver refuses a grid whose y extent passes 65535 before anything runs; the
    # interpreter has no such limit, so this fault exists only on a GPU.
    Fault("launch_failure", ("launch_failure",),
          "    _kg_tiny[(1, 1 << 17, 1)](out)\n"
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n\n\n"
          "@triton.jit\ndef _kg_tiny(p):\n    pass\n", devices=("cuda",)),
    Fault("out_of_memory", ("out_of_memory",),
          "    torch.empty(1 << 46, dtype=torch.uint8, device=out.device)\n"
          "    _kg_honest_entry(q, kv_cache, indices, sm_scale, out, lse)\n"),
)


def faults_for(device_kind: str, language: str = "triton") -> tuple:
    """The faults of the language's catalogue that can happen on ``device_kind``."""
    if language == "cuda":
        from engine.faults_cuda import CUDA_FAULTS  # here: it imports FaultError from this module
        catalogue = CUDA_FAULTS
    else:
        catalogue = FAULTS
    return tuple(f for f in catalogue if device_kind in f.devices)


class FaultInjector:
    """Faults at a steady rate: after n genomes, floor(n * rate + phase) faults have been drawn
    (0.1 over 300 genomes is 30, not a binomial count anywhere from 19 to 41), their kinds
    taken in shuffled rounds of the whole catalogue so that every kind turns up. The catalogue
    is the template language's faults that ``device_kind`` ("cpu" or "cuda") can raise: a drill
    must never expect a status the device cannot produce."""

    def __init__(self, rate: float, seed: int, device_kind: str, language: str = "triton"):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"--inject-faults must be a rate between 0 and 1, not {rate}")
        self.rate = rate
        self.catalogue = faults_for(device_kind, language)
        if not self.catalogue:
            raise ValueError(f"no fault of the {language} catalogue can happen on {device_kind}")
        self.rng = random.Random(seed ^ 0x5EED)
        self._phase = self.rng.random()
        self._genomes = 0
        self._faults = 0
        self._round: list[Fault] = []

    def draw(self) -> Fault | None:
        self._genomes += 1
        due = math.floor(self._genomes * self.rate + self._phase)
        if due <= self._faults:
            return None
        self._faults = due
        if not self._round:
            self._round = list(self.catalogue)
            self.rng.shuffle(self._round)
        return self._round.pop()


def operator_label(fault) -> str:
    return f"inject:{fault.name}->{'|'.join(fault.expected)}"


def expected_statuses(operator: str) -> tuple[str, ...]:
    return tuple(operator.split("->", 1)[1].split("|"))
