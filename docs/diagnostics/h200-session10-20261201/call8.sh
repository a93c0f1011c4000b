#!/usr/bin/env bash
# Session 10, call 8 (review mends): the device scripts that load a genome outside the harness now
# share scripts/device/cuda_entry.py; each is run once, small, to show it still works.
set -u
D=docs/diagnostics/h200-session10-20261201
python3 - <<'PY'
import json
json.dump({"s32 bf16p pdl qtma ag3": {"MMA": "wgmma", "PIPELINE": "seesaw", "STAGES": 2, "Q_LOAD": "tma",
           "GATHER_LANES": 8, "TOPK_TILE": 32, "PARTIALS": "bf16", "PDL": True, "ARRIVAL_GROUPS": 3}},
          open("/tmp/v8.json", "w"))
PY
timeout 150 python3 scripts/device/time_in_graph.py /tmp/v8.json --batches 8 --calls 16 > $OUT/in_graph.log 2>&1; echo "in_graph rc $?"
timeout 150 python3 scripts/device/profile_small_batch.py /tmp/v8.json --batches 8 > $OUT/small_batch.log 2>&1; echo "small_batch rc $?"
cut -c1-300 $OUT/in_graph.log $OUT/small_batch.log
