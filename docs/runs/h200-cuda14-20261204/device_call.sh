# call 3: the headline command on the whole CUDA space at issue 4's budget, on main's template (PRMT
# e4m3 conversion, 360fc54; no --fix; TPE), with a SIGTERM before the call's
# limit as a guard; the run folder, less its cubins and kernels, comes back as one archive, with `show`.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call3-machine.txt 2>&1
R=results/evolve-s42
T0=$(date +%s)
timeout -s TERM 520 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 42 --timeout-s 120 --out $R > $OUT/call3-evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
python3 -m engine compact $R > $OUT/call3-compact.log 2>&1
python3 -m engine show $R > $OUT/call3-show.log 2>&1
tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf $OUT/evolve-s42.tgz -C results evolve-s42
cat $OUT/call3-machine.txt; tail -3 $OUT/call3-evolve.log; head -40 $OUT/call3-show.log
