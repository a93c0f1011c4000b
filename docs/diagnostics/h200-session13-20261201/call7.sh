# call 7 (commit after 14be389, the staged rows uncommitted then; the same text as committed)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl; export PYTHONPATH=$PWD:/tmp/site
python3 -m pytest -q -x tests/gpu/test_gpu_cuda_template.py -k "staged"          # 4 passed
python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session13-20261201/v_staged.json --batches 8,1
python3 scripts/device/trace_timeline.py docs/diagnostics/h200-session13-20261201/v_staged_only.json --batches 8 --replays 1
python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session13-20261201/v_staged.json --repeats 2 --timeout-s 60
