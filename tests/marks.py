"""Marks shared by the test modules."""

from __future__ import annotations

import shutil

import pytest

# tests that build CUDA sources with the local nvcc (CI has it; a bare machine may not)
NEEDS_NVCC = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
