"""The machine code's size of each kernel in a cubin, read from its ELF section headers.

ptxas -v reports registers, shared memory and spills but not code size, and code size matters
inside a model: a kernel whose code outgrows the SM's instruction caches fetches it again from
L2 or HBM after every other kernel of the step (the sixty-second session measured the siblings'
merge, 240-350 KB of code against 35 KB without it, 9 us slower inside the decode layer than
alone; docs/BENCHMARKS.md). Each kernel's code is the section ``.text.<kernel name>``.
"""

from __future__ import annotations

import struct
from pathlib import Path

_ELF64_LE = b"\x7fELF\x02\x01"


def kernel_code_bytes(cubin: Path) -> dict[str, int]:
    """Bytes of machine code by kernel (entry or device function with a section of its own)."""
    data = cubin.read_bytes()
    if not data.startswith(_ELF64_LE):
        raise ValueError(f"{cubin}: not a 64-bit little-endian ELF file (a cubin is one)")
    try:
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        # each header: name offset, type, flags, address, offset, size, ... (Elf64_Shdr)
        headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names_at = headers[shstrndx][4]
        sizes = {}
        for name_offset, _type, _flags, _addr, _offset, size in headers:
            start = names_at + name_offset
            name = data[start:data.index(b"\0", start)].decode()
            if name.startswith(".text."):
                sizes[name.removeprefix(".text.")] = size
    except (struct.error, IndexError, ValueError) as e:
        raise ValueError(f"{cubin}: section headers unreadable ({e})") from e
    return sizes
