"""Every Redis client the server opens: one node or a Redis Cluster, from one URL.

* ``redis://[user:password@]host:port[/db]``, ``rediss://...`` (TLS): one Redis;
* ``redis+cluster://[user:password@]host:port[,host:port...]`` (or ``rediss+cluster://``):
  a Redis Cluster found from its seed nodes.

Credentials: ``user:password@`` logs in as an ACL user (``HELLO 3 AUTH``), ``:password@``
as the ``default`` user (``requirepass``); percent-encode ``@ : / %`` in them. TLS
(``rediss``): the server's certificate must chain to the system's CAs or to
``?ssl_ca_certs=FILE``, and name the host (``?ssl_check_hostname=false`` to skip that);
``?ssl_certfile=FILE&ssl_keyfile=FILE`` sends a client certificate (Redis
``tls-auth-clients yes``). ``docs/redis.md`` gives the minimal ACL of a croupier process.
:func:`public_url` is the URL without its password: the only form printed or stored.

The ledger (``server/store/redis.py``) and the jackpot pools (``server/jackpots/
redis_store.py``) keep every multi-key operation's keys in one hash slot (``ledger:{ledger}:``,
``jp:{pool}:``), so their Lua scripts and MULTI blocks run unchanged on a cluster. Clients
fail fast (no retries): the callers retry whole operations with their own ids.
"""

from __future__ import annotations

import ssl
from typing import Any, NamedTuple
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

import coredis
import coredis.exceptions
from coredis.retry import NoRetryPolicy
from coredis.typing import Node

RedisClient = coredis.Redis[str] | coredis.RedisCluster[str]

SCHEMES = ("redis", "rediss", "redis+cluster", "rediss+cluster")
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
TLS_OPTIONS = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_check_hostname")
USAGE = (
    "redis[s]://[USER:PASSWORD@]HOST:PORT[/DB] or redis[s]+cluster://[USER:PASSWORD@]"
    "HOST:PORT[,HOST:PORT...]"
)
#: Redis refused the credentials (WRONGPASS, NOAUTH) or the ACL user's rights (NOPERM).
REFUSED = (coredis.exceptions.AuthenticationError, coredis.exceptions.AuthorizationError)


class RedisURLError(ValueError):
    """A ``--redis`` URL this module cannot use (one line, for the command's error)."""


def is_cluster(url: str) -> bool:
    return urlsplit(url).scheme in CLUSTER_SCHEMES


def public_url(url: str) -> str:
    """The URL without its password (for the witness file, messages and logs)."""
    parts = urlsplit(url)
    if parts.password is not None:
        host = parts.netloc.rsplit("@", 1)[1]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    return urlunsplit(parts)


def seed_nodes(url: str) -> list[Node]:
    """The ``host:port`` nodes of a URL (a cluster's seeds; one node otherwise)."""
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    nodes: list[Node] = []
    for part in netloc.split(","):
        host, colon, port = part.rpartition(":")
        if not colon or "]" in port:  # no port: "host" or "[::1]"
            host, port = part, ""
        try:
            number = int(port or 6379)
        except ValueError:
            raise RedisURLError(f"{public_url(url)}: {port!r} is not a port") from None
        nodes.append(Node(host=host.strip("[]") or "127.0.0.1", port=number))
    return nodes


def tls_context(url: str) -> ssl.SSLContext | None:
    """The TLS context of a ``rediss`` URL (None for ``redis``): the certificate is verified
    against the system's CAs and ``ssl_ca_certs``, and so is the host name unless
    ``ssl_check_hostname=false``; ``ssl_certfile``/``ssl_keyfile``: a client certificate."""
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if not parts.scheme.startswith("rediss"):
        if query:
            raise RedisURLError(f"{public_url(url)}: TLS options need rediss://")
        return None
    unknown = sorted(set(query) - set(TLS_OPTIONS))
    if unknown:
        raise RedisURLError(
            f"{public_url(url)}: unknown option {unknown[0]} (known: {', '.join(TLS_OPTIONS)})"
        )
    try:
        context = ssl.create_default_context(cafile=query.get("ssl_ca_certs"))
        if "ssl_certfile" in query:
            context.load_cert_chain(query["ssl_certfile"], query.get("ssl_keyfile"))
    except (OSError, ssl.SSLError) as exc:
        raise RedisURLError(f"{public_url(url)}: cannot load a TLS file: {exc}") from None
    context.check_hostname = query.get("ssl_check_hostname", "true").lower() not in (
        "false",
        "no",
        "0",
    )
    return context


