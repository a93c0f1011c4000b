"""Host side of the sparse MLA CUDA template: the trusted launcher around a candidate's kernels.

A candidate is device code only. Its rendered source states, on a line
``// kernel-genome-launch: {json}``, how it must be launched (kernel names, heads per CTA,
threads, top-k tile, split count, combine mode, cache format, dynamic shared memory); this
module checks the call's tensors, chooses the splits, allocates the split buffers and launches.
Keeping the host side out of the candidate's reach means a candidate cannot time itself, skip
work on the host, or leave the required kernel language.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Callable

D_QK, D_V = 576, 512
LOG2E = 1.4426950408889634
_CONTRACT = re.compile(r"^//\s*kernel-genome-launch:\s*(\{.*\})\s*$", re.M)
KV_FORMATS = {"bf16": 1152, "fp8_656": 656}  # bytes per cache row
COMBINES = ("separate", "fused", "cluster", "siblings")
PARTIAL_DTYPES = {"fp32": "float32", "bf16": "bfloat16"}  # partials -> torch dtype of the split buffers
MAX_CLUSTER = 16       # the kernel's limit; beyond 8 a cluster size is non-portable
AUTO_CLUSTER = 8       # the largest cluster 'auto' picks (portable: every sm_90 part schedules it)
SIBLING_WORDS = 32     # int32 words of a (token, head block) for the siblings' merge: one 128-byte line
# The siblings' merge holds every split's loads in flight at once up to 32 splits; beyond, its
# fallback takes 8 splits a round trip (H200, B=1, 32-row steps: 64 splits 13.4 us a call in a
# graph against 10.0 with 32 of two tiles), so the launcher gives it at most 32.
MAX_SIBLING_SPLITS = 32
# An sm_90 SM's limits on the CTAs it holds: blocks, threads, shared memory (228 KB, of which each
# CTA reserves 1 KB for the system)
SM90_BLOCKS, SM90_THREADS, SM90_SHARED, SM90_BLOCK_RESERVED = 32, 2048, 233472, 1024


# The split kernel's parameters, in the order the launcher passes them (a template names them as
# it likes; the fire drill, engine/faults_cuda.py, finds them by position). A tensor map of q
# follows when the launch line says q_tma.
SPLIT_PARAMS = ("q", "kv_cache", "indices", "out", "lse", "part_out", "part_lse", "arrivals",
                "heads", "topk", "num_splits", "rows_per_split", "scale_log2")
# The combine kernel's parameters, in the order the launcher passes them.
COMBINE_PARAMS = ("part_out", "part_lse", "out", "lse", "heads", "num_splits")
# What the launcher passes for each parameter (make_entry's arguments): a device pointer, a numpy
# int32 or float32, or the tensor map of q by value; and their bytes, as a cubin records each
# parameter's size (EIATTR_KPARAM_INFO), the sizes the driver copies from the argument array.
PARAM_KINDS = {**dict.fromkeys(("q", "kv_cache", "indices", "out", "lse", "part_out", "part_lse", "arrivals"),
                               "pointer"),
               **dict.fromkeys(("heads", "topk", "num_splits", "rows_per_split"), "int32"),
               "scale_log2": "float32", "q_map": "tensor_map"}
KIND_BYTES = {"pointer": 8, "int32": 4, "float32": 4, "tensor_map": 128}


class ContractError(ValueError):
    """The rendered source lacks a usable launch line."""


@dataclass(frozen=True)
class LaunchContract:
    split_kernel: str
    combine_kernel: str
    heads_per_cta: int
    threads: int
    topk_tile: int
    num_splits: int | str
    combine: str
    kv_format: str
    smem_bytes: int
    partials: str = "fp32"   # dtype of the splits' partial outputs: fp32 or bf16
    pdl: bool = False        # programmatic dependent launches: the combine after the split kernel, the split
                             # kernel after whatever precedes it (each waits with griddepcontrol.wait)
    combine_threads_max: int = 128  # the combine kernel takes 128 x G threads (G groups of splits), up to this
    value_split: int = 1     # CTAs per (token, head block, split), each with 512 / value_split value columns
    q_tma: bool = False      # the split kernel's last parameter: a tensor map of q ([B x H] rows of 576 bf16)
    # split count -> the split kernel's entry for launches with exactly that many splits (the
    # siblings' merge: each such entry carries only its count's merge, so that a launch runs no
    # other count's code); split_kernel takes every other count. The launch line gives an object
    # {"8": "name", ...}; parse_contract makes it ((8, "name"), ...) so that a contract stays hashable.
    split_kernels: tuple = ()

    def split_kernel_for(self, splits: int) -> str:
        return next((name for count, name in self.split_kernels if count == splits), self.split_kernel)


def combine_threads(contract: LaunchContract, splits: int) -> int:
    """Threads of a combine CTA: one group of 128 per 8 splits, so that a thread of each group
    has 8 splits' loads in flight, up to the kernel's limit."""
    return 128 * max(1, min(contract.combine_threads_max // 128, splits // 8))


def split_grid(contract: LaunchContract, heads: int, splits: int, batch: int) -> tuple[int, int, int]:
    """The split kernel's grid: x = head blocks x value parts (VALUE_SPLIT CTAs share a head
    block), y = splits, z = tokens."""
    return heads // contract.heads_per_cta * contract.value_split, splits, batch


def partial_buffers(contract: LaunchContract, batch: int, splits: int, heads: int, device) -> tuple:
    """The splits' partial outputs [B, splits, H, 512], in the type the launch line names, and
    their fp32 LSEs [B, splits, H]."""
    import torch

    return (torch.empty(batch, splits, heads, D_V, device=device, dtype=getattr(torch, PARTIAL_DTYPES[contract.partials])),
            torch.empty(batch, splits, heads, device=device, dtype=torch.float32))


def _launch_line(source: str) -> re.Match:
    m = _CONTRACT.search(source)
    if not m:
        raise ContractError("the rendered CUDA source has no '// kernel-genome-launch: {...}' line")
    return m


def parse_contract(source: str) -> LaunchContract:
    m = _launch_line(source)
    try:
        fields = json.loads(m.group(1))
        contract = LaunchContract(**fields)
    except (json.JSONDecodeError, TypeError) as exc:
        raise ContractError(f"malformed kernel-genome-launch line: {exc}") from None
    if contract.kv_format not in KV_FORMATS or contract.combine not in COMBINES:
        raise ContractError(f"kernel-genome-launch: unknown kv_format {contract.kv_format!r} "
                            f"or combine {contract.combine!r}")
    for flag in ("pdl", "q_tma"):
        if not isinstance(getattr(contract, flag), bool):
            raise ContractError(f"kernel-genome-launch: {flag} {getattr(contract, flag)!r} is not true or false")
    if not (isinstance(contract.combine_threads_max, int) and contract.combine_threads_max >= 128
            and contract.combine_threads_max % 128 == 0 and contract.combine_threads_max <= 1024):
        raise ContractError(f"kernel-genome-launch: combine_threads_max {contract.combine_threads_max!r} "
                            "is not a multiple of 128 up to 1024")
    if contract.value_split not in (1, 2) or isinstance(contract.value_split, bool):
        raise ContractError(f"kernel-genome-launch: value_split {contract.value_split!r} is not 1 or 2")
    if contract.partials not in PARTIAL_DTYPES:
        raise ContractError(f"kernel-genome-launch: partials {contract.partials!r} is not one of {sorted(PARTIAL_DTYPES)}")
    if not (contract.num_splits == "auto" or (isinstance(contract.num_splits, int) and contract.num_splits >= 1)):
        raise ContractError(f"kernel-genome-launch: num_splits {contract.num_splits!r}")
    return dataclasses.replace(contract, split_kernels=_split_kernels(contract.split_kernels))


def split_kernel_names(contract: LaunchContract) -> tuple[str, ...]:
    """Every split-kernel entry the launcher may launch: the one for any count, and one a count."""
    return (contract.split_kernel, *(name for _, name in contract.split_kernels))


def launched_parameters(contract: LaunchContract) -> list[tuple[str, tuple[str, ...]]]:
    """(kernel, the parameters the launcher passes it, in order) for each launch this launch line
    can make: every split-kernel entry, with the tensor map of q last where q_tma says so, and the
    combine kernel where it runs (a separate combine of more than one split: "num_splits": 1
    never launches it, so a template may leave it a stub)."""
    split = SPLIT_PARAMS + (("q_map",) if contract.q_tma else ())
    launches = [(name, split) for name in split_kernel_names(contract)]
    if contract.combine == "separate" and contract.num_splits != 1:
        launches.append((contract.combine_kernel, COMBINE_PARAMS))
    return launches


def parameter_size_faults(contract: LaunchContract, sizes: dict[str, tuple[int, ...]]) -> list[str]:
    """Where the built kernels' parameters (``sizes``: bytes of each, in order, by kernel, from
    the cubin) disagree with what the launcher passes them: a missing or extra argument, or one of
    another size, is a kernel reading garbage (an illegal address that poisons the context, or a
    wrong answer). Sizes cannot tell a pointer from a 64-bit integer, nor an int from a float."""
    faults = []
    for kernel, params in launched_parameters(contract):
        if kernel not in sizes:
            faults.append(f"the launch line names kernel {kernel}, and the cubin has none "
                          f"(its kernels: {sorted(sizes)})")
            continue
        passed = tuple(KIND_BYTES[PARAM_KINDS[name]] for name in params)
        if sizes[kernel] != passed:
            faults.append(f"kernel {kernel} takes {len(sizes[kernel])} parameters of {list(sizes[kernel])} bytes, "
                          f"and the launcher passes {len(passed)}: "
                          + ", ".join(f"{name} ({PARAM_KINDS[name]}, {KIND_BYTES[PARAM_KINDS[name]]} B)"
                                      for name in params))
    return faults


def with_launch_fields(source: str, **fields) -> str:
    """The source with these fields of its launch line replaced (the others kept as written)."""
    m = _launch_line(source)
    line = {**json.loads(m.group(1)), **fields}
    return source[:m.start(1)] + json.dumps(line) + source[m.end(1):]


def _split_kernels(entries) -> tuple:
    """The launch line's split_kernels ({"count": "entry name"}) as ((count, name), ...) by count."""
    if not isinstance(entries, (dict, tuple)):
        raise ContractError(f"kernel-genome-launch: split_kernels {entries!r} is not an object of split counts")
    pairs = []
    for count, name in dict(entries).items():
        if not (str(count).isdigit() and int(count) >= 2 and isinstance(name, str) and name.isidentifier()):
            raise ContractError(f"kernel-genome-launch: split_kernels entry {count!r}: {name!r} "
                                "(a split count of at least 2 and a kernel's name)")
        pairs.append((int(count), name))
    return tuple(sorted(pairs))


