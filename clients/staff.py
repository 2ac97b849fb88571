"""Sessions for staff command lines (``croupier cashier``, ``croupier admin``).

A staff token is taken from ``--token`` (or the command's environment variable), or signed
here with the server's HMAC secret from ``CROUPIER_SECRET``; against a dev-mode server the
secret is read from its store (``--data``, default ./var, or ``--redis``).
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from server.accounts import Accounts
from server.store.sqlite import SqliteStore


def dev_secret_of(data: Path, redis: str | None) -> str | None:
    """A dev-mode server's token secret, from its store (SQLite in ``data``, or Redis)."""
    if redis is not None:
        from server.store.redis import open_redis_store

        async def read() -> str | None:
            async with open_redis_store(redis, create=False) as store:
                return store.load().meta.get("dev_secret")

        return trio.run(read)
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        return store.load().meta.get("dev_secret")
    finally:
        store.close()


def staff_token(
    role: str, account: str, given: str | None, env: str, data: Path, redis: str | None = None
) -> str:
    token = given or os.environ.get(env)
    if token:
        return token
    secret = os.environ.get("CROUPIER_SECRET")
    if secret:
        return Accounts(secret).issue(account, account, role=role)
    dev_secret = dev_secret_of(data, redis)
    if dev_secret is None:
        raise SystemExit(f"croupier: give --token or set CROUPIER_SECRET for a {role} session")
    return Accounts(None, dev_secret=dev_secret).issue(account, account, role=role)
