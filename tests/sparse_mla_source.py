"""What the tests read from a rendered source of the CUDA template (templates/sparse_mla.cu.j2)."""

from __future__ import annotations

import re


def merge_dispatch(source: str) -> dict[int, str]:
    """The siblings' merge dispatch of a rendered source: each split count its cases name, and the
    merge that takes it ("share" or "range"); any other count above one takes the item-range
    fallback."""
    return {int(n): kind for n, kind in re.findall(r"case (\d+): merge_(share|range)<", source)}
