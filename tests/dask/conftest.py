"""One local Dask cluster (two worker processes, no dashboard) for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")


@pytest.fixture(scope="session")
def client() -> Iterator[distributed.Client]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as c:
        yield c
