"""Run Python code in a fresh interpreter: what a new process or notebook kernel sees."""

from __future__ import annotations

import subprocess
import sys


def run_python(code: str, *, env: dict[str, str] | None = None) -> str:
    """Run ``code`` with ``python -c`` (this interpreter); its stdout, after it exits with 0.

    A fresh process imports nothing the tests have loaded, so import-time behaviour (what a
    module loads, what a hash seed changes) is seen as a user sees it.
    """
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
