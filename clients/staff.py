"""Sessions for staff command lines (``croupier cashier``, ``croupier admin``).

A staff token is taken from ``--token`` (or the command's environment variable), or signed
here with the server's HMAC secret from ``CROUPIER_SECRET``; against a dev-mode server the
secret is read from its data directory (``--data``, default ./var).
"""

from __future__ import annotations

import os
from pathlib import Path

from server.accounts import Accounts
from server.store.sqlite import SqliteStore


def staff_token(role: str, account: str, given: str | None, env: str, data: Path) -> str:
    token = given or os.environ.get(env)
    if token:
        return token
    secret = os.environ.get("CROUPIER_SECRET")
    if secret:
        return Accounts(secret).issue(account, account, role=role)
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        dev_secret = store.load().meta.get("dev_secret")
    finally:
        store.close()
    if dev_secret is None:
        raise SystemExit(f"croupier: give --token or set CROUPIER_SECRET for a {role} session")
    return Accounts(None, dev_secret=dev_secret).issue(account, account, role=role)
