# call 8: the tensor cores' rate by product width (scripts/device/wgmma_rate.py)
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader
timeout 120 python3 scripts/device/wgmma_rate.py 2>&1 | tail -30
