"""The ``--redis`` URL (``server/redis_client.py``): credentials, TLS options, cluster seeds,
and a password that never shows (the real Redis runs are in
``tests/integration/test_redis_security.py``)."""

from __future__ import annotations

import ssl

import pytest

from server.redis_client import RedisURLError, options, public_url, seed_nodes


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://u:p%40ss@h:6390/2", "redis://u:***@h:6390/2"),
        ("redis://:pw@h:1", "redis://:***@h:1"),
        ("rediss+cluster://u:pw@a:1,b:2?ssl_ca_certs=/x", "rediss+cluster://u:***@a:1,b:2?ssl_ca_certs=/x"),
        ("redis://h:1", "redis://h:1"),
    ],
)  # fmt: skip
def test_the_public_url_hides_the_password(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_credentials_are_percent_decoded_and_seeds_parsed() -> None:
    o = options("redis+cluster://croupier:p%40ss%3Aw@10.0.0.1:7001,[::1]:7002,h3")
    assert (o.username, o.password, o.ssl_context, o.db) == ("croupier", "p@ss:w", None, 0)
    seeds = seed_nodes("redis+cluster://croupier:p%40ss%3Aw@10.0.0.1:7001,[::1]:7002,h3")
    assert [(n["host"], n["port"]) for n in seeds] == [
        ("10.0.0.1", 7001),
        ("::1", 7002),
        ("h3", 6379),
    ]
    assert options("redis://:only-a-password@h:1/3")[1:] == ("only-a-password", None, 3)


def test_tls_verifies_chain_and_host_name_by_default() -> None:
    context = options("rediss://u:pw@redis.internal:6380").ssl_context
    assert context is not None and context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname
    relaxed = options("rediss://h:1?ssl_check_hostname=false").ssl_context
    assert relaxed is not None and not relaxed.check_hostname
    assert relaxed.verify_mode is ssl.CERT_REQUIRED  # the chain is always checked


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://u:secret@h:1", "is not a Redis URL"),
        ("redis://h:1?ssl_ca_certs=/x", "TLS options need rediss://"),
        ("rediss://h:1?verify=no", "unknown option verify"),
        ("rediss://h:1?ssl_ca_certs=/nonexistent/ca.crt", "cannot load a TLS file"),
        ("redis://h:1/x", "not a database number"),
        ("redis+cluster://h:1/2", "not a database number"),
    ],
)
def test_an_unusable_url_is_one_line_without_the_password(url: str, says: str) -> None:
    with pytest.raises(RedisURLError) as refused:
        options(url)
    assert says in str(refused.value) and "secret" not in str(refused.value)
