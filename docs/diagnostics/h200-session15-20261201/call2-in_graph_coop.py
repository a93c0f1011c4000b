"""time_in_graph.py with one change: a variant whose source holds the marker '// no-coop' is
launched without the cooperative attribute (the launcher's siblings launch before this session)."""
import os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, "scripts/device")
import evaluators.cuda_launch as cl
import cuda_entry
from evaluators.cuda_compile import compile_cuda
from evaluators.sparse_mla_cuda import make_entry, parse_contract

_launch = cl.CubinModule.launch


def launch(self, *args, cooperative=False, **kwargs):
    return _launch(self, *args, cooperative=cooperative and not getattr(self, "no_coop", False), **kwargs)


cl.CubinModule.launch = launch


def build_entry(source, cache, device):
    build = compile_cuda(source, cache)
    if not build.ok:
        print("compile failed", build.log[-2000:], flush=True)
        return None
    module = cl.CubinModule(Path(build.cubin), device)
    module.no_coop = "// no-coop" in source
    print("no-coop" if module.no_coop else "cooperative where siblings", flush=True)
    return make_entry(parse_contract(source), module)


cuda_entry.build_entry = build_entry
import time_in_graph  # noqa: E402
time_in_graph.build_entry = build_entry
time_in_graph.main()
