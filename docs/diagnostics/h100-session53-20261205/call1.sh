#!/usr/bin/env bash
# Fifty-third session, call 1: the FP8 raw chunks at bit-2-flipped positions in odd rows
# (`raw_swizzle`), so that a warp's first 8-byte raw loads in convert meet 32 banks instead of 16.
# In-graph timings of the FP8 small-batch genome ("fp8 small") and the B=64-128 genome ("fp8
# big", the headline run's d93741733fcaf929) on main's text (main-7a460dd.cu.j2) and on this
# one, each twice, beside bf16's "pair i8"; then ncu's shared-memory wavefronts and bank
# conflicts of one launch of each (FP8 small and bf16 at B=8, FP8 big at B=64, ctx 128K), and
# the SASS lines with excess shared wavefronts for fp8 small and pair i8. Run from the repository
# root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call1.sh
D=docs/diagnostics/h100-session53-20261205
bash scripts/device/in_graph_call.sh 1 $D/variants1.json 1,2,4,5,6,7,8,64,128
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,gpu__time_duration.sum
profile() {  # variant batch
  echo "== $1, B=$2" >> "$OUT/call1-ncu.txt"
  timeout 120 ncu --clock-control none --kernel-name sparse_mla_decode_split --launch-skip 2 --launch-count 1 \
    --metrics $M python3 scripts/device/ncu_one_launch.py --variants $D/variants1.json "$1" --batch $2 --context 131072 \
    2>&1 | grep -E "^ok|l1tex__|smsp__|gpu__time|ERROR|rror" >> "$OUT/call1-ncu.txt"
}
t0=$(date +%s)
profile "fp8 small, main's text" 8
profile "fp8 small" 8
profile "pair i8 (bf16)" 8
profile "fp8 big, main's text" 64
profile "fp8 big" 64
echo "ncu metrics $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
cat "$OUT/call1-ncu.txt"
for v in "fp8 small" "pair i8 (bf16)"; do
  tag=$(echo "$v" | tr -c 'a-z0-9\n' '_')
  timeout 150 ncu --clock-control none --kernel-name sparse_mla_decode_split --launch-skip 2 --launch-count 1 \
    --section SourceCounters -f -o /tmp/src_$tag python3 scripts/device/ncu_one_launch.py --variants $D/variants1.json "$v" \
    --batch 8 --context 131072 > /tmp/src_$tag.log 2>&1
  ncu -i /tmp/src_$tag.ncu-rep --page source --csv --print-source sass > /tmp/src_$tag.csv 2>&1
  python3 $D/excess_rows.py /tmp/src_$tag.csv > "$OUT/call1-excess-$tag.txt" 2>&1
  tail -2 /tmp/src_$tag.log >> "$OUT/call1-excess-$tag.txt"
done
echo "ncu source $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
