# call 4 (NOT RUN this session: the device refused four starts at 12:37-13:06; run in the twenty-eighth session as its call 1): time_cuda_genomes.py --reference after the review's restructuring (the reference row
# recorded by the same helper as the variants' rows), one variant, one repeat.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
echo '{"tile held first": {"MMA":"wgmma","PIPELINE":"seesaw","SCHEDULE":"scorer","STAGES":2,"Q_LOAD":"tma","TOPK_TILE":32,"GATHER_LANES":8,"PARTIALS":"bf16","PDL":true,"COMBINE":"siblings","SPLIT_STEP":"tile","VALUE_ISSUE":"after_scores","FIRST_GATHER":"pair_first"}}' > /tmp/v4.json
timeout 300 python3 scripts/device/time_cuda_genomes.py /tmp/v4.json --reference --json call4-same_call.json > $OUT/call4-same_call.log 2>&1; echo rc $?
cut -c1-300 $OUT/call4-same_call.log
