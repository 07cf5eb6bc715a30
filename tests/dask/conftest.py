"""One local Dask cluster (two worker processes, no dashboard) for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

try:
    import distributed
except ImportError:  # the dask extra is not installed: nothing here can run
    collect_ignore_glob = ["*.py"]


@pytest.fixture(scope="session")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[distributed.Client]:
    # dashboard_address=":0" (a free port), not None: with None the scheduler's HTTP server still
    # binds 8787, so a second cluster on the machine (a doctest, another session) collides with
    # a leaked socket (ResourceWarning) and a "Port 8787 is already in use" UserWarning.
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        # scratch space of its own, not the shared /tmp/dask-scratch-space that every cluster on
        # the machine locks and purges
        local_directory=str(tmp_path_factory.mktemp("dask-scratch")),
    )
    with cluster, distributed.Client(cluster) as c:
        yield c
