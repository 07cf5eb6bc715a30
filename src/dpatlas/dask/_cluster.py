"""Which Dask client runs the work: the one given, the current one, or a local cluster."""

from __future__ import annotations

import atexit
import threading
from typing import Any

from distributed import Client, LocalCluster

__all__ = ["get_client"]

_LOCK = threading.Lock()
_LOCAL: list[Client] = []


def _close_local() -> None:
    while _LOCAL:
        client = _LOCAL.pop()
        cluster = client.cluster
        client.close()
        if cluster is not None:
            cluster.close()


def get_client(client: Any = None) -> Client:
    """The client to run on: ``client`` itself, else the current one, else a local cluster.

    A local cluster (one worker process per core, its HTTP server on a free port) is started only when no client
    exists in this process; it is reused by later calls and closed when Python exits.

    Examples
    --------
    >>> get_client("tcp://10.0.0.5:8786")
    Traceback (most recent call last):
    ...
    TypeError: client must be a distributed.Client or None, got 'tcp://10.0.0.5:8786'; connect ...
    """
    if client is not None:
        if not isinstance(client, Client):
            hint = f'; connect with Client("{client}") first' if isinstance(client, str) else ""
            raise TypeError(f"client must be a distributed.Client or None, got {client!r}{hint}")
        return client
    try:
        return Client.current()
    except ValueError:
        pass
    with _LOCK:
        if not _LOCAL:
            # ":0": a free port; None would still bind the scheduler's HTTP server to 8787
            cluster = LocalCluster(processes=True, dashboard_address=":0")
            _LOCAL.append(Client(cluster, set_as_default=False))
            atexit.register(_close_local)
        return _LOCAL[0]
