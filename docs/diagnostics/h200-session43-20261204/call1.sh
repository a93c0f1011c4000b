#!/usr/bin/env bash
# Call 1: the forty-second session's prepared valid-valued FP8 knockouts (its prepared-valid-knockouts.json, copied).
bash scripts/device/in_graph_call.sh 1 docs/diagnostics/h200-session43-20261204/variants1.json 1,4,8,64
