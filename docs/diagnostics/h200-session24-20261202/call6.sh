# call 6: scripts/device/partial_write_rate.py with two more modes: the stores without the release
# (what the release costs) and the copy engine's bulk stores from shared memory (whether they
# leave an SM faster than the threads' stores).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 120 python3 scripts/device/partial_write_rate.py > $OUT/call6-partial_write_rate.log 2>&1; tail -12 $OUT/call6-partial_write_rate.log
mv $OUT/partial_write_rate.json $OUT/call6-partial_write_rate.json
