# call 2: where the time of a B=4 and a B=8 call goes, bf16 against i8 partials (the tile genome;
# scripts/device/trace_timeline.py: globaltimer stamps, 16 calls in a graph, 3 replays).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call2-machine.txt 2>&1
T0=$(date +%s)
timeout 300 python3 scripts/device/trace_timeline.py $D/variants2.json --batches 4,8 > $OUT/call2-timeline.log 2>&1
echo "timeline rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/timeline.json $OUT/call2-timeline.json
cat $OUT/call2-machine.txt
grep -v "^  call\|^    cta" $OUT/call2-timeline.log | cut -c1-250 | head -60