class Options(NamedTuple):
    """What every connection to one URL shares: its credentials, TLS and database."""

    username: str | None
    password: str | None
    ssl_context: ssl.SSLContext | None
    db: int


def options(url: str) -> Options:
    """The :class:`Options` of ``url``; RedisURLError for a URL this module cannot use."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise RedisURLError(f"{public_url(url)} is not a Redis URL: use {USAGE}")
    db = parts.path.strip("/")
    if db and (parts.scheme in CLUSTER_SCHEMES or not db.isdigit()):
        raise RedisURLError(f"{public_url(url)}: /{db} is not a database number")
    return Options(
        unquote(parts.username) if parts.username else None,
        unquote(parts.password) if parts.password else None,
        tls_context(url),
        int(db or 0),
    )


def node_client(
    url: str, host: str, port: int, *, connect_timeout: float = 0.5, stream_timeout: float = 5.0
) -> coredis.Redis[str]:
    """One node of ``url`` (or of the cluster it names: per-node commands such as INFO
    persistence), with its credentials and TLS."""
    o = options(url)
    return coredis.Redis(
        host=host,
        port=port,
        db=o.db,
        username=o.username,
        password=o.password,
        ssl_context=o.ssl_context,
        decode_responses=True,
        connect_timeout=connect_timeout,
        stream_timeout=stream_timeout,
        retry_policy=NoRetryPolicy(),
    )


def connect(url: str, *, connect_timeout: float = 0.5, stream_timeout: float = 5.0) -> Any:
    """A client for ``url`` (one node or a cluster) that fails fast. Raises RedisURLError
    for a URL it cannot use."""
    nodes = seed_nodes(url)
    if not is_cluster(url):
        if len(nodes) != 1:
            raise RedisURLError(f"{public_url(url)}: several nodes need redis+cluster://")
        return node_client(
            url,
            nodes[0]["host"],
            nodes[0]["port"],
            connect_timeout=connect_timeout,
            stream_timeout=stream_timeout,
        )
    o = options(url)
    return coredis.RedisCluster(
        startup_nodes=nodes,
        username=o.username,
        password=o.password,
        ssl_context=o.ssl_context,
        decode_responses=True,
        connect_timeout=connect_timeout,
        stream_timeout=stream_timeout,
        retry_policy=NoRetryPolicy(),
        # no CONFIG GET cluster-require-full-coverage (the minimal ACL has no CONFIG): a
        # slot without an owner fails its commands, and the callers retry them
        skip_full_coverage_check=True,
    )


def refusal(exc: BaseException, url: str) -> str | None:
    """One line if ``exc`` is Redis refusing this client (wrong user or password, or an ACL
    that lacks a command or key); None otherwise."""
    if isinstance(exc, coredis.exceptions.AuthenticationError):
        return (
            f"the Redis at {public_url(url)} refused the user or password (give them in "
            f"the URL: redis://USER:PASSWORD@HOST:PORT): {exc}"
        )
    if isinstance(exc, coredis.exceptions.AuthorizationError):
        return f"the Redis at {public_url(url)} refused a command (docs/redis.md, ACL): {exc}"
    return None


def reason(exc: BaseException) -> str:
    """``exc`` in words, with the error under it (a certificate that does not verify is
    under coredis' "Unable to establish a connection")."""
    text = str(exc) or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({cause})"
    return text
