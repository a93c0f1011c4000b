"""Compile every variant of a variants file at once (the engine's CompileAhead: an nvcc process a
source, a source shared by several variants compiled once) into time_in_graph.py's cubin cache,
so that its variants do not compile one after another; with --sass DIR, each variant's split
kernel's SASS into DIR/NAME.sass. Usage: python3 prebuild.py VARIANTS.json [--sass DIR]"""
import argparse, os, subprocess, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, "scripts/device")
from engine.template import load_template
from evaluators.cuda_compile import CompileAhead
from variants import load_variants

ap = argparse.ArgumentParser()
ap.add_argument("variants")
ap.add_argument("--sass")
args = ap.parse_args()
vs = load_variants(args.variants, load_template(Path("templates/sparse_mla.cu.j2")), language="cuda")
cache = Path("results/in_graph/cubins")
ahead = CompileAhead(cache, workers=len(vs))
sources = {name: v.render() for name, v in vs.items()}
for source in sources.values():
    ahead.submit(source)
builds = {name: ahead.result(source) for name, source in sources.items()}
ahead.close()
for name, build in builds.items():
    print(name, "ok" if build.ok else "FAILED", build.cubin, flush=True)
    if build.ok and args.sass:
        sass = subprocess.run(["cuobjdump", "-sass", "-fun", "sparse_mla_decode_split", str(build.cubin)],
                              capture_output=True, text=True).stdout
        Path(args.sass, name.replace(" ", "_") + ".sass").write_text(sass)
