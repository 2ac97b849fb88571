"""Staff act under their own names (``croupier admin``, ``croupier cashier``).

A staff command line acts with the session token of the person at the keyboard (GLI-11 and
GLI-19: every significant event names who did it): ``--token-file PATH`` (one file per
person, readable by that person only) or env ``CROUPIER_TOKEN`` (``server/credentials.py``;
the older ``--token`` and the per-command variables still work). An operator issues the
token, signed with the server's secret, naming the person and the role::

    croupier admin token issue --account mia --name "Mia Chen" --role manager --out mia.token

There is no generic identity: without a token a command refuses to act (with
``CROUPIER_SECRET`` set, or when the store names no dev-mode server). Against a dev-mode
server (no secret: its own is in its store, ``--data`` or ``--redis``) the one convenience
identity is the dev operator, named so in the audit log (:data:`DEV_OPERATOR`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import trio

from server.credentials import TOKEN_ENV, CredentialError, session_token
from server.room.accounts import Accounts
from server.store.model import StoreError
from server.store.sqlite import SqliteStore

#: the only identity a command line makes up, and only against a dev-mode server
DEV_OPERATOR = ("dev-operator", "Dev operator")


class NoIdentity(Exception):
    """No named staff identity for this command (one line, for the command's error)."""


def dev_secret_of(data: Path, redis: str | None) -> str | None:
    """A dev-mode server's token secret, from its store (SQLite in ``data``, or Redis)."""
    if redis is not None:
        from server.store.redis import open_redis_store

        async def read() -> str | None:
            async with open_redis_store(redis, create=False) as store:
                return store.load().meta.get("dev_secret")

        return trio.run(read)
    try:
        store = SqliteStore(data, lock=False, readonly=True)
    except StoreError:
        return None
    try:
        return store.load().meta.get("dev_secret")
    finally:
        store.close()


def staff_token(
    args: argparse.Namespace,
    prog: str,
    role: str,
    data: Path,
    redis: str | None = None,
    *,
    also: tuple[str, ...] = (),
) -> str:
    """The session token this staff command acts with: the person's own (``--token-file``,
    env ``CROUPIER_TOKEN``, then the older env names in ``also``), or against a dev-mode
    server the dev operator's with ``role``. :class:`NoIdentity` when there is neither."""
    try:
        token = session_token(args, prog, also=also)
    except CredentialError as exc:
        raise NoIdentity(str(exc)) from None
    if token:
        return token
    production = bool(os.environ.get("CROUPIER_SECRET"))  # the server's secret: not dev
    dev_secret = None if production else dev_secret_of(data, redis)
    if dev_secret is None:
        raise NoIdentity(
            f"staff act under their own names: give your {role} token (--token-file PATH, or "
            f"env {TOKEN_ENV}); an operator issues one with croupier admin token issue "
            f"--account ACCOUNT --name NAME --role {role}"
        )
    account, name = DEV_OPERATOR
    return Accounts(None, dev_secret=dev_secret).issue(account, name, role=role)
