"""``import dpatlas`` stays light: scipy is imported only by the functions that need it."""

from __future__ import annotations

import pytest
from tests.helpers.python import run_python


@pytest.mark.parametrize("module", ["dpatlas", "dpatlas.core"])
def test_import_does_not_load_scipy(module: str) -> None:
    code = f"import sys, {module}; assert 'scipy' not in sys.modules, 'scipy imported eagerly'"
    run_python(code)
