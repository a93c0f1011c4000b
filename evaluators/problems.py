"""The problems a template may name in its front matter."""

from evaluators.sparse_mla import SparseMlaDecode

PROBLEMS = {SparseMlaDecode.name: SparseMlaDecode}
