# call 6: the headline command on the whole CUDA space (no --fix), after 569c8b9's listing fix:
# a short run of the default strategy (TPE), whose random start draws from the listed space, then
# the run's summary. A smoke run of the command, not a search.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 330 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 16 --seed 25 --timeout-s 120 --out $OUT/evolve-smoke > $OUT/call6-evolve.log 2>&1
echo "evolve rc=$?"; tail -5 $OUT/call6-evolve.log
python3 -m engine show $OUT/evolve-smoke > $OUT/call6-show.log 2>&1; head -40 $OUT/call6-show.log
