# call 5 (its last scores mode, "a tile in flight across the turn", gave an impossible figure, 433
# cycles per 32 rows, 1.33 of the peak: the pair's second tile's products were never read, and ptxas
# presumably dropped them; the mode was removed from the script after this call): why call 3's 32-row score products alone take 910 cycles a tile (813 with every k-step
# from registers) against 576 at the peak: two more modes of scripts/device/wgmma_mix.py, every
# k-step from registers with B read from one block (not walking the tile's nine blocks), and with
# the pair's second tile left in flight across the loop's turn (no drain at each pair's end).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 300 python3 scripts/device/wgmma_mix.py > $OUT/call5-wgmma_mix.log 2>&1; cat $OUT/call5-wgmma_mix.log
