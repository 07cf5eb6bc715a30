"""``import dpatlas`` stays light: scipy is imported only by the functions that need it."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["dpatlas", "dpatlas.core"])
def test_import_does_not_load_scipy(module: str) -> None:
    code = f"import sys, {module}; assert 'scipy' not in sys.modules, 'scipy imported eagerly'"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
