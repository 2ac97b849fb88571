"""``croupier loadtest`` against a deployment of several servers (``server/room/directory.py``).

A deployment's lobby (any process's, or the directory itself read from Redis with
``--redis URL``) gives each table the client URL of the process that serves it; the load
test sends each table's bots straight to that process, so the bots are spread over the
owners as the tables are. Money is checked on the deployment's ledger (``--redis``): one
process's ``/status`` counts only its own tables and the wallets it holds. A table that
changes owner during the run is not followed by its bots (they report its errors).
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.store.model import CheckReport


def owners(rows: list[dict[str, Any]]) -> list[str]:
    """The client URLs of the processes that serve these lobby rows."""
    return sorted({str(r["url"]) for r in rows if r.get("url")})


def is_deployment(rows: list[dict[str, Any]]) -> bool:
    """Rows of a deployment: they name the process that serves each table."""
    return any(r.get("url") for r in rows)


async def directory_rows(redis_url: str) -> list[dict[str, Any]]:
    """Every table of the deployment whose ledger is at ``redis_url``, as lobby rows with
    the owner's URL (a table no live process serves has ``url`` None)."""
    from server.room.directory import Directory
    from server.store.redis import RedisStore, connect

    async with connect(redis_url) as client:
        directory = Directory(RedisStore(client, redis_url), "")
        await directory.refresh()
        rows = directory.lobby({})
    return [msgspec.to_builtins(r) for r in rows]


async def ledger_check(redis_url: str) -> CheckReport:
    """The deployment's books (``croupier ledger check --redis``)."""
    from server.store.redis import RedisStore, connect

    async with connect(redis_url) as client:
        return await RedisStore(client, redis_url).check()


def conservation(report: CheckReport, urls: list[str]) -> dict[str, Any]:
    """The report's ``conservation`` for a deployment: its ledger balances."""
    return {
        "deployment": urls,
        "ledger": report.to_json(),
        "conserved": report.balanced,
    }
