#!/usr/bin/env bash
# Prepared in the sixty-fifth session (any card): the GPU tests of what builds for the run's GPUs
# touch and no GPU has run yet: a CUDA run on its GPU notes the SM count, builds only the entries
# its calls pick, and exports the whole build checked against its own (test_gpu_build_target.py);
# the recorded run's export, which now also compares each kernel with the run's build
# (test_gpu_export.py); and the evolve test of the decode layer (test_gpu_e2e.py -k evolve). About
# 4 minutes. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session65-20261206/call4.sh
n=4
source scripts/device/call_env.sh
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_build_target.py tests/gpu/test_gpu_export.py \
  "tests/gpu/test_gpu_e2e.py::test_on_a_gpu_evolve_runs_each_genome_inside_the_decode_layer_unless_told_not_to" \
  > "$OUT/call4-gpu_tests.log" 2>&1
echo "pytest rc $?" >> "$OUT/call4-machine.txt"
tail -5 "$OUT/call4-gpu_tests.log"