def split_plan(contract: LaunchContract, batch: int, heads: int, topk: int, sm_count: int,
               cluster_capacity: Callable[[int], int] | None = None,
               resident_ctas: int | None = None) -> tuple[int, int]:
    """(splits, rows per split): 'auto' gives each SM at most one CTA, never a partial second wave
    (splitting 128 CTAs in two on 132 SMs would make 256: one wave and most of another); rows per
    split are whole tiles. A cluster merge takes a power of two (at most AUTO_CLUSTER when auto,
    MAX_CLUSTER when asked) and keeps it even where the last splits get no rows: the kernel's
    merge divides the heads among exactly that many CTAs. ``cluster_capacity(s)`` is how many
    clusters of s CTAs the device holds at once; 'auto' then also keeps the clusters in one wave
    (a GPC fits fewer clusters of 8 big CTAs than its SMs suggest). The siblings' merge waits in
    each CTA for the other splits of its head block, so its grid must be one wave: at most
    ``resident_ctas`` CTAs (the device's SMs times the kernel's CTAs an SM when not given); the
    launcher launches it cooperatively, so that the device never starts it on part of the GPU.
    It also takes at most MAX_SIBLING_SPLITS, the most it merges in one round trip.

    Splits never cross from one (token, head block) into the next (stream-K): at B=7 such a plan
    could give every CTA 7 tiles instead of 8, but a knockout of it (9 splits of 7 tiles, even
    with rows dropped) was slower than 8 splits of 8 (H200; docs/BENCHMARKS.md, thirty-fourth
    session)."""
    tiles = max(1, _cdiv(topk, contract.topk_tile))
    ctas = batch * (heads // contract.heads_per_cta) * contract.value_split
    if contract.num_splits == "auto":
        splits = max(1, min(tiles, sm_count // ctas))
        if contract.combine == "cluster":
            splits = 1 << (min(splits, AUTO_CLUSTER).bit_length() - 1)
            while splits > 1 and cluster_capacity is not None and cluster_capacity(splits) < ctas:
                splits //= 2
    else:
        splits = max(1, min(int(contract.num_splits), tiles))
    if contract.combine == "siblings":
        splits = max(1, min(splits, MAX_SIBLING_SPLITS,
                            (resident_ctas if resident_ctas is not None else sm_count) // ctas))
    if contract.combine == "cluster":
        splits = 1 << (min(splits, MAX_CLUSTER).bit_length() - 1)
        return splits, _cdiv(_cdiv(topk, splits), contract.topk_tile) * contract.topk_tile
    rows = _cdiv(_cdiv(topk, splits), contract.topk_tile) * contract.topk_tile
    return max(1, _cdiv(topk, rows)), rows


def launched_split_counts(contract: LaunchContract, shapes, sm_counts) -> tuple[int, ...]:
    """Of the split counts with an entry of their own (``split_kernels``), those that launches of
    ``shapes`` ((batch, heads, top-k) each) pick on GPUs of ``sm_counts`` SMs: the entries a
    build for those launches needs (a count without its entry runs the entry without a count,
    correct but with every count's merge code). The siblings' merge caps its count by the CTAs the
    GPU holds at once, which only the built cubin tells; every holding the launch line allows,
    from one CTA an SM to as many as its threads and shared memory allow, is taken, so that no
    count a launch can pick is left out."""
    entries = {count for count, _ in contract.split_kernels}
    most = max(1, min(SM90_BLOCKS, SM90_THREADS // contract.threads,
                      SM90_SHARED // (contract.smem_bytes + SM90_BLOCK_RESERVED)))
    picked = {split_plan(contract, batch, heads, topk, sms, resident_ctas=sms * per_sm)[0]
              for batch, heads, topk in shapes for sms in sm_counts for per_sm in range(1, most + 1)}
    return tuple(sorted(picked & entries))


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def query_map_arguments(contract: LaunchContract, q) -> tuple:
    """The split kernel's trailing arguments for q [B, H, 576] bf16: none, or (Q_LOAD = tma) the
    tensor map its CTAs copy their queries through, 64 heads x 64 columns a box."""
    if not contract.q_tma:
        return ()
    _check(q.data_ptr() % 16 == 0, f"q starts at {q.data_ptr():#x}: this genome copies q through a "
           "tensor map, which needs a 16-byte-aligned start")
    # relative: an export ships this file beside its own copy of cuda_launch.py, in `launcher/`
    from .cuda_launch import bf16_tensor_map_2d

    rows = q.shape[0] * q.shape[1]
    return (bf16_tensor_map_2d(q.data_ptr(), D_QK, rows, D_QK * 2, 64, contract.heads_per_cta),)


def make_entry(contract: LaunchContract, module) -> Callable:
    """``entry(q, kv_cache, indices, sm_scale, out, lse)`` launching the candidate's kernels;
    ``module`` is an ``evaluators.cuda_launch.CubinModule`` of its cubin."""
    import numpy as np
    import torch

    row_bytes = KV_FORMATS[contract.kv_format]
    sm_count = torch.cuda.get_device_properties(module.device_index).multi_processor_count
    # The siblings' merge: each (token, head block) has a 128-byte line of words (arrivals and
    # departures) that its kernel re-arms itself, zeroed once here. One buffer a stream (two
    # streams' calls would share counts otherwise), made on the stream's first call: outside a
    # graph's capture when the call is warmed on the capture stream first (evaluators/bench.py
    # does), else recorded with the capture. Its size is the most groups a merging grid can have
    # (one wave of at least two splits), so it never grows: a graph keeps its buffer valid.
    sibling_words: dict[int, object] = {}

    @functools.cache
    def resident_ctas() -> int:
        """CTAs of the split kernel the device holds at once, for the entry that holds fewest (asked
        once): a cooperative launch of one wave must fit whichever entry its count picks."""
        names = set(split_kernel_names(contract))
        return sm_count * min(module.max_active_blocks(name, contract.threads, contract.smem_bytes) for name in names)

    def sibling_counts(groups: int, device):
        stream = torch.cuda.current_stream(device).cuda_stream
        if stream not in sibling_words:
            sibling_words[stream] = torch.zeros(SIBLING_WORDS * max(resident_ctas() // 2, 1), device=device,
                                                dtype=torch.int32)
        words = sibling_words[stream]
        _check(words.numel() >= SIBLING_WORDS * groups, f"{groups} groups of splits in one wave of "
               f"{resident_ctas()} CTAs")  # split_plan's cap makes this hold
        return words

    @functools.cache
    def cluster_capacity(size: int) -> int:
        """Clusters of `size` CTAs the device holds at once (asked once a size)."""
        return module.max_active_clusters(contract.split_kernel, (1, size, 1), contract.threads, contract.smem_bytes)

    def entry(q, kv_cache, indices, sm_scale, out, lse):
        batch, heads, dim = q.shape
        topk = indices.shape[1]
        _check(q.dtype == torch.bfloat16 and dim == D_QK and q.is_contiguous(), "q must be contiguous [B, H, 576] bf16")
        _check(heads % contract.heads_per_cta == 0, f"{heads} heads are not a multiple of {contract.heads_per_cta}")
        _check(indices.dtype == torch.int32 and indices.is_contiguous() and indices.shape[0] == batch,
               "indices must be contiguous [B, topk] int32")
        _check(out.shape == (batch, heads, D_V) and out.dtype == torch.bfloat16 and out.is_contiguous()
               and lse.shape == (batch, heads) and lse.dtype == torch.float32 and lse.is_contiguous(),
               "out must be contiguous [B, H, 512] bf16 and lse [B, H] fp32")
        cache_row = kv_cache.shape[-1] * kv_cache.element_size()
        _check(cache_row == row_bytes and kv_cache.is_contiguous(),
               f"this genome reads {contract.kv_format} rows of {row_bytes} B; the cache has rows of {cache_row} B")
        waits = contract.combine == "siblings"  # its CTAs wait for each other: one wave, launched cooperatively
        splits, rows = split_plan(contract, batch, heads, topk, sm_count,
                                  cluster_capacity if contract.combine == "cluster" else None,
                                  resident_ctas() if waits else None)
        n_hb = heads // contract.heads_per_cta
        cluster = contract.combine == "cluster" and splits > 1
        if splits == 1 or cluster:  # a cluster merges in distributed shared memory: no partials
            part_out, part_lse, arrivals = out, lse, lse
        else:
            part_out, part_lse = partial_buffers(contract, batch, splits, heads, q.device)
            if contract.combine == "fused":
                arrivals = torch.zeros(batch * n_hb, device=q.device, dtype=torch.int32)
            elif waits:
                arrivals = sibling_counts(batch * n_hb, q.device)
            else:
                arrivals = part_lse
        arguments = {"q": q.data_ptr(), "kv_cache": kv_cache.data_ptr(), "indices": indices.data_ptr(),
                     "out": out.data_ptr(), "lse": lse.data_ptr(), "part_out": part_out.data_ptr(),
                     "part_lse": part_lse.data_ptr(), "arrivals": arrivals.data_ptr(), "heads": np.int32(heads),
                     "topk": np.int32(topk), "num_splits": np.int32(splits), "rows_per_split": np.int32(rows),
                     "scale_log2": np.float32(sm_scale * LOG2E)}
        module.launch(contract.split_kernel_for(splits), split_grid(contract, heads, splits, batch), contract.threads,
                      contract.smem_bytes, *(arguments[name] for name in SPLIT_PARAMS),
                      *query_map_arguments(contract, q),
                      cluster=(1, splits, 1) if cluster else None, pdl=contract.pdl,
                      # siblings wait for each other: the grid starts only once all are resident
                      cooperative=waits and splits > 1)
        if splits > 1 and contract.combine == "separate":
            module.launch(contract.combine_kernel, (heads, batch, 1), combine_threads(contract, splits), 0,
                          *(arguments[name] for name in COMBINE_PARAMS), pdl=contract.pdl)

    entry.sibling_words = sibling_words  # stream -> the siblings' words (tests check they are re-armed)
    return entry


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(f"sparse_mla CUDA launcher: {message}")
