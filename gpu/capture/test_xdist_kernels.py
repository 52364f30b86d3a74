"""Small Triton tests for the multi-process capture check (pytest -n 2).

Each test compiles its own variant (a softmax over another column count,
hence another BLOCK_SIZE); under `ksnap_triton capture -- python3 -m pytest
-n 2 ...` every xdist worker writes its own shard into one capture.
"""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_kernels as sk  # noqa: E402

COLUMNS = [100, 200, 300, 600, 1000, 2000]  # BLOCK_SIZE 128, 256, 512, 1024, 1024, 2048


@pytest.mark.parametrize("cols", COLUMNS)
def test_softmax(cols):
    x = torch.randn((64, cols), device="cuda", dtype=torch.float32)
    assert torch.allclose(sk.softmax(x), torch.softmax(x, dim=1), atol=1e-5, rtol=1e-4)
