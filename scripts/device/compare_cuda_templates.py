"""Old against new CUDA template on chosen wgmma genomes, in one worker and one call, twice
(the call recorded in docs/diagnostics/h200-cuda-gather-20261130).

Usage (on the GPU machine): git show REV:templates/sparse_mla.cu.j2 > old.cu.j2 first, then
    python3 scripts/device/compare_cuda_templates.py old.cu.j2
Writes $OUT/cuda_compare2.json. The timing itself is time_cuda_genomes.py --old."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from time_cuda_genomes import main

W = {"MMA": "wgmma"}
GENOMES = {"bk64,s2": dict(W, TOPK_TILE=64, STAGES=2), "bk64,s2,splits1": dict(W, TOPK_TILE=64, STAGES=2, NUM_SPLITS=1),
           "bk32,s4": dict(W, TOPK_TILE=32, STAGES=4), "bk64,s2,overlap": dict(W, TOPK_TILE=64, STAGES=2, PIPELINE="overlap")}

main(["--old", sys.argv[1], "--repeats", "2", "--timeout-s", "240", "--json", "cuda_compare2.json"], GENOMES)
