import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from ptxgen import ptxas_check  # noqa: E402


@pytest.fixture
def assemble():
    """Assemble PTX with ptxas -arch=sm_100a to prove it is real PTX (skipped if no ptxas)."""
    def check(ptx, arch="sm_100a"):
        if ptxas_check(ptx, arch) == "skip":
            pytest.skip("no ptxas found: cannot prove the kernel is valid PTX")
    return check
