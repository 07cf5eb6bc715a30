"""The CLI starts light: building its parser does not import the spatial stack."""

from __future__ import annotations

import inspect

from tests.helpers.python import run_python

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
    run_python(code)


def test_graph_method_choices_are_the_apis():
    import inspect

    from dpatlas.cli.graph import COUNT_METHODS, DEGREE_METHODS, KSTAR_METHODS
    from dpatlas.cli.heatmap import SCALE_NAMES
    from dpatlas.graph.degrees import DEGREE_METHODS as API_DEGREE_METHODS
    from dpatlas.graph.kstars import kstar_count
    from dpatlas.graph.triangles import METHODS as TRIANGLE_METHODS
    from dpatlas.spatial.products.plot import SCALES

    assert COUNT_METHODS == TRIANGLE_METHODS
    assert sorted(KSTAR_METHODS) == sorted(TRIANGLE_METHODS)
    assert KSTAR_METHODS[0] == inspect.signature(kstar_count).parameters["method"].default
    assert DEGREE_METHODS == API_DEGREE_METHODS
    assert SCALE_NAMES == SCALES


def test_python_dash_m_dpatlas_is_the_command_line():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "dpatlas", "--version"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr  # was: 'dpatlas' is a package and cannot be run
    assert proc.stdout.startswith("dpatlas ")
