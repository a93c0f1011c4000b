# call 3: did the review's merge helpers (e841fcf) cost B <= 4? Call 2 had `sib` on main at B=4
# 13.52 and B=1 10.93, where the sixteenth and seventeenth sessions measured 13.28-13.37 and
# 10.80-10.85 before the review, and the review was timed only at B=5, 8 and 17. `sib` with
# 8e419b6's template (.scratch/head8e4.cu.j2 = `git show 8e419b6:templates/sparse_mla.cu.j2`)
# and with main's, each twice, in a graph at B = 1-4 (16 and 32 splits: merge_share).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session19-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,2,3,4 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log
