# call 5: the architecture check on the H200 (the CLI's eval of the CUDA template passes it and
# evaluates the default genome; the Triton eval beside it), after the check's commit
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
git log -1 --format='commit %H' > $OUT/call5-machine.txt 2>/dev/null
timeout 500 python3 -m pytest -q tests/gpu/test_h200_eval.py tests/gpu/test_gpu_compile_ahead.py > $OUT/call5-tests.log 2>&1; tail -3 $OUT/call5-tests.log
python3 -c "import torch; from evaluators.environment import fingerprint; print(fingerprint(torch.device('cuda', 0)))" >> $OUT/call5-machine.txt 2>&1
cat $OUT/call5-machine.txt
