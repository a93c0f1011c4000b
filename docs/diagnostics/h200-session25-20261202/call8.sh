# call 8: after the review's refactor of the held tile's value loop (6c12590, PTX unchanged but for
# register numbers): the siblings' GPU tests of the held genomes, and the tile trace of the held
# genome with its new anchor.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session25-20261202
timeout 120 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py -k "held" > $OUT/call8-tests.log 2>&1; tail -2 $OUT/call8-tests.log
timeout 100 python3 scripts/device/trace_scorer_tiles.py $D/variants4.json --batches 8 > $OUT/call8-tiles.log 2>&1
cut -c1-300 $OUT/call8-tiles.log | head -30
