"""Every Redis client the server opens: one node or a Redis Cluster, from one URL.

* ``redis://[user:password@]host:port[/db]``, ``rediss://...`` (TLS): one Redis;
* ``redis+cluster://[user:password@]host:port[,host:port...]`` (or ``rediss+cluster://``):
  a Redis Cluster found from its seed nodes.

The ledger (``server/store/redis.py``) and the jackpot pools (``server/jackpots/
redis_store.py``) keep every multi-key operation's keys in one hash slot (``ledger:{ledger}:``,
``jp:{pool}:``), so their Lua scripts and MULTI blocks run unchanged on a cluster. Clients
fail fast (no retries): the callers retry whole operations with their own ids.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

import coredis
from coredis.retry import NoRetryPolicy
from coredis.typing import Node

RedisClient = coredis.Redis[str] | coredis.RedisCluster[str]

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def is_cluster(url: str) -> bool:
    return urlsplit(url).scheme in CLUSTER_SCHEMES


def seed_nodes(url: str) -> list[Node]:
    """The ``host:port`` seeds of a ``redis+cluster://`` URL."""
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    nodes: list[Node] = []
    for part in netloc.split(","):
        host, _, port = part.rpartition(":")
        nodes.append(Node(host=host.strip("[]") or "127.0.0.1", port=int(port or 6379)))
    return nodes


def node_client(url: str, host: str, port: int) -> coredis.Redis[str]:
    """One node of the cluster ``url`` names, with its credentials (per-node commands such
    as CONFIG GET)."""
    parts = urlsplit(url)
    return coredis.Redis(
        host=host,
        port=port,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        ssl=parts.scheme.startswith("rediss"),
        decode_responses=True,
        connect_timeout=0.5,
        stream_timeout=5.0,
        retry_policy=NoRetryPolicy(),
    )


def connect(url: str, *, connect_timeout: float = 0.5, stream_timeout: float = 5.0) -> Any:
    """A client for ``url`` (one node or a cluster) that fails fast."""
    if not is_cluster(url):
        return coredis.Redis.from_url(
            url,
            decode_responses=True,
            connect_timeout=connect_timeout,
            stream_timeout=stream_timeout,
            retry_policy=NoRetryPolicy(),
        )
    parts = urlsplit(url)
    return coredis.RedisCluster(
        startup_nodes=seed_nodes(url),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        ssl=parts.scheme.startswith("rediss"),
        decode_responses=True,
        connect_timeout=connect_timeout,
        stream_timeout=stream_timeout,
        retry_policy=NoRetryPolicy(),
    )
