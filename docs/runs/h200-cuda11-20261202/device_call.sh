# call 4: the headline command on the whole CUDA space at issue 4's budget (no --fix; TPE), with
# a SIGTERM before the call's limit as a guard (the run keeps what it recorded, and --resume in a
# next call would continue it; it ended: 200 of 200). The run folder, less its cubins and kernels,
# was to come back in $OUT: its 214 files were more than the device tool returns, so call 5 sent
# it back as one archive.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
R=results/evolve-s26
timeout -s TERM 480 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 26 --timeout-s 120 --out $R > $OUT/call4-evolve.log 2>&1
echo "evolve rc=$?"; tail -4 $OUT/call4-evolve.log
(cd results && tar --exclude=cubins --exclude='kernels*' -cf - evolve-s26) | (cd $OUT && tar -xf -)
du -sh $OUT/evolve-s26; ls $OUT/evolve-s26
