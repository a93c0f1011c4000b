# call 4: the siblings' merge beside the separate merge kernel, scorer and FP8 lockstep, in a graph (B=8, 4, 2, 1) and one call a graph (the method, every workload)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 250 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call4-variants.json --batches 8,4,2,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call4-in_graph.json
timeout 280 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session14-20261201/call4-variants.json --repeats 1 --timeout-s 60 --json call4-cuda_compare.json 2>&1 | tail -8
