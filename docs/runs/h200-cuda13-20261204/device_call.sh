# call 5: the headline command on the whole CUDA space at issue 4's budget, on main's template (i8
# partials in the space since the fortieth session; no --fix; TPE), with a SIGTERM before the call's
# limit as a guard; the run folder, less its cubins and kernels, comes back as one archive, with `show`.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call5-machine.txt 2>&1
R=results/evolve-s41
T0=$(date +%s)
timeout -s TERM 520 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 41 --timeout-s 120 --out $R > $OUT/call5-evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt
python3 -m engine compact $R > $OUT/call5-compact.log 2>&1
python3 -m engine show $R > $OUT/call5-show.log 2>&1
tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf $OUT/evolve-s41.tgz -C results evolve-s41
cat $OUT/call5-machine.txt; tail -3 $OUT/call5-evolve.log; head -40 $OUT/call5-show.log
