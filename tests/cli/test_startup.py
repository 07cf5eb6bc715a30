"""The CLI starts light: building its parser does not import the spatial stack."""

from __future__ import annotations

import inspect
import subprocess
import sys

from dpatlas.cli.heatmap import DEFAULT_METHOD, DEFAULT_TARGET, METHOD_NAMES, TARGET_NAMES
from dpatlas.spatial import METHODS, heatmap
from dpatlas.spatial.methods.auto import TARGETS


def test_method_choices_are_the_registered_methods_and_default():
    assert tuple(sorted(METHODS)) == METHOD_NAMES
    assert inspect.signature(heatmap).parameters["method"].default == DEFAULT_METHOD
    assert TARGETS == TARGET_NAMES
    assert inspect.signature(heatmap).parameters["target"].default == DEFAULT_TARGET


def test_help_does_not_import_geopandas_or_scipy():
    code = (
        "import sys\n"
        "from dpatlas.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('geopandas', 'scipy', 'shapely') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
