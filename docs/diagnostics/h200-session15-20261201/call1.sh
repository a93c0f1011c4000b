# call 1: the scorer's loop with the next tile's scores in flight under every softmax (new) against HEAD's pairs (old); GPU tests of the scorer genomes
mkdir -p .scratch/s15 && git show ce88cdb:templates/sparse_mla.cu.j2 > .scratch/s15/old.cu.j2  # HEAD at the session start; the working template had call1-scorer_loop.diff applied
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 130 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants1.json --batches 8,4,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call1-in_graph.json
timeout 200 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session15-20261201/variants2.json --old .scratch/s15/old.cu.j2 --repeats 1 --timeout-s 60 --json call1-cuda_compare.json 2>&1 | tail -30
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "siblings or scorer" > $OUT/call1-tests.log 2>&1; tail -3 $OUT/call1-tests.log
