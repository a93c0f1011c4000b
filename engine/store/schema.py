"""The Parquet schema of evaluation records, and its version.

One row per attempt. Only ``engine.store.writer`` writes it; a change of the fields below
bumps ``SCHEMA_VERSION`` and the reader refuses versions it does not know.
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = 8
# v2 (2026-11-30): compiler resource figures (registers, shared_bytes, stack_bytes, spill_bytes).
# v3 (2026-11-30): device_index, the GPU of the host that evaluated the row (runs over several).
# v4 (2026-12-04): compiler_notes, nvcc's warnings and ptxas's performance advisories.
# v5 (2026-12-05): code_json, the code regions an LLM rewrote (null: the template's own code).
# v6 (2026-12-05): e2e and e2e_s, the kernel inside the decode layer (null: not asked for).
# v7 (2026-12-06): code_bytes, the size of the machine code (null: not built by nvcc).
# v8 (2026-12-06): build_sm_counts, the GPUs (by SM count) the genome's source was rendered for.
# The reader upgrades older parts by adding the new fields as nulls.

WORKLOAD = pa.struct([
    ("name", pa.string()), ("batch", pa.int32()), ("heads", pa.int32()), ("topk", pa.int32()),
    ("context", pa.int32()), ("median_us", pa.float64()), ("iqr_us", pa.float64()),
    ("min_us", pa.float64()), ("n_samples", pa.int32()), ("tflops", pa.float64()),
    ("gbps", pa.float64()), ("roofline_floor_us", pa.float64()), ("roofline_frac", pa.float64()),
])

E2E = pa.struct([
    ("name", pa.string()), ("batch", pa.int32()), ("heads", pa.int32()), ("topk", pa.int32()),
    ("context", pa.int32()), ("step_us", pa.float64()), ("step_iqr_us", pa.float64()),
    ("rest_us", pa.float64()), ("attention_us", pa.float64()), ("alone_us", pa.float64()),
    ("out_rel_l2", pa.float64()), ("lse_rel_l2", pa.float64()),
])

VERIFY = pa.struct([("shape", pa.string()), ("out_rel_l2", pa.float64()), ("lse_rel_l2", pa.float64())])

ENV = pa.struct([(k, pa.string()) for k in
                 ("device_kind", "gpu", "driver", "cuda", "torch", "triton", "python", "host")])

SCHEMA = pa.schema([
    ("schema_version", pa.int32()),
    ("run_id", pa.string()),
    ("attempt", pa.int64()),            # order of evaluation within the run
    ("created_at", pa.timestamp("us", tz="UTC")),
    ("kind", pa.string()),              # "genome", or "reference" for the PyTorch path
    ("genome_id", pa.string()),
    ("template", pa.string()),
    ("template_hash", pa.string()),
    ("problem", pa.string()),
    ("language", pa.string()),
    ("params_json", pa.string()),       # canonical JSON of the genome's parameters (a reference row's:
                                        # the values of the genes that pick its problem, or null)
    ("code_json", pa.string()),         # canonical JSON of its rewritten code regions; null: none
    ("parent_ids", pa.list_(pa.string())),
    ("operator", pa.string()),          # how the genome was made: default, random, crossover, ...
    ("strategy", pa.string()),
    ("status", pa.string()),            # evaluators.status.Status value
    ("stage", pa.string()),             # where a failure happened
    ("error", pa.string()),
    ("input_seed", pa.int64()),
    ("compile_s", pa.float64()),
    ("verify_s", pa.float64()),
    ("bench_s", pa.float64()),
    ("e2e_s", pa.float64()),
    ("registers", pa.int32()),          # from ptxas -v: the largest over the module's kernels
    ("shared_bytes", pa.int64()),       # static shared memory
    ("stack_bytes", pa.int64()),
    ("spill_bytes", pa.int64()),        # spill stores + loads
    ("code_bytes", pa.int64()),         # machine code, from the cubin (the instruction caches hold it)
    ("compiler_notes", pa.list_(pa.string())),  # nvcc warnings, ptxas advisories; null: not built by nvcc
    ("build_sm_counts", pa.list_(pa.int32())),  # the run's GPUs (SM counts) the genome was rendered for, its
                                                # build variables (if any) taken there; null: rendered whole
    ("eval_s", pa.float64()),           # wall time of the whole evaluation, seen by the driver
    ("device_index", pa.int32()),       # which GPU of the host (CUDA ordinal); null on the CPU
    ("cpu_row", pa.bool_()),            # interpreter timings: never to be compared with GPU rows
    ("verify", pa.list_(VERIFY)),
    ("workloads", pa.list_(WORKLOAD)),
    ("e2e", pa.list_(E2E)),             # the decode layer with the kernel in it (evaluators/decode_layer.py)
    ("score", pa.float64()),            # geomean over workloads of time / baseline time
    ("baseline", pa.string()),          # what the score is relative to
    ("env", ENV),
])
