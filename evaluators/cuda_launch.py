"""Load cubins and launch their kernels through cuda-python on torch's memory and torch's
current stream, so that a launch made inside ``torch.cuda.graph`` is captured: cuda.core loads
the cubin, sets kernel attributes and answers occupancy; every launch is the driver's
cuLaunchKernelEx (cuda.bindings), which takes the attributes cuda.core 1.2's launch lacks.

Runs inside a GPU worker only. Older cuda-python releases kept the same API under
``cuda.core.experimental``; both are accepted.
"""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path
from typing import Any

import torch

try:  # cuda-python >= 0.4 exposes cuda.core at the top level
    from cuda.core import Device, LaunchConfig, ObjectCode
except ImportError:  # pragma: no cover - depends on the image
    from cuda.core.experimental import Device, LaunchConfig, ObjectCode

try:
    from cuda.bindings import driver
except ImportError:  # pragma: no cover
    from cuda import cuda as driver


class LaunchError(RuntimeError):
    """The driver refused a launch or an attribute (the message names the CUresult)."""


class TensorMap:
    """A bulk-copy tensor map (CUtensorMap: 128 opaque bytes) for a kernel parameter declared
    `const __grid_constant__` of that size; it is passed by value, so a captured launch keeps it."""

    def __init__(self, raw: ctypes.Array):
        self.raw = raw

    @property
    def address(self) -> int:
        return ctypes.addressof(self.raw)


# cuda.h's enum values: CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B
_BF16, _SWIZZLE_128B, _L2_PROMOTION_256B = 9, 3, 3


@functools.lru_cache(maxsize=1)
def _tensor_map_encoder() -> Any:
    """The driver's cuTensorMapEncodeTiled (libcuda), typed once: a launcher encodes a map per call."""
    encode = ctypes.CDLL("libcuda.so.1").cuTensorMapEncodeTiled
    encode.restype = ctypes.c_int
    encode.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int]
    return encode


def bf16_tensor_map_2d(address: int, inner: int, outer: int, row_bytes: int, box_inner: int, box_outer: int) -> TensorMap:
    """The tensor map of a row-major [outer, inner] bf16 matrix (rows `row_bytes` apart), copied in
    boxes of [box_outer rows, box_inner columns] into 128-byte-swizzled shared memory (the layout
    wgmma reads). The driver's own encoder, so the bytes are the driver's."""
    raw = (ctypes.c_uint64 * 16)()
    dims = (ctypes.c_uint64 * 2)(inner, outer)
    strides = (ctypes.c_uint64 * 1)(row_bytes)
    box = (ctypes.c_uint32 * 2)(box_inner, box_outer)
    element_strides = (ctypes.c_uint32 * 2)(1, 1)
    err = _tensor_map_encoder()(ctypes.addressof(raw), _BF16, 2, address, dims, strides, box, element_strides, 0,
                                _SWIZZLE_128B, _L2_PROMOTION_256B, 0)
    if err != 0:
        raise LaunchError(f"cuTensorMapEncodeTiled refused the tensor map of bf16 [{outer} x {inner}] at {address:#x}, "
                          f"rows {row_bytes} B apart, boxes of {box_outer} x {box_inner} (CUresult {err})")
    return TensorMap(raw)


class _TorchStream:
    """A torch stream seen through the ``__cuda_stream__`` protocol."""

    def __init__(self, handle: int):
        self.handle = handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


