# call 1: every GPU test of the repository, then the headline command at a small budget, on main
# after this session's two Python changes (constraints compiled once, 2b51fbf; the Jinja template
# compiled once per text, render_text's cache): both sit on the GPU search's path (every
# proposal is checked against the constraints and rendered), neither touches the kernel.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
git log -1 --format='commit %H' > $OUT/call1-gpu_tests.log 2>/dev/null
timeout 450 python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call1-gpu_tests.log 2>&1; tail -3 $OUT/call1-gpu_tests.log
( time timeout 150 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 16 --out /tmp/run16 ) > $OUT/call1-evolve.log 2>&1; tail -4 $OUT/call1-evolve.log
python3 -m engine show /tmp/run16 > $OUT/call1-show.txt 2>&1; head -30 $OUT/call1-show.txt
