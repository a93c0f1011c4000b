# call 3: scripts/device/wgmma_mix.py with its new kernel mix_32_q2 (score k-steps with A from
# registers only for the first two query blocks, the rest from shared memory): the products' rate
# a schedule of two scorers could reach at most, where the register file leaves each scorer 96
# registers (256 x 160 for the value warpgroups + 256 x 96 = 65,536) and so two query blocks
python3 scripts/device/wgmma_mix.py > $OUT/call3-wgmma_mix.log 2>&1; cp $OUT/wgmma_mix.json $OUT/call3-wgmma_mix.json 2>/dev/null; rm -f $OUT/wgmma_mix.json; cat $OUT/call3-wgmma_mix.log
