"""What a worker zygote's imports leave in a process on a GPU machine, and whether a child forked
after them can use CUDA (torch and a Triton kernel). Prints one line a fact."""

import os
import time

t0 = time.monotonic()
import torch  # noqa: E402
import torch._dynamo  # noqa: E402, F401

with open("/proc/self/maps") as maps:
    mapped = "libcuda.so" in maps.read()
print(f"imports {time.monotonic() - t0:.2f} s; libcuda mapped {mapped}; torch.cuda initialised "
      f"{torch.cuda.is_initialized()}", flush=True)


def child() -> int:
    import triton
    import triton.language as tl

    @triton.jit
    def doubled(p, n: tl.constexpr):
        i = tl.arange(0, n)
        tl.store(p + i, tl.load(p + i) * 2)

    t = time.monotonic()
    x = torch.randn(1024, 1024, device="cuda")
    ok = torch.allclose((x @ x).cpu(), x.cpu() @ x.cpu(), rtol=1e-2, atol=1e-1)
    z = torch.ones(16, device="cuda")
    doubled[(1,)](z, 16)
    torch.cuda.synchronize()
    print(f"child: matmul ok {ok}, Triton kernel ok {z.sum().item() == 32}, {time.monotonic() - t:.2f} s", flush=True)
    return 0


pid = os.fork()
if pid == 0:
    try:
        code = child()
    except BaseException as exc:  # noqa: BLE001 - reported, as the point of the check
        print(f"child failed: {exc!r}", flush=True)
        code = 1
    os._exit(code)
print(f"child exit {os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}", flush=True)
