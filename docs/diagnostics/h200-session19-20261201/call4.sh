# call 4: does the queries' copy (73.7 KB a CTA, each block read by every split of its token)
# delay the top-k index loads on which the first rows' copies wait? (The fifteenth session's
# timeline: queries in at 1.78 us, the value warpgroups' first copies issued only at 2.03, first
# rows in at 2.89.) Probe: the scorer issues the queries' copies only once the value warpgroups
# have issued their first four tiles' copies (a named barrier, bar.sync 8 / bar.arrive 8; edits in
# variants4.json). `sib` and the probe, each twice, 16 calls in a graph at ctx 128K.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session19-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,4,5,8 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log
