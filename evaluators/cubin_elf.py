"""What a cubin's ELF records of each kernel: the size of its machine code and the sizes of its
parameters, read from the section headers and the CUDA info sections.

ptxas -v reports registers, shared memory and spills but not code size, and code size matters
inside a model: a kernel whose code outgrows the SM's instruction caches fetches it again from
L2 or HBM after every other kernel of the step (the sixty-second session measured the siblings'
merge, 240-350 KB of code against 35 KB without it, 9 us slower inside the decode layer than
alone; docs/BENCHMARKS.md). Each kernel's code is the section ``.text.<kernel name>``.

Each kernel's parameters are entries of its section ``.nv.info.<kernel name>``: the driver
copies a launch's arguments by these sizes and offsets (cuLaunchKernel takes no count), so they
are what a launcher must pass, after every macro, typedef and template the source used.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

_ELF64_LE = b"\x7fELF\x02\x01"
# .nv.info entries: a format byte, an attribute byte, then a 2-byte value, or for EIFMT_SVAL the
# 2-byte size of the payload that follows. EIATTR_KPARAM_INFO's 12-byte payload: index (u32),
# ordinal (u16), offset (u16), and a word whose top 14 bits are the parameter's size in bytes
# (as cuobjdump -elf prints them; nvcc 12.x-13.0, sm_90a).
_EIFMT_SVAL = 0x04
_EIATTR_KPARAM_INFO = 0x17


def kernel_code_bytes(cubin: Path) -> dict[str, int]:
    """Bytes of machine code by kernel (entry or device function with a section of its own)."""
    return {name.removeprefix(".text."): size for name, size, _ in _sections(cubin) if name.startswith(".text.")}


def device_variables(cubin: Path) -> dict[str, int]:
    """Bytes of device variables (``.nv.global``: zero-initialised, ``.nv.global.init``: with a
    value) by section: state that outlives a launch, whatever the source called it or however
    its name was spelt past the source check (a macro pasting ``__dev`` and ``ice__``)."""
    return {name: size for name, size, _ in _sections(cubin) if name in (".nv.global", ".nv.global.init") and size}


def kernel_parameter_sizes(cubin: Path) -> dict[str, tuple[int, ...]]:
    """The bytes of each parameter, in order, by kernel (every entry function of the cubin; one
    without parameters has an empty tuple)."""
    sizes = {}
    for name, size, body in _sections(cubin):
        if name.startswith(".nv.info."):
            if len(body) != size:
                raise ValueError(f"{cubin}: section {name} ends past the file")
            try:
                sizes[name.removeprefix(".nv.info.")] = _parameter_sizes(body)
            except struct.error as e:
                raise ValueError(f"{cubin}: section {name} unreadable ({e})") from e
    return sizes


def _parameter_sizes(info: bytes) -> tuple[int, ...]:
    by_ordinal, at = {}, 0
    while at + 4 <= len(info):
        form, attribute, value = struct.unpack_from("<BBH", info, at)
        at += 4
        if form != _EIFMT_SVAL:
            continue  # the value was the 2 bytes read
        if attribute == _EIATTR_KPARAM_INFO:
            _index, ordinal, _offset, word = struct.unpack_from("<IHHI", info, at)
            by_ordinal[ordinal] = word >> 18
        at += value
    return tuple(by_ordinal[ordinal] for ordinal in sorted(by_ordinal))


def _sections(cubin: Path) -> Iterator[tuple[str, int, bytes]]:
    """(name, size, contents) of each section of the cubin (a NOBITS section's contents are
    whatever its offset points at; none is read here)."""
    data = cubin.read_bytes()
    if not data.startswith(_ELF64_LE):
        raise ValueError(f"{cubin}: not a 64-bit little-endian ELF file (a cubin is one)")
    try:
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        # each header: name offset, type, flags, address, offset, size, ... (Elf64_Shdr)
        headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names_at = headers[shstrndx][4]
        sections = []
        for name_offset, _type, _flags, _addr, offset, size in headers:
            start = names_at + name_offset
            sections.append((data[start:data.index(b"\0", start)].decode(), size, data[offset:offset + size]))
    except (struct.error, IndexError, ValueError) as e:
        raise ValueError(f"{cubin}: section headers unreadable ({e})") from e
    return iter(sections)

