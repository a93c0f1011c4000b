"""What the tests read from a rendered source of the CUDA template (templates/sparse_mla.cu.j2)."""

from __future__ import annotations

import re


def merge_dispatch(source: str) -> dict[int, str]:
    """The siblings' merges of a rendered source: each split count with a split-kernel entry of its
    own (``sparse_mla_decode_split_sN``, calling ``split_body<N>``), and the merge that entry
    carries ("share" or "range", as merge_with_siblings picks it); any other count above one takes
    the entry without a count, and its item-range fallback."""
    entries = {int(n) for n in re.findall(r"sparse_mla_decode_split_s(\d+)\(", source)}
    calls = {int(n) for n in re.findall(r"split_body<(\d+)>\(", source)} - {0}
    assert entries == calls, (entries, calls)
    share_line = source[source.index("constexpr bool SHARE = "):]
    share = {int(n) for n in re.findall(r"ONLY_S == (\d+)", share_line[:share_line.index(";")])}
    by_range = source[source.index("bool merged_by_range(int s) {"):]
    ranged = {int(n) for n in re.findall(r"s == (\d+)", by_range[:by_range.index("\n}")])}
    return {n: "share" if n in share else "range" if n in ranged else "none" for n in entries}