class CubinModule:
    """One loaded cubin; kernels are looked up once and launched on the current torch stream."""

    def __init__(self, cubin: Path, device: torch.device):
        self.device_index = device.index if device.index is not None else torch.cuda.current_device()
        self.device = Device(self.device_index)
        self.device.set_current()  # the primary context, which torch already uses
        self.code = ObjectCode.from_cubin(str(cubin))
        self._kernels: dict[str, Any] = {}
        self._streams: dict[int, Any] = {}

    def kernel(self, name: str, dynamic_smem: int = 0, cluster_size: int = 1) -> Any:
        key = (name, cluster_size > 8)
        if key not in self._kernels:
            kernel = self.code.get_kernel(name)
            if dynamic_smem > 48 * 1024:
                _set_attribute(kernel, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", dynamic_smem,
                               self.device_index, f"{dynamic_smem} B of dynamic shared memory")
            if cluster_size > 8:
                _set_attribute(kernel, "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", 1,
                               self.device_index, f"a cluster of {cluster_size} CTAs")
            self._kernels[key] = kernel
        return self._kernels[key]

    def launch(self, name: str, grid: tuple[int, int, int], block: int, smem: int, *args: Any,
               cluster: tuple[int, int, int] | None = None, pdl: bool = False, cooperative: bool = False) -> None:
        """Launch `grid` CTAs; with `cluster`, as clusters of that shape (each grid dimension a
        multiple of the cluster's); with `pdl`, as a programmatic dependent of the stream's
        previous kernel (the kernel must wait for it with griddepcontrol.wait); with `cooperative`,
        as a grid whose CTAs are all resident at once (the driver refuses a grid that cannot be,
        and never starts it on part of the GPU: CTAs that wait for each other cannot hang)."""
        size = cluster[0] * cluster[1] * cluster[2] if cluster else 1
        kernel = self.kernel(name, smem, size)
        if cluster and any(g % c for g, c in zip(grid, cluster)):
            raise LaunchError(f"launch of {name}: grid {grid} is not a whole number of clusters {cluster}")
        self._launch_driver(name, kernel, grid, block, smem, args, cluster, pdl, cooperative)

    def _launch_driver(self, name: str, kernel: Any, grid: tuple[int, int, int], block: int, smem: int,
                       args: tuple, cluster: tuple[int, int, int] | None, pdl: bool, cooperative: bool) -> None:
        """The driver's cuLaunchKernelEx, with the arguments as an array of pointers to their
        values, for every launch: cuda.core's launch (1.2) has no programmatic-serialization
        attribute and no by-value tensor-map argument, and one path is one behaviour to test.
        The grid counts CTAs; a cluster is a launch attribute."""
        import numpy as np

        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.blockDimY, config.blockDimZ = block, 1, 1
        config.sharedMemBytes = smem
        config.hStream = driver.CUstream(torch.cuda.current_stream(self.device_index).cuda_stream)
        attributes = []
        if pdl:
            attribute = driver.CUlaunchAttribute()
            attribute.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            attribute.value.programmaticStreamSerializationAllowed = 1
            attributes.append(attribute)
        if cooperative:
            attribute = driver.CUlaunchAttribute()
            attribute.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            attribute.value.cooperative = 1
            attributes.append(attribute)
        if cluster:
            attribute = driver.CUlaunchAttribute()
            attribute.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attribute.value.clusterDim.x, attribute.value.clusterDim.y, attribute.value.clusterDim.z = cluster
            attributes.append(attribute)
        config.attrs = attributes
        config.numAttrs = len(attributes)
        values = [_kernel_argument(a) for a in args]  # alive until the driver has copied them
        pointers = np.array([_argument_address(v) for v in values], dtype=np.uint64)
        handle = _driver_handle(kernel)
        what = (f"launch of {name} grid={grid} cluster={cluster} block={block} smem={smem} pdl={pdl}"
                f"{' cooperative' if cooperative else ''}")
        try:
            err, = driver.cuLaunchKernelEx(config, handle, pointers.ctypes.data, 0)
        except Exception as exc:
            raise LaunchError(f"{what} failed: {type(exc).__name__}: {exc}") from exc
        if err != driver.CUresult.CUDA_SUCCESS:
            raise LaunchError(f"{what} failed: {err}")

    def max_active_clusters(self, name: str, cluster: tuple[int, int, int], block: int, smem: int) -> int:
        """How many clusters of this shape the device can run at once (the driver's occupancy
        calculator: shared memory, registers and how the GPCs group their SMs)."""
        size = cluster[0] * cluster[1] * cluster[2]
        kernel = self.kernel(name, smem, size)
        config = LaunchConfig(grid=(1, 1, 1), cluster=cluster, block=block, shmem_size=smem)
        stream = self._stream(torch.cuda.current_stream(self.device_index).cuda_stream)
        try:
            return int(kernel.occupancy.max_active_clusters(config, stream=stream))
        except Exception as exc:
            raise LaunchError(f"occupancy of a launch of {name} in clusters of {cluster}: "
                              f"{type(exc).__name__}: {exc}") from exc

    def max_active_blocks(self, name: str, block: int, smem: int) -> int:
        """How many CTAs of this kernel one SM holds at once (the driver's occupancy calculator)."""
        kernel = self.kernel(name, smem)
        try:
            return int(kernel.occupancy.max_active_blocks_per_multiprocessor(block, smem))
        except Exception as exc:
            raise LaunchError(f"occupancy of a launch of {name} with {block} threads and {smem} B: "
                              f"{type(exc).__name__}: {exc}") from exc

    def _stream(self, handle: int) -> Any:
        if handle not in self._streams:
            self._streams[handle] = self.device.create_stream(_TorchStream(handle))
        return self._streams[handle]


def _kernel_argument(value: Any):
    """One kernel argument as a one-element numpy array: a numpy scalar keeps its type (int32,
    float32); a Python int is a device pointer. A TensorMap stays itself (its 128 bytes)."""
    import numpy as np

    if isinstance(value, TensorMap):
        return value
    if isinstance(value, np.generic):
        return np.array([value], dtype=value.dtype)
    if isinstance(value, int) and not isinstance(value, bool):
        return np.array([value], dtype=np.uint64)
    raise LaunchError(f"kernel argument {value!r} of type {type(value).__name__}: expected a numpy scalar or a pointer")


def _argument_address(value: Any) -> int:
    return value.address if isinstance(value, TensorMap) else value.ctypes.data


def _driver_handle(kernel: Any) -> Any:
    """The driver's handle of a cuda.core kernel (a CUkernel when loaded from a library), named
    `handle` or, in older cuda.core releases, `_handle`."""
    return kernel.handle if hasattr(kernel, "handle") else kernel._handle


def _set_attribute(kernel: Any, attribute: str, value: int, device_index: int, what: str) -> None:
    attr = getattr(driver.CUfunction_attribute, attribute)
    handle = _driver_handle(kernel)
    if type(handle).__name__ == "CUkernel":  # library-loaded: per device
        err, = driver.cuKernelSetAttribute(attr, value, handle, device_index)
    else:
        err, = driver.cuFuncSetAttribute(handle, attr, value)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise LaunchError(f"CUDA_ERROR launch attribute: {what} refused ({err})")
