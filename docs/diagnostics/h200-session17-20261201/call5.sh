# call 5: Nsight Compute on one sib launch at B=8 and at B=1 (ctx 128K; the third of three launches,
# caches flushed before each pass as ncu does by default, clocks left alone)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
G='{"MMA":"wgmma","PIPELINE":"seesaw","SCHEDULE":"scorer","STAGES":2,"Q_LOAD":"tma","TOPK_TILE":32,"GATHER_LANES":8,"PARTIALS":"bf16","PDL":true,"COMBINE":"siblings"}'
for B in 8 1; do
  timeout 240 ncu --clock-control none --kernel-name sparse_mla_decode_split --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --print-details all \
    python3 scripts/device/ncu_one_launch.py "$G" --batch $B --context 131072 > $OUT/call5-ncu-b$B.txt 2>&1
  echo "b$B rc=$?"; grep -E "Duration|Throughput|Pipe|Tensor|Busy|ok " $OUT/call5-ncu-b$B.txt | head -40
done
