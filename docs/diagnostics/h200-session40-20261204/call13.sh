# call 13: the headline command on the CUDA space with the i8 gene fixed (a short budget: what
# device time was left), through the engine's whole path (workers, harness, Parquet, show).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call13-machine.txt 2>&1
R=results/evolve-s40-i8
T0=$(date +%s)
timeout -s TERM 200 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 12 --seed 40 --fix PARTIALS=i8 --timeout-s 120 --out $R > $OUT/call13-evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call13-machine.txt
python3 -m engine show $R > $OUT/call13-show.log 2>&1
cat $OUT/call13-machine.txt; tail -4 $OUT/call13-evolve.log; head -30 $OUT/call13-show.log
