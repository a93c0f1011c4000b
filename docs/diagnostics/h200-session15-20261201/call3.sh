# call 3: the scorer with 8 of the queries' 9 column blocks in registers and one tile's scores at a time (the
# working template, diff in call3-template.diff) against HEAD's 7 blocks and tile pairs (.scratch/s15/old.cu.j2 =
# `git show ce88cdb:templates/sparse_mla.cu.j2`); "single QRB7": one tile at a time with 7 blocks. The launcher
# launches the siblings' split kernel cooperatively for every variant. GPU tests of the scorer genomes first.
mkdir -p .scratch/s15 && git show ce88cdb:templates/sparse_mla.cu.j2 > .scratch/s15/old.cu.j2  # the working template had call3-template.diff applied
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "siblings or scorer" > $OUT/call3-tests.log 2>&1; tail -3 $OUT/call3-tests.log
timeout 200 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants4.json --batches 8,4,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call3-in_graph.json
timeout 250 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session15-20261201/variants5.json --old .scratch/s15/old.cu.j2 --repeats 1 --timeout-s 60 --json call3-cuda_compare.json 2>&1 | tail -6
