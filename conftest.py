"""Shared pytest fixtures: the public datasets beside the project, and seeded randomness."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATASETS = Path(__file__).resolve().parent.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """Path of ``../shared/datasets``; skips the test with a reason when it is absent (CI has it)."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(
            f"shared datasets not found at {SHARED_DATASETS}: clone ../shared beside the project"
        )
    return SHARED_DATASETS
