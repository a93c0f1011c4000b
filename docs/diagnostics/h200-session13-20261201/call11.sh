# call 11: the gathers' 16-byte copies with an L2 prefetch-size hint (edits of copy16), in a graph and by the method
python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session13-20261201/call11-variants.json --batches 8,1
python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session13-20261201/call11-variants.json --repeats 2 --timeout-s 60 --json call11.json
